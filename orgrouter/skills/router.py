"""The router skill (seed 003, priority 10): gate a request and delegate its intents.

When the gate spawns specialists for a request in a note and a model may be used, one
more delegation asks the ``specialists`` skill for the personas' answers and their
synthesis; those are results, never requests, so they never come back through the
gate. (``orgrouter ask`` answers directly: it has no rate-limit window to spend.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orgrouter.records import NamedTuple
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Inject,
    Result,
    Sensor,
    Stimulus,
    delegation,
    proposal_stimulus,
)

if TYPE_CHECKING:
    from orgrouter.route.gate import GateResult

class Proposal(NamedTuple):
    """What the router proposes: the gate's verdict and the intents to delegate."""

    gate: GateResult
    intents: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()
    text: str = ""  # the request's instruction, for the specialists
    sensor: str = ""  # where the request came from


class RouterSkill(BaseSkill):
    """Classify and decompose a request, then delegate each atomic intent."""

    name = "router"
    priority = 10

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` is a request (a user command or chat message)."""
        return stimulus.sensor in (Sensor.USER_COMMAND, Sensor.CHAT_MESSAGE)

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Return the gate's verdict and the intents (a model's, when one may be used)."""
        from orgrouter.route.gate import REJECTED, classify
        from orgrouter.route.rules import configured_rules

        stimulus = proposal_stimulus(stimulus)
        rules = ctx.rules = ctx.rules or configured_rules(ctx.config.rules.dir)
        selves = ctx.selves
        items = stimulus.payload.get("items") or None
        known = ctx.classified
        # The run's verdict on these very words holds: the gate is a function of them,
        # the tables, the gate's settings and the agent's names (one run's, fixed),
        # unless a rate window may spend spawns (the limiter counts each ask).
        asked = (stimulus.text, tuple(items or ()))
        if known is not None and ctx.limiter is None and known[:2] == asked:
            gate = known[2]
        else:
            gate = classify(
                stimulus.text,
                rules,
                config=ctx.config.sensor_gate,
                items=items,
                limiter=ctx.limiter,
                session=ctx.session,
                now=ctx.now.timestamp(),
                selves=selves,
            )
        intents = tuple(i.to_json() for i in gate.decomposition.intents)
        notes: tuple[str, ...] = ()
        model = ctx.model()
        usable = gate.bypass is None and not gate.clarify and gate.guardian_decision != REJECTED
        if model is not None and usable and not items:
            from orgrouter.route.modeldecompose import model_decompose

            outcome = model_decompose(model, stimulus.text, ctx.targets, rules=rules, selves=selves)
            intents = tuple(i.to_json() for i in outcome.intents)
            notes = outcome.notes
        ctx.handback.gate = gate
        ctx.handback.notes.extend(notes)
        return Proposal(gate, intents, notes, stimulus.text, stimulus.sensor)

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the delegations, or a clarification when the gate did not let it run."""
        assert isinstance(proposal, Proposal)
        gate = proposal.gate
        if not proposal.intents or (gate.guardian_decision == "REJECTED" and gate.bypass is None):
            return Emit((_not_understood(gate),))
        if gate.clarify:
            return Emit((_unsure(gate, ctx),))
        shared = {"spawn": gate.spawn.count, "personas": [p.name for p in gate.personas]}
        # A request addressed to a sub-agent (@coder ...) delegates to it by default.
        selves = ctx.selves
        addressed = ctx.request.agent if ctx.request is not None else "agent"
        default = None if addressed in selves else addressed
        delegations = [
            delegation({**intent, "agent": intent.get("agent") or default, **shared})
            for intent in proposal.intents
        ]
        if _spawns(proposal) and ctx.model() is not None:
            delegations.append(delegation(_specialists(proposal, default)))
        return Inject(tuple(delegations))


def _spawns(proposal: Proposal) -> bool:
    """Return whether the gate spawned specialists for a request found in a note."""
    gate = proposal.gate
    return proposal.sensor == Sensor.USER_COMMAND and gate.spawn.count > 0 and bool(gate.personas)


def _specialists(proposal: Proposal, agent: str | None) -> dict[str, Any]:
    """Return the intent that consults the gate's personas, after the request's own."""
    orders = [i["order"] for i in proposal.intents if isinstance(i.get("order"), int)]
    return {
        "skill": "specialists",
        "text": proposal.text,
        "personas": [p.name for p in proposal.gate.personas],
        "order": max(orders, default=0) + 1,
        "agent": agent,
    }


def _not_understood(gate: GateResult) -> Result:
    """Return the clarification for a request the gate could not classify."""
    reason = gate.reason or "cannot classify"
    return Result(
        "Clarification needed: not understood",
        f"The router refused this request ({reason}), so nothing ran.\n"
        "Start with a verb, e.g. =@agent summarize this section= or "
        "=@agent create todos for the action items=.",
        kind="clarification",
    )


def _unsure(gate: GateResult, ctx: Context) -> Result:
    """Return the clarification that says what was understood, below min_confidence."""
    lines = "\n".join(f"- {line}" for line in gate.understood())
    threshold = ctx.config.sensor_gate.min_confidence
    return Result(
        "Clarification needed: is this what you meant?",
        f"Confidence {gate.confidence:.2f} is below min_confidence {threshold:.2f}, "
        "so nothing ran. I understood:\n"
        f"{lines}\n"
        "Edit the request headline to say it more plainly, and it is routed again.",
        kind="clarification",
    )


SKILL = RouterSkill()
