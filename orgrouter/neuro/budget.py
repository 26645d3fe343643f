"""The per-run budgets shared by every model call of one run: tokens, and model time."""

from __future__ import annotations

from orgrouter.errors import ModelError


class BudgetReached(ModelError):
    """The run's token budget is spent; no further model calls are made this run."""


class RunTimeSpent(BaseException):
    """The run's model time (``neuro.run_timeout_s``) is spent: defer what is left.

    A BaseException, like ``KeyboardInterrupt``: skills and the kernel catch Exception
    (and ModelError) to turn failures into results, and a deferred request must get no
    result at all, so that it is still due on the next run.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def estimate_tokens(text: str) -> int:
    """Return a rough token count for ``text`` (about four characters a token)."""
    return (len(text) + 3) // 4


class TokenBudget:
    """Count the tokens and model seconds a run spends; refuse calls past either limit."""

    def __init__(self, limit: int | None, time_limit_s: float | None = None) -> None:
        self.limit = limit
        self.time_limit_s = time_limit_s
        self.spent = 0
        self.seconds = 0.0

    def time_left(self) -> float | None:
        """Return the model seconds this run has left, or None when there is no limit."""
        return None if self.time_limit_s is None else max(0.0, self.time_limit_s - self.seconds)

    def check(self, prompt_estimate: int) -> None:
        """Raise if a call needing ``prompt_estimate`` tokens cannot fit this run.

        ``RunTimeSpent`` when the model time is gone (the request waits for the next
        run), ``BudgetReached`` when the tokens are.
        """
        if self.time_left() == 0.0:
            raise RunTimeSpent(
                f"model time spent: {self.seconds:.1f} of {self.time_limit_s:g}s this run "
                "(neuro.run_timeout_s); the request is deferred to the next run"
            )
        if self.limit is not None and (
            self.spent >= self.limit or prompt_estimate > self.limit - self.spent
        ):
            raise BudgetReached(
                f"budget reached: {self.spent} of {self.limit} tokens spent this run "
                f"(neuro.budget_tokens); no further model calls until the next run"
            )

    def charge(self, tokens: int) -> None:
        """Record ``tokens`` spent by one finished call."""
        self.spent += max(0, tokens)

    def charge_time(self, seconds: float) -> None:
        """Record ``seconds`` one call took, finished or not."""
        self.seconds += max(0.0, seconds)
