"""Work left for a later run keeps a file due in the scan cache: a failed request is
retried by a 5-minute cron, a WAITING approval is looked at again; ``-q`` stays quiet."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

from route_cli import run_cli

from orgrouter.scancache import SETTLED, WAITING

NOTE = "* Ideas\n** @agent write a poem about the sea\n"


def _closed_port() -> int:
    """Return a local port nothing listens on (a model server that is down)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _notes(tmp: Path) -> Path:
    root = tmp / "notes"
    root.mkdir()
    (root / "orgrouter.toml").write_text(
        "[neuro]\n"
        'backend = "openai"\n'
        f'endpoint = "http://127.0.0.1:{_closed_port()}/v1"\n'
        'model = "m"\n'
        "max_retries = 0\n"
        "timeout_s = 5\n"
    )
    return root


def route(tmp: Path, now: str, *args: str) -> tuple[int, bytes, str]:
    """Run ``orgrouter route -q`` at ``now`` on the state database under ``tmp``."""
    state = ["--state", str(tmp / "state.db")]
    return run_cli(["route", "-q", "--now", now, *state, *args], tmp)


def settled(tmp: Path, path: Path) -> int:
    """Return what the scan cache says of ``path``: 0 due, 1 settled, 2 WAITING only."""
    with sqlite3.connect(tmp / "state.db") as conn:
        (row,) = conn.execute("SELECT settled FROM scan_cache WHERE path = ?", (str(path),))
    return int(row[0])


def test_a_failed_request_is_retried_after_runs_inside_the_window(tmp_path: Path) -> None:
    root = _notes(tmp_path)
    note = root / "ideas.org"
    note.write_text(NOTE)
    assert route(tmp_path, "2026-11-30T09:00", str(root)) == (0, b"", "")
    assert ":ORGROUTER_STATUS: error\n" in note.read_text()
    # Cron, every 5 minutes: inside the 15-minute window nothing is rewritten and
    # nothing printed, and the file stays due.
    for now in ("2026-11-30T09:05", "2026-11-30T09:10"):
        before = note.read_bytes()
        assert route(tmp_path, now, str(root)) == (0, b"", "")
        assert note.read_bytes() == before
        assert not settled(tmp_path, note)
    assert route(tmp_path, "2026-11-30T09:15", str(root)) == (0, b"", "")
    retried = note.read_text()
    assert ":ORGROUTER_RUN: 2026-11-30T09:15:00\n" in retried  # the retry came
    assert retried.count(":ORGROUTER_RESULT:") == 1  # and replaced the failed result


def test_a_waiting_approval_keeps_the_file_due(tmp_path: Path) -> None:
    note = tmp_path / "cleanup.org"
    note.write_text("* Drafts\n** @agent send the memo\n")
    assert route(tmp_path, "2026-11-30T09:00", str(note))[0] == 0
    assert "*** WAITING Approve: " in note.read_text()
    # Due for a full run, which reads it again; answerable only by the user's edit,
    # so orgrouter.warm may pass it over while its stat is unchanged.
    assert settled(tmp_path, note) == WAITING
    assert route(tmp_path, "2026-11-30T09:05", str(note)) == (0, b"", "")
    assert settled(tmp_path, note) == WAITING
    note.write_text(note.read_text().replace("WAITING Approve", "REJECTED Approve"))
    assert route(tmp_path, "2026-11-30T09:10", str(note))[0] == 0
    assert ":ORGROUTER_STATUS: rejected\n" in note.read_text()
    assert settled(tmp_path, note) == SETTLED  # answered: nothing is left to do


def test_quiet_stdin_prints_nothing_on_a_model_outage(tmp_path: Path) -> None:
    root = _notes(tmp_path)
    name = ["--file-name", str(root / "ideas.org")]
    state = ["--state", str(tmp_path / "state.db"), "--now", "2026-11-30T09:00"]
    stdin = NOTE.encode()
    code, out, err = run_cli(["route", "-q", *state, "--stdin", *name], tmp_path, stdin=stdin)
    assert (code, err) == (0, "")
    assert b"*** Model error: " in out  # the buffer says it, as the note would
    code, _out, err = run_cli(["route", *state, "--stdin", *name], tmp_path, stdin=stdin)
    assert err == "routed 1 request, 1 result\n"  # without -q, as before


def test_a_move_approved_beside_a_failed_request_leaves_the_retry_due(tmp_path: Path) -> None:
    root = _notes(tmp_path)
    (root / "b.org").write_text("* X\n")
    note = root / "a.org"
    note.write_text(
        "* Inbox\n** Thing\nbody\n*** @agent refile this to b.org under X\n"
        "* Ideas\n** @agent write a poem about the sea\n"
    )
    assert route(tmp_path, "2026-11-30T09:00", str(root))[0] == 0
    note.write_text(note.read_text().replace("WAITING Approve", "APPROVED Approve"))
    # The move is made; the failed request beside it still waits for its window.
    assert route(tmp_path, "2026-11-30T09:05", str(root))[0] == 0
    assert "** Thing\n" in (root / "b.org").read_text()
    assert not settled(tmp_path, note)
    assert route(tmp_path, "2026-11-30T09:15", str(root))[0] == 0
    assert ":ORGROUTER_RUN: 2026-11-30T09:15:00\n" in note.read_text()  # the retry came
