"""Route history: what a real route records for refine, and refine reading it once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from route_cli import run_cli

from orgrouter.route.history import (
    corrections,
    file_key,
    outcome_of,
    record,
    request_records,
)
from orgrouter.route.pipeline import RequestReport
from orgrouter.state import StateDB

NOTE = """\
* Launch
Action items:
- Alice drafts the press release
** @agent create todos for the action items
* Misc
** @agent blorp the widget
"""


def orgrouter(tmp: Path, *args: str) -> tuple[int, dict[str, Any] | None, str]:
    """Run ``orgrouter ARGS`` on the state database under ``tmp``; parse a --json answer."""
    code, out, err = run_cli([*args, "--state", str(tmp / "state.db")], tmp)
    return code, json.loads(out) if "--json" in args else None, err


def tables(tmp: Path) -> set[str]:
    """Return the tables of the state database under ``tmp``."""
    with sqlite3.connect(tmp / "state.db") as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}


def rows(tmp: Path) -> list[tuple[object, ...]]:
    """Return the history rows of the state database under ``tmp``."""
    with sqlite3.connect(tmp / "state.db") as conn:
        return conn.execute(
            "SELECT id, run, file, line, outcome, status, intents, results, result"
            " FROM route_requests ORDER BY id"
        ).fetchall()


def test_refine_reads_an_unclear_request_and_an_edited_result_once(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    note = notes / "launch.org"
    note.write_text(NOTE)
    route = ["route", "-q", str(notes)]
    # --diff and --dry-run record nothing (and create no history table).
    for mode in ("--diff", "--dry-run"):
        assert orgrouter(tmp_path, *route, mode)[0] == 0
    assert "route_requests" not in tables(tmp_path)
    assert orgrouter(tmp_path, *route, "--now", "2026-11-30T09:00")[0] == 0
    text = note.read_text()
    assert "*** TODO Alice drafts the press release\n" in text
    assert "*** Clarification needed: is this what you meant?\n" in text
    path, run = "launch.org", "2026-11-30T09:00:00"  # relative to the notes root
    assert rows(tmp_path) == [
        (1, run, path, 4, "routed", "done", 1, 1, None),
        (2, run, path, 6, "clarification", "clarify", 0, 1, None),
    ]

    # The user fixes the todo orgrouter wrote; the next route notices, once.
    note.write_text(text.replace("Alice drafts the press release", "Alice drafts the blog post"))
    # Routed again as the tree, then as the one file: the same note, one correction.
    for minute, target in (("05", notes), ("10", note)):
        now = f"2026-11-30T09:{minute}"
        assert orgrouter(tmp_path, "route", "-q", str(target), "--now", now)[0] == 0
        note.write_text("Top note.\n" + note.read_text())  # changed again, elsewhere
    hash1 = text.split(":ORGROUTER_HASH: ")[1][:16]
    assert rows(tmp_path)[2:] == [
        (3, "2026-11-30T09:05:00", path, 9, "corrected", None, 0, 0, f"{hash1}/1"),
    ]

    refine = ["refine", "run", "--json", "--config", str(notes / "orgrouter.toml")]
    code, found, err = orgrouter(tmp_path, *refine)
    assert code == 0 and found is not None, err
    assert (found["history"], found["history_scanned"]) == ("read", 3)
    assert [f for f in found["findings"] if f["kind"] != "golden"] == [
        {"key": "request:2", "kind": "clarification", "request": 2},
        {"key": "request:3", "kind": "corrected", "request": 3},
    ]
    code, again, err = orgrouter(tmp_path, *refine)
    assert code == 0 and again is not None, err
    assert (again["new_findings"], again["findings"], again["history_scanned"]) == (0, [], 0)


def report(**fields: object) -> RequestReport:
    base: dict[str, object] = {
        "file": "a.org",
        "line": 3,
        "agent": "agent",
        "instruction": "do it",
        "status": "done",
    }
    return RequestReport(**{**base, **fields})  # type: ignore[arg-type]


def test_outcomes() -> None:
    rejected = {"guardian_decision": "REJECTED", "bypass": None, "clarify": False}
    unsure = {"guardian_decision": "HUMAN_REQUIRED", "bypass": None, "clarify": True}
    plain = {"guardian_decision": "APPROVED", "bypass": None, "clarify": False}
    unhandled = [{"skill": "kernel", "kind": "clarification"}]
    asked = [{"skill": "summarize", "kind": "clarification"}]
    answered = [{"skill": "summarize", "kind": "result"}]
    cases = [
        (rejected, asked, "vetoed"),
        (unsure, asked, "clarification"),
        (plain, unhandled, "vetoed"),
        (plain, asked, "clarification"),
        (plain, answered, "routed"),
        (None, answered, "routed"),  # approvals acted on: no gate
    ]
    for gate, results, outcome in cases:
        assert outcome_of(report(gate=gate, results=results)) == outcome, (gate, results)


def test_unchanged_requests_are_not_recorded() -> None:
    records = request_records("a.org", [report(status="unchanged"), report(line=9)])
    assert [(r.line, r.outcome, r.request_hash) for r in records] == [
        (9, "routed", "7fbed5cac4553e93"),
    ]


RESULTS = b"""\
* @agent do it
** Answer
:PROPERTIES:
:ORGROUTER_RESULT: abc/1
:ORGROUTER_KIND: result
:ORGROUTER_CHECK: 0000000000000000
:END:
** WAITING Approve: delete it
:PROPERTIES:
:ORGROUTER_RESULT: abc/2
:ORGROUTER_KIND: approval
:ORGROUTER_CHECK: 0000000000000000
:END:
** Old answer                                                       :ARCHIVE:
:PROPERTIES:
:ORGROUTER_RESULT: abc/3
:ORGROUTER_KIND: result
:ORGROUTER_CHECK: 0000000000000000
:END:
** No check
:PROPERTIES:
:ORGROUTER_RESULT: abc/4
:END:
** A note of the user's
It quotes a drawer line:
:ORGROUTER_RESULT: abc/5
"""


def test_corrections_skip_approvals_archives_and_unchecked_results(tmp_path: Path) -> None:
    found = corrections("a.org", RESULTS, b"\n")
    assert [(r.line, r.request_hash, r.result, r.outcome) for r in found] == [
        (2, "abc", "abc/1", "corrected"),
    ]
    assert corrections("a.org", b"* @agent do it\n", b"\n") == []
    # The same result twice (two requests with one instruction) is one correction.
    twice = RESULTS + RESULTS.replace(b"abc/2", b"abc/7")
    assert [(r.line, r.result) for r in corrections("a.org", twice, b"\n")] == [(2, "abc/1")]
    state = StateDB.open(tmp_path / "state.db")
    try:
        assert record(state, "r1", found) == 1
        assert record(state, "r2", found) == 0  # one correction, recorded once
        assert record(state, "r2", []) == 0
        assert state.tables().count("route_requests") == 1
    finally:
        state.close()


def test_files_are_named_relative_to_the_notes_root(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    assert file_key(str(root / "sub" / "a.org"), root) == "sub/a.org"
    assert file_key(str(root / "sub" / ".." / "a.org"), root) == "a.org"
    assert file_key(str(tmp_path / "b.org"), root) == (tmp_path / "b.org").as_posix()
    assert file_key(str(tmp_path / "b.org"), None) == (tmp_path / "b.org").as_posix()
