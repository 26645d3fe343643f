"""A cold run's gate decides each request once: ``Router.plan`` hands its verdict on."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from route_cli import run_cli

from orgrouter.config import Config
from orgrouter.route import gate
from orgrouter.route.router import Router
from orgrouter.route.rules import default_rules
from orgrouter.skills.base import Context, Sensor, Stimulus, StimulusType
from orgrouter.skills.router import SKILL, Proposal

NOW = ("--now", "2026-12-01T09:00:00")
NOTES = {
    "a.org": "* Ask\n** @agent find notes about budget and link them here\n",
    "b.org": "* Week\nCall Ann. Book the hall.\n** @agent summarize this section\n",
    "c.org": "* Plans\n** @agent\n- create a todo to renew the passport\n- tag this as work\n",
    "d.org": "#+ORGROUTER_AGENT: bob\n* Trip\n** @bob schedule the review for next monday\n",
    "e.org": "* Budget\nweek 3\n** @agent find notes about budget and link them here\n",
    "f.org": "* Old\n** @agent delete this\n",
    "g.org": "* Hello\n** @agent hi there\n",
}


def _classify_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the gate's decisions (each calls the real gate)."""
    calls: list[str] = []
    real = gate.classify

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(gate, "classify", counted)
    return calls


def _notes(root: Path, notes: dict[str, str], toml: str = "") -> None:
    root.mkdir()
    (root / "orgrouter.toml").write_text(toml)
    for name, text in notes.items():
        (root / name).write_text(text)


def _route(root: Path, *args: str) -> tuple[int, str, str]:
    code, out, err = run_cli(["route", str(root), "--state", str(root / "s.db"), *NOW, *args], root)
    return code, out.decode().replace(str(root), "ROOT"), err.replace(str(root), "ROOT")


@pytest.mark.parametrize("mode", [("--dry-run", "--json"), ("--json",)])
def test_a_cold_run_classifies_each_request_once_and_answers_as_the_long_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: tuple[str, ...]
) -> None:
    planned, alone = tmp_path / "planned", tmp_path / "alone"
    for root in (planned, alone):
        _notes(root, NOTES)
    calls = _classify_calls(monkeypatch)
    first = _route(planned, *mode)
    # a.org and e.org ask the same words of the same agent: one verdict serves both.
    assert sorted(calls) == sorted(set(calls)) and len(calls) == len(NOTES) - 1
    calls.clear()
    monkeypatch.setattr(Router, "plan", lambda *_args: ([], None))  # the route decides alone
    second = _route(alone, *mode)
    assert len(calls) == len(NOTES)
    assert first == second and first[0] == 0
    assert '"status": "done"' in first[1] and '"status": "waiting"' in first[1]
    for name in NOTES:
        assert (planned / name).read_bytes() == (alone / name).read_bytes()


def test_a_request_too_long_to_route_is_not_classified_while_learning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = "find notes about " + "budget " * 30
    _notes(tmp_path / "n", {"a.org": f"* @agent {long}\n"}, "[limits]\ninstruction_chars = 100\n")
    calls = _classify_calls(monkeypatch)
    code, out, _ = _route(tmp_path / "n", "--dry-run", "--json")
    assert code == 0 and "the request is too long" in out
    assert calls == []  # the route answers it without the gate (issue 10), and so does plan


def _proposal(ctx: Context, text: str, items: tuple[str, ...] = ()) -> Proposal:
    payload: dict[str, Any] = {"sensor": Sensor.USER_COMMAND.value, "text": text}
    if items:
        payload["items"] = list(items)
    proposal = SKILL.neuro(Stimulus(StimulusType.EVENT, payload), ctx)
    assert isinstance(proposal, Proposal)
    return proposal


def test_the_router_takes_a_verdict_only_for_the_words_it_was_reached_on() -> None:
    rules = default_rules()
    known = gate.classify("delete this", rules)
    ctx = Context(Config(), datetime(2026, 12, 1, 9), rules=rules)
    ctx.classified = ("summarize this", (), known)
    assert _proposal(ctx, "summarize this").gate is known
    for text, items in (("summarize that", ()), ("summarize this", ("a",))):
        fresh = _proposal(ctx, text, items).gate
        assert fresh is not known
        assert fresh == gate.classify(text, rules, items=items or None)
    ctx.classified = ("", ("a", "b"), known)
    assert _proposal(ctx, "", ("a", "b")).gate is known
    assert _proposal(ctx, "", ("a",)).gate is not known


def test_the_router_decides_again_where_a_rate_window_counts_the_spawns(tmp_path: Path) -> None:
    from orgrouter.route.ratelimit import RateLimiter
    from orgrouter.state import StateDB

    rules = default_rules()
    text = "summarize this section"
    known = gate.classify("delete this", rules)
    state = StateDB.open(tmp_path / "s.db")
    limiter = RateLimiter(state, limit=5, window_s=300)
    ctx = Context(Config(), datetime(2026, 12, 1, 9), rules=rules, limiter=limiter)
    ctx.classified = (text, (), known)
    decided = _proposal(ctx, text).gate
    assert decided is not known and decided == gate.classify(text, rules)
    state.close()


def test_the_router_keeps_a_verdict_only_while_a_note_s_requests_hold_it(tmp_path: Path) -> None:
    import gc

    from orgrouter.route.router import RunOptions
    from orgrouter.writemode import WriteMode

    router = Router(Config(), RunOptions(mode=WriteMode.DRY_RUN), tmp_path, None)
    same = b"* @agent summarize this section\nSome text.\n"
    _, first = router.plan(same, str(tmp_path / "a.org"), b"\n")
    _, second = router.plan(same, str(tmp_path / "b.org"), b"\n")
    assert first is not None and second is not None
    assert first.gates[0] is second.gates[0]  # requests alike share the one verdict
    for n in range(20):  # past the run's memory budget a candidate's requests are let go
        router.plan(b"* @agent tag this as work %d\n" % n, str(tmp_path / f"{n}.org"), b"\n")
    gc.collect()
    alive = [held() for _, held in router._searches.values()]
    assert len(alive) == 21 and [gate for gate in alive if gate is not None] == [first.gates[0]]
    del first, second, alive
    gc.collect()
    assert all(held() is None for _, held in router._searches.values())
