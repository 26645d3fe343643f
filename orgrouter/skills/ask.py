"""The offline ``ask`` skill: say plainly that free-form questions need a model.

The model-backed ``ask`` (``orgrouter.skills.llm``) outranks this one whenever a
backend may be used; this one answers when none is configured or the request is
private, so a question is never met with silence.
"""

from __future__ import annotations

from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Sensor,
    Stimulus,
    proposal_stimulus,
)
from orgrouter.skills.registry import BUILTINS

HOW_TO_CONFIGURE = (
    "To answer free-form questions, configure an OpenAI-compatible endpoint in\n"
    "=orgrouter.toml= (a local Ollama works):\n"
    ": [neuro]\n"
    ': backend = "openai"\n'
    ': endpoint = "http://localhost:11434/v1"\n'
    ': model = "llama3.2"'
)
# Skills only a model can do; offline, each gets this skill's explanation.
MODEL_SKILLS = frozenset(BUILTINS["ask"].intents)


class AskSkill(BaseSkill):
    """Answer a free-form intent when no model may be used."""

    name = "ask"
    priority = 20

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` delegates a skill that needs a model."""
        skill = str(stimulus.payload.get("skill", "")).lower()
        return stimulus.sensor == Sensor.DELEGATION and skill in MODEL_SKILLS

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return a result explaining why there is no answer and how to get one."""
        if ctx.withheld():
            tags = ", ".join(ctx.config.privacy.tags)
            body = (
                f"This subtree is private (tagged {tags}), so it is never sent to a "
                "model, and there is no offline answer to a free-form question."
            )
            return Emit((Result(title="Not sent to a model: private", body=body),))
        stimulus = proposal_stimulus(proposal)
        skill = str(stimulus.payload.get("skill") or "ask").lower()
        agent = str(stimulus.payload.get("agent") or "")
        if agent:
            how = HOW_TO_CONFIGURE.replace("[neuro]", f"[agents.{agent}.neuro]")
            how = how.replace("To answer free-form questions", f"To let @{agent} answer")
            body = f"No model is configured for @{agent}, so it cannot {skill} this.\n" + how
        else:
            body = f"No model is configured, so there is no answer ({skill}).\n" + HOW_TO_CONFIGURE
        # No address in a result's title: it would read as a new request to @agent.
        return Emit((Result(title="No model configured", body=body),))


SKILL = AskSkill()
