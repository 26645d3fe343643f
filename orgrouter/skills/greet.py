"""The ``greet`` skill: answer a greeting without running any other skill."""

from __future__ import annotations

from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result

GREETING_BODY = (
    "Hello! I route headlines addressed to me. Write one like\n"
    "=* @agent summarize this section, then create todos for the action items=\n"
    "and run =orgrouter route= over your notes."
)


class GreetSkill(BaseSkill):
    """Reply to a social greeting with a short hello and a hint."""

    name = "greet"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the hello result."""
        return Emit((Result(title="Hello", body=GREETING_BODY),))


SKILL = GreetSkill()
