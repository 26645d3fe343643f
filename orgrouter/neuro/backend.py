"""The interface every model backend offers to skills and the router."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One chat message sent to a model."""

    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """What a model answered, and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class NeuroBackend(Protocol):
    """A language model reachable for chat completions.

    ``complete`` raises ``orgrouter.errors.ModelError`` on failure (timeout, garbage,
    refused connection) and ``BudgetReached`` (a ModelError) once the run's token
    budget is spent; callers turn either into a clear result, never a crash.
    """

    name: str

    def complete(self, messages: list[Message], *, purpose: str) -> Completion:
        """Send ``messages`` and return the model's reply."""
        ...
