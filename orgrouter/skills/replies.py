"""What model-backed skills share: the text they send and the results they write."""

from __future__ import annotations

from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Message, NeuroBackend
from orgrouter.neuro.budget import BudgetReached
from orgrouter.neuro.markdown import markdown_to_org
from orgrouter.neuro.privacy import shareable
from orgrouter.skills.base import Context, Result

MAX_NOTES_CHARS = 12_000  # what a small local model's context comfortably holds
MODEL_KEY = "ORGROUTER_MODEL"
# What is read of a reply before conversion to Org: a runaway reply costs no more time
# to convert than this; what is written is capped again (limits.result_bytes).
MAX_REPLY_CHARS = 40_000


def clip(reply: str) -> str:
    """Return ``reply`` cut at a line end near ``MAX_REPLY_CHARS``, saying so."""
    if len(reply) <= MAX_REPLY_CHARS:
        return reply
    cut = reply.rfind("\n", 0, MAX_REPLY_CHARS)
    kept = reply[: cut if cut > 0 else MAX_REPLY_CHARS]
    if kept.count("```") % 2:
        kept += "\n```"  # close a fence the cut left open
    return kept + f"\n\n[The answer was cut at {MAX_REPLY_CHARS} characters.]"


def model_name(backend: NeuroBackend) -> str:
    """Return the name a result records for the model that wrote it."""
    return str(getattr(backend, "model", None) or backend.name)


def failure_result(error: ModelError, what: str) -> Result:
    """Return the result that reports a failed model call in plain words."""
    if isinstance(error, BudgetReached):
        return Result(
            title=f"Budget reached: {what} not done",
            body=f"{error.message}. It runs again on the next run.",
            kind="error",
        )
    return Result(title=f"Model error: {what} not done", body=error.message, kind="error")


def notes_for_model(ctx: Context) -> str:
    """Return the section a skill may send: private subtrees and results removed."""
    text = shareable(ctx.subject(), ctx.config.privacy.tags).strip("\n")
    if len(text) > MAX_NOTES_CHARS:
        text = text[:MAX_NOTES_CHARS] + "\n[... the rest of the section was left out]"
    return text


def chat(system: str, instruction: str, notes: str) -> list[Message]:
    """Return the messages of a call: the system prompt, then the request and its notes."""
    said = f"{instruction}\n\nThe notes:\n\n{notes}" if notes.strip() else instruction
    return [Message("system", system), Message("user", said)]


def model_answer(title: str, text: str, model: str, *marks: tuple[str, str]) -> Result:
    """Return a model's answer as a result: safe Org, its properties naming the model last."""
    properties = (*marks, (MODEL_KEY, model))
    # org_safe: markdown_to_org escaped what Org would read as structure.
    return Result(title, markdown_to_org(clip(text)), properties=properties, org_safe=True)
