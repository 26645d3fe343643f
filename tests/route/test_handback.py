"""What skills hand forward to the pipeline travels in typed fields of the context."""

from __future__ import annotations

from datetime import datetime

from orgrouter.config import Config
from orgrouter.neuro.backend import NeuroBackend
from orgrouter.route.gate import GateResult
from orgrouter.route.kernel import run
from orgrouter.route.rules import Rules
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Log,
    Sensor,
    Stimulus,
    StimulusType,
)
from orgrouter.skills.registry import builtin_skills, dispatch_order

NOW = datetime(2026, 12, 1, 9, 0)


class Noting(BaseSkill):
    """Stands for a skill with results beyond its headlines (the executors' moves)."""

    name = "todo"  # outranks the built-in todo: it answers the router's delegation
    priority = 90

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        ctx.handback.notes.append(f"noted by {ctx.request.agent if ctx.request else 'cli'}")
        return Log("noted")


def _command(text: str) -> Stimulus:
    return Stimulus(StimulusType.EVENT, {"sensor": Sensor.USER_COMMAND.value, "text": text})


def test_the_router_hands_its_gate_and_tables_forward() -> None:
    ctx = Context(Config(), NOW)
    assert (ctx.rules, ctx.handback.gate) == (None, None)
    run(_command("remind me to call mum"), dispatch_order(builtin_skills(models=False)), ctx)
    assert isinstance(ctx.handback.gate, GateResult)
    assert ctx.handback.gate.primary_skill == "todo"
    assert isinstance(ctx.rules, Rules)  # loaded once, for the next request of the run


def test_a_delegation_to_another_agent_hands_back_into_the_same_request() -> None:
    # A delegation to @coder runs in a copy of the context (coder's own model); what
    # its skill hands back must reach the request's context all the same.
    config = Config()
    config.agent.sub_agents = ["coder"]
    seen: list[str] = []

    def backend_for(agent: str) -> NeuroBackend | None:
        seen.append(agent)
        return None

    ctx = Context(config, NOW, backend_for=backend_for)
    skills = dispatch_order([Noting(), *builtin_skills(models=False)])
    run(_command("ask @coder to remind me to call mum"), skills, ctx)
    assert seen == ["coder"]
    assert ctx.handback.notes == ["noted by cli"]
