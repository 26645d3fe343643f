"""The spawn rate limit: a rolling window per session, shared through SQLite."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.errors import StateError
from orgrouter.route.gate import classify
from orgrouter.route.ratelimit import RateLimiter
from orgrouter.route.rules import default_rules
from orgrouter.state import StateDB

T0 = 1_800_000_000.0
WANTS_TWO = "summarize this section, then create todos for the action items"


def test_five_spawns_per_window_all_or_nothing(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        limiter = RateLimiter(db)
        assert [limiter.request("a.org", 2, T0 + i).granted for i in range(3)] == [2, 2, 0]
        assert limiter.used("a.org", T0 + 2) == 4
        assert limiter.request("a.org", 1, T0 + 3).granted == 1  # exactly five
        refused = limiter.request("a.org", 1, T0 + 4)
        assert (refused.granted, refused.used, refused.limited) == (0, 5, True)
        assert limiter.request("b.org", 3, T0 + 4).granted == 3  # another session
        # The first request leaves the rolling window 300 s after it was made.
        assert limiter.request("a.org", 2, T0 + 300).granted == 2
        assert limiter.used("a.org", T0 + 300) == 5


def test_separate_runs_share_the_window(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    for second in range(2):
        with StateDB.open(path) as db:
            assert RateLimiter(db).request("cli", 2, T0 + second).granted == 2
    with StateDB.open(path) as db:
        assert RateLimiter(db).request("cli", 2, T0 + 2).limited


def test_a_clock_fixed_in_the_past_ignores_later_spawns(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        limiter = RateLimiter(db)
        limiter.request("s", 5, T0)
        assert limiter.used("s", T0 - 10) == 0
        assert limiter.request("s", 0, T0).granted == 0 and not limiter.request("s", 0, T0).limited


def test_gate_handles_the_request_directly_when_over_the_limit(tmp_path: Path) -> None:
    rules = default_rules()
    with StateDB.open(tmp_path / "s.db") as db:
        limiter = RateLimiter(db, limit=5, window_s=300)
        counts = [
            classify(WANTS_TWO, rules, limiter=limiter, session="n.org", now=T0 + i).spawn.count
            for i in range(3)
        ]
        assert counts == [2, 2, 0]
        third = classify(WANTS_TWO, rules, limiter=limiter, session="n.org", now=T0 + 3)
        assert (third.spawn.skip, third.spawn.wanted, third.personas) == ("rate_limit", 2, [])
        assert third.reason == (
            "rate limit: 4 of 5 spawns used in this session's window; handled directly"
        )
        assert third.guardian_decision == "APPROVED" and third.runs
        # A request that spawns nothing never touches the window.
        classify("tag it", rules, limiter=limiter, session="n.org", now=T0 + 4)
        assert limiter.used("n.org", T0 + 4) == 4


def test_a_broken_window_table_is_a_state_error(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        limiter = RateLimiter(db)
        db.conn.execute("DROP TABLE spawn_events")
        with pytest.raises(StateError, match="cannot record spawns"):
            limiter.request("s", 1, T0)
        with pytest.raises(StateError, match="cannot read the spawn window"):
            limiter.used("s", T0)
    assert sqlite3.connect(tmp_path / "s.db").execute("SELECT 1").fetchone() == (1,)


def test_racing_processes_never_grant_more_than_the_limit(tmp_path: Path) -> None:
    # Cron and a hand run may ask at the same moment: the window is checked and
    # written in one IMMEDIATE transaction, so together they get five, not more.
    path = tmp_path / "s.db"
    with StateDB.open(path) as db:
        RateLimiter(db)
    code = (
        "import sys\n"
        "from orgrouter.state import StateDB\n"
        "from orgrouter.route.ratelimit import RateLimiter\n"
        "with StateDB.open(sys.argv[1]) as db:\n"
        f"    print(RateLimiter(db).request('race', 1, {T0}).granted)\n"
    )
    racers = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                         text=True)
        for _ in range(8)
    ]
    granted = [int(racer.communicate()[0]) for racer in racers]
    assert sorted(granted) == [0, 0, 0, 1, 1, 1, 1, 1]
    with StateDB.open(path) as db:
        assert RateLimiter(db).used("race", T0) == 5
