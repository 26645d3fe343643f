"""The move journal on its own: plan, refuse a changed or locked file, settle leftovers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orgrouter.errors import ConflictError, OrgRouterError
from orgrouter.io.text import read_org_file
from orgrouter.route.journal import Planned, commit_move, pending_paths, recover
from orgrouter.state import StateDB


def _setup(tmp: Path) -> tuple[StateDB, Path, Path]:
    note, target = tmp / "a.org", tmp / "b.org"
    note.write_bytes(b"* Keep\n* Move\n")
    target.write_bytes(b"* B\n")
    return StateDB.open(tmp / "state.db"), note, target


def test_a_move_writes_both_files_and_leaves_no_record(tmp_path: Path) -> None:
    db, note, target = _setup(tmp_path)
    snapshot = read_org_file(note)
    commit_move(
        db, snapshot, b"* Keep\n", [Planned(str(target), b"* B\n", b"* B\n* Move\n")], now="t"
    )
    assert (note.read_bytes(), target.read_bytes()) == (b"* Keep\n", b"* B\n* Move\n")
    assert pending_paths(db) == set()


@pytest.mark.parametrize("trouble", ["changed", "locked", "note-locked", "note-changed"])
def test_a_changed_or_locked_target_defers_the_whole_move(tmp_path: Path, trouble: str) -> None:
    db, note, target = _setup(tmp_path)
    snapshot = read_org_file(note)
    if trouble == "changed":
        target.write_bytes(b"* B edited\n")
    elif trouble == "locked":
        os.symlink("me@host.1", tmp_path / ".#b.org")
    elif trouble == "note-locked":
        os.symlink("me@host.1", tmp_path / ".#a.org")
    else:
        note.write_bytes(b"* Keep\n* Move\n* Typed meanwhile\n")
    before = (note.read_bytes(), target.read_bytes())
    with pytest.raises(ConflictError):
        commit_move(db, snapshot, b"* Keep\n", [Planned(str(target), b"* B\n", b"x")], now="t")
    assert (note.read_bytes(), target.read_bytes()) == before
    assert pending_paths(db) == set()


def _journal_only(db: StateDB, note: Path, target: Path) -> None:
    """Record a move as a killed run leaves it: journalled, target written, note not."""
    with db.transaction() as conn:
        move = conn.execute("INSERT INTO move_journal (created) VALUES ('t')").lastrowid
        rows = [
            (move, 0, str(target), b"* B\n", b"* B\n* Move\n"),
            (move, 1, str(note), b"* Keep\n* Move\n", b"* Keep\n"),
        ]
        conn.executemany("INSERT INTO move_journal_files VALUES (?, ?, ?, ?, ?)", rows)


def test_recover_completes_a_half_done_move(tmp_path: Path) -> None:
    db, note, target = _setup(tmp_path)
    pending_paths(db)  # creates the tables
    _journal_only(db, note, target)
    target.write_bytes(b"* B\n* Move\n")
    (settled,) = recover(db)
    assert settled.outcome == "completed"
    assert (note.read_bytes(), target.read_bytes()) == (b"* Keep\n", b"* B\n* Move\n")
    assert recover(db) == []


def test_recover_completes_a_move_nothing_was_written_of(tmp_path: Path) -> None:
    db, note, target = _setup(tmp_path)
    pending_paths(db)
    _journal_only(db, note, target)
    assert [s.outcome for s in recover(db)] == ["completed"]
    assert (note.read_bytes(), target.read_bytes()) == (b"* Keep\n", b"* B\n* Move\n")


def test_recover_waits_on_hand_edits(tmp_path: Path) -> None:
    db, note, target = _setup(tmp_path)
    pending_paths(db)
    _journal_only(db, note, target)
    target.write_bytes(b"* B\n* Move\nedited by hand\n")
    (settled,) = recover(db)
    assert settled.outcome == "pending" and "edited" in settled.reason
    assert os.path.realpath(note) in pending_paths(db)
    assert note.read_bytes() == b"* Keep\n* Move\n"


def test_a_note_edited_after_a_kill_before_any_write_is_let_go(tmp_path: Path) -> None:
    # Killed once journalled, before the target was written; the user then typed in the
    # note. Nothing of the move was written, so the record goes and the note is routed
    # again (the approval is asked again), instead of being held until `state reset`.
    db, note, target = _setup(tmp_path)
    pending_paths(db)
    _journal_only(db, note, target)
    note.write_bytes(b"* Keep\n* Move\n* Typed after the kill\n")
    (settled,) = recover(db)
    assert settled.outcome == "dropped"
    assert pending_paths(db) == set()
    assert note.read_bytes() == b"* Keep\n* Move\n* Typed after the kill\n"
    assert target.read_bytes() == b"* B\n"


def test_an_unreadable_file_leaves_the_move_pending_naming_it(tmp_path: Path) -> None:
    # Read as route reads a note: a directory (or a FIFO) in a file's place is reported
    # with its path, and the move waits; it neither crashes the run nor hangs it.
    db, note, target = _setup(tmp_path)
    pending_paths(db)
    _journal_only(db, note, target)
    target.unlink()
    target.mkdir()
    (settled,) = recover(db)
    assert (settled.outcome, settled.reason) == (
        "pending", f"{target}: is a directory, not an Org file"
    )
    assert note.read_bytes() == b"* Keep\n* Move\n"


def test_a_target_refused_before_any_write_leaves_no_record(tmp_path: Path) -> None:
    # A check that fails (not a conflict: a target with two hard links is never written)
    # writes nothing: the record went with it, or every later run held the note as an
    # interrupted move until `orgrouter state reset`.
    db, note, target = _setup(tmp_path)
    os.link(target, tmp_path / "c.org")
    snapshot = read_org_file(note)
    with pytest.raises(OrgRouterError, match="hard links"):
        commit_move(db, snapshot, b"* Keep\n", [Planned(str(target), b"* B\n", b"x")], now="t")
    assert (note.read_bytes(), target.read_bytes()) == (b"* Keep\n* Move\n", b"* B\n")
    assert pending_paths(db) == set()
