"""The stimulus kernel: priority, veto, injection order, depth bound, failures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orgrouter.config import Config
from orgrouter.errors import ModelError
from orgrouter.route.kernel import MAX_DEPTH, run
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Inject,
    Log,
    Result,
    Sensor,
    Stimulus,
    StimulusType,
    delegation,
    proposal_stimulus,
)
from orgrouter.skills.registry import dispatch_order

CTX = Context(Config(), datetime(2026, 11, 30))


def _command(text: str) -> Stimulus:
    return Stimulus(StimulusType.EVENT, {"sensor": Sensor.USER_COMMAND.value, "text": text})


class Splitter(BaseSkill):
    """A router: splits the command on ';' into delegations to 'echo'."""

    name = "splitter"
    priority = 10

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        return stimulus.sensor == Sensor.USER_COMMAND

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        parts = proposal_stimulus(proposal).text.split(";")
        return Inject(
            tuple(
                delegation({"skill": "echo", "text": part.strip(), "order": n})
                for n, part in enumerate(parts, 1)
            )
        )


@dataclass
class Echo(BaseSkill):
    """Echo a delegation, or veto texts starting with 'veto'."""

    name: str = "echo"
    priority: int = 50
    title: str = "echo"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        text = proposal_stimulus(proposal).text
        if text.startswith("veto"):
            return None
        if text == "boom":
            raise RuntimeError("kaput")
        if text == "model":
            raise ModelError("endpoint refused the connection")
        if text == "log":
            return Log("just a note")
        return Emit((Result(title=f"{self.title}: {text}"),))


class Loop(BaseSkill):
    """Inject itself forever."""

    name = "loop"
    priority = 90

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        return stimulus.text == "loop"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        return Inject((delegation({"skill": "loop", "text": "loop"}),))


def _titles(text: str, *skills: BaseSkill) -> list[tuple[str, str, int]]:
    outcome = run(_command(text), dispatch_order(skills), CTX)
    return [(e.result.title, e.intent, e.order) for e in outcome.emitted]


def test_delegations_run_in_written_order() -> None:
    assert _titles("a; b; c", Splitter(), Echo()) == [
        ("echo: a", "a", 1),
        ("echo: b", "b", 2),
        ("echo: c", "c", 3),
    ]


def test_highest_priority_wins_and_veto_passes_on() -> None:
    high = Echo(priority=80, title="high")
    low = Echo(priority=20, title="low")
    assert _titles("x; veto y", Splitter(), low, high) == [
        ("high: x", "x", 1),
        ("Clarification needed", "veto y", 2),
    ]


def test_unaccepted_delegation_is_a_clarification() -> None:
    outcome = run(_command("anything"), [Splitter()], CTX)
    (emitted,) = outcome.emitted
    assert emitted.result.kind == "clarification"
    assert emitted.result.body.startswith(
        "No skill can handle 'anything' (understood as skill 'echo', which is not available)."
    )


def test_skill_failures_become_error_results() -> None:
    outcome = run(_command("boom; model; log"), [Splitter(), Echo()], CTX)
    assert [(e.result.kind, e.result.title, e.result.body) for e in outcome.emitted] == [
        ("error", "Error in skill echo", "RuntimeError: kaput"),
        ("error", "Error in skill echo", "endpoint refused the connection"),
    ]
    assert outcome.logs == ["skill echo failed: RuntimeError: kaput", "just a note"]


def test_depth_is_bounded() -> None:
    outcome = run(delegation({"skill": "loop", "text": "loop", "order": 1}), [Loop()], CTX)
    assert [e.result.title for e in outcome.emitted] == ["Error: delegation too deep"]
    assert len(outcome.trace) == MAX_DEPTH + 1
    assert outcome.logs == [f"stopped at depth {MAX_DEPTH}: delegation"]


def test_trace_and_intents_recorded() -> None:
    outcome = run(_command("a; b"), [Splitter(), Echo()], CTX)
    assert outcome.trace == [
        ("splitter", "user-command"),
        ("echo", "delegation"),
        ("echo", "delegation"),
    ]
    assert [i["text"] for i in outcome.intents] == ["a", "b"]
