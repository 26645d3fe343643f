"""Answer a chat message (``orgrouter ask``): the kernel's ``chat-message`` stimulus.

With a model configured, the message goes through the router like any request (gate,
decomposition, delegation to skills); the answer comes back as Org. With ``rules``,
the answer says that no model is configured and how to set one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from orgrouter.config import Config
from orgrouter.errors import ModelError, UsageError
from orgrouter.neuro.budget import RunTimeSpent
from orgrouter.neuro.factory import make_backend
from orgrouter.records import replace
from orgrouter.skills.base import (
    Context,
    Result,
    Sensor,
    Stimulus,
    StimulusType,
    delegation,
)


@dataclass
class ChatAnswer:
    """The results a chat message produced, and what the run logged."""

    results: list[Result] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    def org(self) -> str:
        """Return the non-error results as Org headlines, one level deep."""
        return "\n".join(render(r) for r in self.results if r.kind != "error")

    def errors(self) -> list[Result]:
        """Return the results that report a failure."""
        return [r for r in self.results if r.kind == "error"]


def render(result: Result) -> str:
    """Return ``result`` as a top-level Org headline with its body."""
    todo = f"{result.todo} " if result.todo else ""
    tags = f" :{':'.join(result.tags)}:" if result.tags else ""
    head = f"* {todo}{' '.join(result.title.split())}{tags}"
    planning = f"\n{result.planning}" if result.planning else ""
    body = result.body.strip("\n")
    return f"{head}{planning}\n{body}\n" if body else f"{head}{planning}\n"


def _capped(result: Result, config: Config) -> Result:
    """Return ``result`` within the limits a written result has (the answer may be pasted)."""
    from orgrouter.org.escape import cap_body, cap_line

    limits = config.limits
    return replace(
        result,
        title=cap_line(result.title, limits.echo_chars),
        body=cap_body(result.body, limits.result_bytes),
    )


def answer_chat(
    text: str,
    config: Config,
    *,
    agent: str | None = None,
    now: datetime | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ChatAnswer:
    """Return the answer to the chat message ``text`` as results."""
    if not text.strip():
        raise UsageError("ask: no question given (pass TEXT, or - to read it from stdin)")
    limit = config.limits.instruction_chars
    if len(text) > limit:
        raise UsageError(
            f"ask: the question is longer than {limit} characters (limits.instruction_chars)"
        )
    backend = make_backend(config.neuro_for(agent), sleep=sleep)
    ctx = Context(config=config, now=now or datetime.now().astimezone(), backend=backend)
    from orgrouter.route import kernel

    if backend is None:
        # Offline, the answer is the offline ask's: no model, and how to set one.
        from orgrouter.skills.ask import SKILL as OFFLINE_ASK

        question = delegation({"skill": "ask", "text": text, "order": 1})
        outcome = kernel.run(question, [OFFLINE_ASK], ctx)
        return ChatAnswer([_capped(e.result, config) for e in outcome.emitted], list(outcome.logs))
    from orgrouter.skills.registry import load_skills, targets

    # A backend means a model is configured, so the registry loads the model skills.
    skills = load_skills(config).skills
    ctx.selves = ("agent", *([agent] if agent else []))
    ctx.targets = targets(skills)
    stimulus = Stimulus(StimulusType.EVENT, {"sensor": Sensor.CHAT_MESSAGE.value, "text": text})
    try:
        outcome = kernel.run(stimulus, skills, ctx)
    except RunTimeSpent as spent:
        raise ModelError(spent.message) from None
    return ChatAnswer([_capped(e.result, config) for e in outcome.emitted], list(outcome.logs))
