"""Specialists: one model call per persona the gate spawned, then a synthesis.

The router asks for them with one delegation ``{"skill": "specialists", "text":
INSTRUCTION, "personas": [NAME, ...]}`` (names from the gate's ``personas``; their
roles come from the routing tables).

Each persona (seed 000's spawn decision; system prompts in ``prompts/personas.toml``)
answers in its own result headline; a last call combines their answers into a
``Synthesis`` result. The synthesis is written as a result like any other, so it
never comes back through the gate (orgrouter's results are never requests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from orgrouter.errors import ModelError
from orgrouter.neuro.backend import NeuroBackend
from orgrouter.neuro.budget import BudgetReached
from orgrouter.neuro.privacy import private_note
from orgrouter.neuro.prompts import persona_prompt, skill_prompt
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Log,
    Result,
    Stimulus,
    proposal_stimulus,
)
from orgrouter.skills.replies import (
    chat,
    clip,
    failure_result,
    model_answer,
    model_name,
    notes_for_model,
)

PERSONA_KEY = "ORGROUTER_PERSONA"


class PersonaLike(Protocol):
    """What the gate's personas offer (``orgrouter.route.rules.Persona``)."""

    @property
    def name(self) -> str: ...

    @property
    def role(self) -> str: ...


def specialists(
    ctx: Context, instruction: str, personas: Sequence[PersonaLike]
) -> tuple[Result, ...]:
    """Return the persona results for a request, or () when no model may be used.

    A private request gets one result saying nothing was sent; with no model the
    caller handles the request directly, as seed 000 does over the rate limit.
    """
    if not personas:
        return ()
    if ctx.withheld():
        body = private_note(ctx.config.privacy.tags)
        return (Result(title="Specialists not consulted: private", body=body),)
    backend = ctx.model()
    if backend is None:
        return ()
    return specialist_results(backend, instruction, notes_for_model(ctx), personas)


def specialist_results(
    backend: NeuroBackend, instruction: str, notes: str, personas: Sequence[PersonaLike]
) -> tuple[Result, ...]:
    """Return one result per persona, then a synthesis of those that answered."""
    results: list[Result] = []
    answers: list[tuple[PersonaLike, str]] = []
    model = model_name(backend)
    for persona in personas:
        messages = chat(persona_prompt(persona.name, persona.role), instruction, notes)
        try:
            reply = backend.complete(messages, purpose=f"persona {persona.name}")
        except BudgetReached as error:
            results.append(failure_result(error, f"{persona.name} and the rest"))
            return tuple(results)  # no later call can fit either
        except ModelError as error:
            results.append(failure_result(error, persona.name))
            continue
        answers.append((persona, reply.text))
        title = f"{persona.name} ({persona.role})"
        results.append(model_answer(title, reply.text, model, (PERSONA_KEY, persona.name)))
    if len(answers) < 2:
        return tuple(results)  # one voice needs no synthesis
    said = "\n\n".join(f"{p.name} ({p.role}) said:\n{clip(text)}" for p, text in answers)
    messages = chat(skill_prompt("synthesis"), f"The request: {instruction}\n\n{said}", "")
    try:
        reply = backend.complete(messages, purpose="synthesis")
    except ModelError as error:
        results.append(failure_result(error, "synthesis"))
        return tuple(results)
    results.append(model_answer("Synthesis", reply.text, model, (PERSONA_KEY, "synthesis")))
    return tuple(results)


@dataclass(frozen=True)
class NamedPersona:
    """A persona known by name, its role looked up in the routing tables."""

    name: str
    role: str


def personas_named(names: Sequence[Any], rules: Any) -> list[NamedPersona]:
    """Return the personas ``names`` with their roles from ``rules`` ('' if unknown)."""
    roles = {p.name: p.role for p in getattr(rules, "personas", ())}
    found = []
    for entry in names:
        name = str(getattr(entry, "name", entry))
        found.append(NamedPersona(name, str(getattr(entry, "role", "") or roles.get(name, ""))))
    return found


class SpecialistsSkill(BaseSkill):
    """Consult the spawned personas, each in its own result, then synthesise."""

    name = "specialists"
    priority = 60

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the persona and synthesis results (a log line when no model may run)."""
        stimulus: Stimulus = proposal_stimulus(proposal)
        from orgrouter.route.rules import default_rules

        rules = ctx.rules or default_rules()
        names = stimulus.payload.get("personas") or []
        personas = personas_named(names if isinstance(names, list | tuple) else [], rules)
        results = specialists(ctx, stimulus.text, personas)
        if not results:
            return Log("specialists skipped: no model, so the request is handled directly")
        return Emit(results)


SKILL = SpecialistsSkill()
