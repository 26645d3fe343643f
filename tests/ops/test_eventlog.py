"""The event log: JSON lines plus an events table, ids and counts only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from orgrouter.eventlog import EventLog, new_run_id
from orgrouter.state import StateDB


def test_json_lines_and_table(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "orgrouter.jsonl"
    log.parent.mkdir()
    log.write_text('{"event":"earlier"}\n')
    with StateDB.open(tmp_path / "s.db") as db:
        with EventLog(run_id="run-1", log_path=log, db=db) as events:
            events.emit("run_start", root="/notes", files=3)
            events.emit("file_routed", path="/notes/a.org", requests=1, results=2, parse_ms=4)
        rows = db.conn.execute("SELECT run, event, data FROM events ORDER BY id").fetchall()
    lines = log.read_text().splitlines()
    assert lines[0] == '{"event":"earlier"}'
    records = [json.loads(line) for line in lines[1:]]
    for record in records:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record.pop("time"))
    assert records == [
        {"event": "run_start", "run": "run-1", "root": "/notes", "files": 3},
        {
            "event": "file_routed",
            "run": "run-1",
            "path": "/notes/a.org",
            "requests": 1,
            "results": 2,
            "parse_ms": 4,
        },
    ]
    assert rows == [
        ("run-1", "run_start", '{"root":"/notes","files":3}'),
        ("run-1", "file_routed", '{"path":"/notes/a.org","requests":1,"results":2,"parse_ms":4}'),
    ]


def test_content_cannot_be_logged(tmp_path: Path) -> None:
    events = EventLog(log_path=tmp_path / "x.jsonl")
    with pytest.raises(ValueError, match="'instruction' is not an id, count or duration"):
        events.emit("request", instruction="summarize my diary")
    with pytest.raises(ValueError, match="too long"):
        events.emit("request", reason="line one\nline two")
    with pytest.raises(ValueError, match="must be a scalar"):
        events.emit("request", intent_ids=["a", "b"])  # type: ignore[arg-type]
    events.close()
    assert (tmp_path / "x.jsonl").read_text() == ""


def test_old_events_are_pruned(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        with EventLog(db=db) as events:
            events.emit("first")
        db.conn.execute("UPDATE events SET time = '2000-01-01T00:00:00.000Z'")
        db.conn.commit()
        with EventLog(db=db) as events:
            events.emit("second")
        assert db.conn.execute("SELECT event FROM events").fetchall() == [("second",)]


def test_unwritable_log_names_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(Exception) as info:
        EventLog(log_path=blocker / "x.jsonl")
    assert str(info.value).startswith(f"{blocker}/x.jsonl: cannot open the log file")


def test_run_ids_are_unique_and_sortable() -> None:
    first, second = new_run_id(), new_run_id()
    assert first != second
    assert re.fullmatch(r"\d{8}T\d{6}-[0-9a-f]{8}", first)
