"""Model-backed skills: summarize, ask, translate, draft, rewrite, explain.

Each follows seed 003's two stages: ``neuro`` asks the model (never for a private
request, never past the run's budget) and ``symbolic`` checks the answer and turns its
Markdown into Org that cannot break the note. Failures become clear result headlines,
not crashes. Whenever no model may be used (``rules``, or a private request), these
skills do not trigger and the offline ones answer: the extractive ``summarize``, and
``ask`` for the rest, which says why there is no answer and how to configure a model.
"""

from __future__ import annotations

from dataclasses import dataclass

from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Completion
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
from orgrouter.skills.replies import (
    chat,
    failure_result,
    model_answer,
    model_name,
    notes_for_model,
)


@dataclass(frozen=True)
class Answer:
    """What the model said, for ``symbolic`` to check."""

    completion: Completion
    model: str


@dataclass(frozen=True)
class Refusal:
    """A result that answers the request without (or instead of) a model answer."""

    result: Result


class ModelSkill(BaseSkill):
    """A skill answered by the model with a system prompt from ``neuro/prompts``."""

    priority = 60

    def __init__(
        self, handles: str, title: str, *, name: str | None = None, needs_notes: bool = False
    ) -> None:
        self.handles = handles  # the intent's skill name
        self.name = name or handles
        self.title = title
        self.needs_notes = needs_notes  # refuse without a section to work on

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` delegates this skill and a model may be used.

        Without one (no backend, or a private request) the offline skills answer.
        """
        if stimulus.sensor != Sensor.DELEGATION or ctx.model() is None:
            return False
        return str(stimulus.payload.get("skill", "")).lower() == self.handles

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Ask the model, or return the refusal that answers instead (None: no model)."""
        from orgrouter.neuro.prompts import skill_prompt

        stimulus = proposal_stimulus(stimulus)
        backend = ctx.model()
        if backend is None:
            return None  # symbolic vetoes; an offline skill answers
        notes = notes_for_model(ctx)
        if self.needs_notes and not notes.strip():
            return Refusal(
                Result(
                    f"Clarification needed: nothing to {self.handles}",
                    f"The request and its parent section have no text to {self.handles}. "
                    "Put the request under the heading it is about.",
                    kind="clarification",
                )
            )
        messages = chat(skill_prompt(self.handles), stimulus.text, notes)
        try:
            completion = backend.complete(messages, purpose=self.handles)
        except ModelError as error:
            return Refusal(failure_result(error, self.handles))
        return Answer(completion, model_name(backend))

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the model's answer as safe Org, or the refusal's result."""
        if isinstance(proposal, Refusal):
            return Emit((proposal.result,))
        if not isinstance(proposal, Answer):
            return None
        result = model_answer(self.title, proposal.completion.text, proposal.model)
        if not result.body.strip():
            error = ModelError("the model's answer was empty after conversion to Org")
            return Emit((failure_result(error, self.handles),))
        return Emit((result,))


SUMMARIZE = ModelSkill("summarize", "Summary", name="summarize-model", needs_notes=True)
ASK = ModelSkill("ask", "Answer", name="ask-model")
TRANSLATE = ModelSkill("translate", "Translation")
DRAFT = ModelSkill("draft", "Draft")
REWRITE = ModelSkill("rewrite", "Rewrite", needs_notes=True)
EXPLAIN = ModelSkill("explain", "Explanation")
