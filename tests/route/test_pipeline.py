"""``route_document`` on its own: guardian, rate limit, escaping, failures, /compact."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from orgrouter.config import Config
from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Completion, Message
from orgrouter.route.pipeline import RouteEnv, route_document
from orgrouter.route.ratelimit import RateLimiter
from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result, Retag
from orgrouter.skills.registry import load_skills
from orgrouter.state import StateDB

NOW = datetime(2026, 11, 30, 9, 0)
DESIGN = b"* @agent design a secure payment API with a database schema and a deployment plan\n"


def _env(**fields: object) -> RouteEnv:
    config = Config()
    env = RouteEnv(config=config, skills=load_skills(config).skills, now=NOW)
    for name, value in fields.items():
        setattr(env, name, value)
    return env


class Verbatim(BaseSkill):
    """A skill whose answer tries to create structure (as a model's might)."""

    name = "verbatim"
    priority = 90

    def trigger(self, stimulus: object, ctx: Context) -> bool:
        return getattr(stimulus, "sensor", "") == "delegation"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        body = "* not a headline\n#+begin_src sh\nrm -rf /\n#+end_src\n  ** nor this"
        return Emit((Result(title="Line one\nline two", body=body),))


class Broken(Verbatim):
    name = "broken"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        raise KeyError("missing")


def test_write_outside_root_waits_for_approval() -> None:
    data = b"* @agent export this section to /etc/notes.txt\n"
    out = route_document(data, "n.org", _env()).data.decode()
    assert "** WAITING Approve: export this section to /etc/notes.txt\n" in out
    assert "Held for approval: writes outside the notes root. Nothing has run.\n" in out


def test_result_text_cannot_create_structure() -> None:
    env = _env()
    env.skills = [Verbatim(), *env.skills]
    out = route_document(b"* @agent do the weekly report\n", "n.org", env).data.decode()
    assert "** Line one line two\n" in out
    assert out.endswith(
        ",* not a headline\n,#+begin_src sh\nrm -rf /\n,#+end_src\n  ,** nor this\n"
    )


def test_a_failing_skill_becomes_an_error_result() -> None:
    env = _env()
    env.skills = [Broken(), *env.skills]
    outcome = route_document(b"* @agent summarize this\n", "n.org", env)
    text = outcome.data.decode()
    assert "** Error in skill broken\n" in text and "KeyError: 'missing'" in text
    assert ":ORGROUTER_STATUS: error\n" in text
    assert outcome.deferred
    assert [r.status for r in outcome.requests] == ["error"]


class Echo:
    """A model backend that answers every prompt the same."""

    name = "echo"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: list[Message], *, purpose: str) -> Completion:
        self.calls += 1
        return Completion("A plan.", 3, 2)


def test_over_the_spawn_limit_is_handled_directly(tmp_path: Path) -> None:
    state = StateDB.open(tmp_path / "state.db")
    limiter = RateLimiter(state, limit=5, window_s=300)
    assert not limiter.request("n.org", 5, NOW.timestamp() - 10).limited  # window full
    model = Echo()
    env = _env(limiter=limiter, state=state, backend_for=lambda _agent: model)
    outcome = route_document(DESIGN, "n.org", env)
    text = outcome.data.decode()
    assert "** Handled directly: specialist rate limit reached\n" in text
    assert "rate limit: 5 of 5 spawns used in this session's window; handled directly" in text
    (report,) = outcome.requests
    assert report.gate is not None and report.gate["spawn"]["skip"] == "rate_limit"
    state.close()


def test_no_spawn_accounting_without_a_model(tmp_path: Path) -> None:
    state = StateDB.open(tmp_path / "state.db")
    limiter = RateLimiter(state, limit=5, window_s=300)
    outcome = route_document(DESIGN, "n.org", _env(limiter=limiter, state=state))
    assert b"rate limit" not in outcome.data
    assert limiter.used("n.org", NOW.timestamp()) == 0
    state.close()


def test_standalone_compact_covers_the_whole_file() -> None:
    data = b"""\
* @agent summarize this
:PROPERTIES:
:ORGROUTER_HASH: 948adc3bedbbe1af
:END:
Text.
** Old
:PROPERTIES:
:ORGROUTER_RESULT: 948adc3bedbbe1af/1
:ORGROUTER_RUN: 2026-11-01T09:00:00
:END:
** New
:PROPERTIES:
:ORGROUTER_RESULT: 948adc3bedbbe1af/2
:ORGROUTER_RUN: 2026-11-02T09:00:00
:END:
* @agent /compact
"""
    out = route_document(data, "n.org", _env()).data.decode()
    assert re.search(r"^\*\* Old +:ARCHIVE:$", out, re.MULTILINE)
    assert "** New\n" in out
    assert "** Compacted: archived 1 earlier result\n" in out


class Flaky:
    """A model backend that fails until it is told to work."""

    name = "flaky"

    def __init__(self) -> None:
        self.up = False

    def complete(self, messages: list[Message], *, purpose: str) -> Completion:
        if not self.up:
            raise ModelError("connection refused")
        return Completion("It means the numbers went up.", 3, 5)


def test_failed_request_is_retried_after_a_pause() -> None:
    config = Config()
    config.neuro.backend = "openai"
    config.sensor_gate.max_personas = 0  # one model answer to retry, no specialist beside it
    model = Flaky()
    env = RouteEnv(config, load_skills(config).skills, NOW, backend_for=lambda _a: model)
    first = route_document(b"* Numbers\nUp 10%.\n** @agent explain this\n", "n.org", env)
    assert b":ORGROUTER_STATUS: error\n" in first.data
    assert b"connection refused" in first.data
    model.up = True
    env.now = NOW + timedelta(minutes=5)
    assert route_document(first.data, "n.org", env).data == first.data  # too soon
    env.now = NOW + timedelta(minutes=15)
    second = route_document(first.data, "n.org", env).data.decode()
    assert ":ORGROUTER_STATUS: done\n" in second
    assert "It means the numbers went up." in second
    assert "connection refused" not in second  # the unedited error result gave way
    assert second.count(":ORGROUTER_RESULT:") == 1
    env.now = NOW + timedelta(hours=2)
    assert route_document(second.encode(), "n.org", env).data == second.encode()


def test_same_instruction_twice_in_one_file() -> None:
    data = (
        b"* A\nFirst part.\n** @agent summarize this\n* B\nSecond part.\n** @agent summarize this\n"
    )
    routed = route_document(data, "n.org", _env()).data
    text = routed.decode()
    assert text.count(":ORGROUTER_CHECK:") == 2  # each result finished in its own subtree
    assert "- First part." in text and "- Second part." in text
    assert route_document(routed, "n.org", _env()).data == routed
    second = routed.rindex(b"** @agent summarize this")
    changed = routed[:second] + routed[second:].replace(b"summarize this", b"summarize it", 1)
    rerouted = route_document(changed, "n.org", _env()).data.decode()
    assert rerouted.count("- First part.") == 1 and rerouted.count("- Second part.") == 1
    assert rerouted.count(":ORGROUTER_RESULT: 948adc3bedbbe1af/1") == 1  # A's result stays


class Sloppy(Verbatim):
    """A user skill whose results Org could not hold as they are."""

    name = "sloppy"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        line = ctx.request.line if ctx.request else 1
        return Emit(
            (
                Result(title="fine"),
                Result(title="bad tag", tags=("two words",)),
                Result(title="bad key", properties=(("A B", "v"),)),
                Result(title="bad value", properties=(("K", "one\ntwo"),)),
                Result(title="bad date", planning="SCHEDULED: soon"),
                Result(title="bad keyword", todo="TO\nDO"),
                Result(title=" \n "),
                Result(title="bad text", body="Fine.\nNot \udc80 UTF-8."),  # a lone surrogate
            ),
            retags=(Retag((line,), ("ok", "not ok")),),
        )


def test_unwritable_results_become_errors_not_a_failed_file() -> None:
    env = _env()
    env.skills = [Sloppy(), *env.skills]
    outcome = route_document(b"* @agent do the chores\n", "n.org", env)
    text = outcome.data.decode()
    titles = re.findall(r"^\*\* (.*)$", text, re.MULTILINE)
    assert titles[0] == "fine"
    assert titles[1:] == ["Error in skill sloppy: its result cannot be written"] * 7
    assert "empty title (a headline needs one)" in text
    assert "can't encode character '\\udc80' in position 4: surrogates not allowed" in text
    assert "invalid tag 'two words'" in text
    assert "invalid TODO keyword 'TO\\nDO'" in text
    assert re.search(r"^\* @agent do the chores +:ok:$", text, re.MULTILINE)  # the bad tag left out
    assert outcome.requests[0].status == "error"


def test_a_request_above_one_with_the_same_instruction_gets_its_own_result() -> None:
    inner = route_document(b"* Shopping\n** @agent add a todo buy milk\n", "n.org", _env()).data
    data = inner.replace(b"* Shopping\n", b"* @agent add a todo buy milk\n")
    out = route_document(data, "n.org", _env()).data
    assert out.count(b"TODO buy milk\n") == 2
