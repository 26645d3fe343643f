"""The ``greet`` skill: answer a greeting or a thank-you, without any other skill.

The gate's greeting bypass skips the skill chain and the specialists, not the reply:
with a model configured (and a request that is not private) the model answers the
greeting in a sentence or two; offline, a short hello with a hint does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orgrouter.errors import ModelError
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Stimulus,
    proposal_stimulus,
)

GREETING_BODY = (
    "Hello! I route headlines addressed to me. Write one like\n"
    "=* @agent summarize this section, then create todos for the action items=\n"
    "and run =orgrouter route= over your notes."
)
MAX_GREETING_CHARS = 1_000  # a greeting is a sentence or two; a runaway reply is cut
THANKS_BODY = "Glad to help. Address another headline to me whenever you need something."
_THANKS = re.compile(
    r"\b(?:thanks|thank you|thx|cheers|merci|danke|gracias|grazie|bedankt)\b", re.I
)


@dataclass(frozen=True)
class Reply:
    """What the model answered to the greeting, and which model it was."""

    text: str
    model: str


class GreetSkill(BaseSkill):
    """Reply to a social greeting: by the model when one may be used, else a hello."""

    name = "greet"
    priority = 50

    def neuro(self, stimulus: object, ctx: Context) -> object:
        """Ask the model for a reply (never for a private request); offline, pass through."""
        stimulus = proposal_stimulus(stimulus)
        backend = ctx.model()
        if backend is None:
            return stimulus
        from orgrouter.neuro.prompts import skill_prompt
        from orgrouter.skills.replies import chat, model_name

        # Only the greeting goes to the model: it needs none of the notes.
        messages = chat(skill_prompt("greet"), stimulus.text, "")
        try:
            completion = backend.complete(messages, purpose="greet")
        except ModelError:
            return stimulus  # a failed call still gets the offline hello
        return Reply(completion.text[:MAX_GREETING_CHARS], model_name(backend))

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the model's reply as safe Org, else the offline hello."""
        if isinstance(proposal, Reply):
            from orgrouter.neuro.markdown import markdown_to_org
            from orgrouter.skills.replies import MODEL_KEY

            body = markdown_to_org(proposal.text).strip()
            if body:  # org_safe: markdown_to_org escaped what Org reads as structure
                properties = ((MODEL_KEY, proposal.model),)
                return Emit((Result("Hello", body, properties=properties, org_safe=True),))
        if isinstance(proposal, Stimulus) and _THANKS.search(proposal.text):
            return Emit((Result(title="You're welcome", body=THANKS_BODY),))
        return Emit((Result(title="Hello", body=GREETING_BODY),))


SKILL = GreetSkill()
