"""The offline ``ask`` skill: say plainly that free-form questions need a model.

The model-backed ``ask`` (``orgrouter.skills.llm``) outranks this one whenever a
backend may be used; this one answers when none is configured or the request is
private, so a question is never met with silence.
"""

from __future__ import annotations

from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result

HOW_TO_CONFIGURE = (
    "To answer free-form questions, configure an OpenAI-compatible endpoint in\n"
    "=orgrouter.toml= (a local Ollama works):\n"
    "#+begin_src toml\n"
    "[neuro]\n"
    'backend = "openai"\n'
    'endpoint = "http://localhost:11434/v1"\n'
    'model = "llama3.2"\n'
    "#+end_src"
)


class AskSkill(BaseSkill):
    """Answer a free-form intent when no model may be used."""

    name = "ask"
    priority = 20

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return a result explaining why there is no answer and how to get one."""
        if ctx.private and ctx.backend is not None:
            tags = ", ".join(ctx.config.privacy.tags)
            body = (
                f"This subtree is private (tagged {tags}), so it is never sent to a "
                "model, and there is no offline answer to a free-form question."
            )
            return Emit((Result(title="Not sent to a model: private", body=body),))
        body = "No model is configured, so there is no answer.\n" + HOW_TO_CONFIGURE
        return Emit((Result(title="No model configured", body=body),))


SKILL = AskSkill()
