"""The per-run token budget shared by every model call of one run."""

from __future__ import annotations

from orgrouter.errors import ModelError


class BudgetReached(ModelError):
    """The run's token budget is spent; no further model calls are made this run."""


def estimate_tokens(text: str) -> int:
    """Return a rough token count for ``text`` (about four characters a token)."""
    return (len(text) + 3) // 4


class TokenBudget:
    """Count the tokens a run spends and refuse calls once ``limit`` is reached."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.spent = 0
        self.calls = 0

    def remaining(self) -> int | None:
        """Return the tokens left, or None when the budget is unlimited."""
        return None if self.limit is None else max(0, self.limit - self.spent)

    def check(self, prompt_estimate: int) -> None:
        """Raise ``BudgetReached`` if a call needing ``prompt_estimate`` tokens cannot fit."""
        left = self.remaining()
        if left is None:
            return
        if left == 0 or prompt_estimate > left:
            raise BudgetReached(
                f"budget reached: {self.spent} of {self.limit} tokens spent this run "
                f"(neuro.budget_tokens); no further model calls until the next run"
            )

    def charge(self, tokens: int) -> None:
        """Record ``tokens`` spent by one finished call."""
        self.spent += max(0, tokens)
        self.calls += 1
