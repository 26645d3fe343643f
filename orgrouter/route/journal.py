"""The move journal: a move across files ends up done, whatever kills the run.

A move writes two files (or more: one note, its archive, a refile target). Before the
first write, the bytes every file had and will have are recorded in the state
database; the targets are written, then the note, then the record is dropped. The next
run first settles what a killed run left (:func:`recover`): each file holds either its
old or its new bytes, and once journalled an approved move is as good as done, so the
files still holding old bytes get their new ones. A file edited since by hand, or
locked by Emacs, leaves the record for a later run and keeps the run away from those
files. A move is never started while a file is locked by Emacs or changed since it was
read: the whole move waits (and its approval stays good for the run that does it).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orgrouter.errors import ConflictError, OrgRouterError
from orgrouter.io.text import Snapshot, read_stable
from orgrouter.state import StateDB

SCHEMA = "move_journal"
# state.py drops a table set whose version changes: a new version must first settle
# (recover) the moves an older one journalled, or they would be lost.
VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS move_journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS move_journal_files (
    move INTEGER NOT NULL REFERENCES move_journal(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    path TEXT NOT NULL,
    before BLOB,
    after BLOB NOT NULL,
    PRIMARY KEY (move, seq)
);
"""
CRASH_ENV = "ORGROUTER_TEST_CRASH_AT"  # tests: SIGKILL this process at a named step


@dataclass(frozen=True)
class Planned:
    """One file of a move: its bytes before (None: absent) and after."""

    path: str
    before: bytes | None
    after: bytes


@dataclass(frozen=True)
class Settled:
    """What recovering one journalled move did."""

    paths: tuple[str, ...]
    outcome: str  # "completed", "pending" or "dropped" (nothing was written; asked again)
    reason: str = ""


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _current(path: str) -> bytes | None:
    """Return the note's bytes as route reads them (a FIFO never hangs), None if absent."""
    return read_stable(path)[0] if os.path.exists(path) else None


def _crash_point(step: str, environ: Mapping[str, str]) -> None:
    """Kill this process at ``step`` when the crash test asks for it."""
    if environ.get(CRASH_ENV) == step:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def pending_paths(db: StateDB) -> set[str]:
    """Return the real paths of files a journalled move has not settled yet."""
    db.ensure_schema(SCHEMA, VERSION, DDL)
    rows = db.conn.execute("SELECT path FROM move_journal_files").fetchall()
    return {os.path.realpath(str(row[0])) for row in rows}


def commit_move(
    db: StateDB,
    source: Snapshot,
    source_after: bytes,
    others: Sequence[Planned],
    *,
    now: str,
    environ: Mapping[str, str] = os.environ,
) -> None:
    """Write a move's files, journalled; raise ConflictError (nothing written) to defer it."""
    from orgrouter.io.transaction import Status, Transaction, emacs_lock

    everything = [*others, Planned(source.path, source.data, source_after)]
    for planned in everything:
        lock = emacs_lock(planned.path)
        if lock is not None:
            raise ConflictError(
                f"Emacs is editing {planned.path} (lock {os.path.basename(lock)}), "
                "which this move writes; the whole move waits for the next run",
                path=source.path,
            )
        if _sha(_current(planned.path)) != _sha(planned.before):
            raise ConflictError(
                f"{planned.path} changed since the move was planned; it waits for the next run",
                path=source.path,
            )
    db.ensure_schema(SCHEMA, VERSION, DDL)
    with db.transaction() as conn:
        cursor = conn.execute("INSERT INTO move_journal (created) VALUES (?)", (now,))
        move = cursor.lastrowid
        conn.executemany(
            "INSERT INTO move_journal_files (move, seq, path, before, after) "
            "VALUES (?, ?, ?, ?, ?)",
            [(move, n, f.path, f.before, f.after) for n, f in enumerate(everything)],
        )
    _crash_point("journalled", environ)
    targets = Transaction()
    for planned in others:
        if planned.before is None:
            targets.create(planned.path, planned.after)
        else:
            targets.replace(planned.path, planned.after, expect_sha256=_sha(planned.before))
    outcomes = targets.commit(all_or_nothing=True)
    failed = next((o for o in outcomes if not o.ok), None)
    if failed is not None:
        if all(o.status in (Status.CONFLICT, Status.SKIPPED, Status.FAILED) for o in outcomes):
            _forget(db, move)  # every check ran before the first write: nothing was written
            if failed.status is Status.CONFLICT:
                raise ConflictError(
                    f"{failed.path}: {failed.error.message if failed.error else 'conflict'}; "
                    "the whole move waits for the next run",
                    path=source.path,
                )
        raise failed.error or OrgRouterError("cannot write", path=failed.path)
    _crash_point("targets-written", environ)
    note = Transaction()
    note.replace(source, source_after)
    (outcome,) = note.commit()
    if not outcome.ok:
        # The note changed while its targets were written: put the targets back.
        undo = Transaction()
        for planned in others:
            if planned.before is None:
                undo.delete(planned.path, expect_sha256=_sha(planned.after) or "")
            else:
                undo.replace(planned.path, planned.before, expect_sha256=_sha(planned.after))
        if all(o.ok for o in undo.commit()):
            _forget(db, move)
        raise outcome.error or ConflictError("changed during the run", path=source.path)
    _crash_point("note-written", environ)
    _forget(db, move)


def _forget(db: StateDB, move: int | None) -> None:
    with db.transaction() as conn:
        conn.execute("DELETE FROM move_journal_files WHERE move = ?", (move,))
        conn.execute("DELETE FROM move_journal WHERE id = ?", (move,))


def recover(db: StateDB) -> list[Settled]:
    """Settle every move a killed run left: complete it, or leave it (and say why)."""
    db.ensure_schema(SCHEMA, VERSION, DDL)
    settled: list[Settled] = []
    moves = [int(row[0]) for row in db.conn.execute("SELECT id FROM move_journal ORDER BY id")]
    for move in moves:
        rows = db.conn.execute(
            "SELECT path, before, after FROM move_journal_files WHERE move = ? ORDER BY seq",
            (move,),
        ).fetchall()
        files = [Planned(str(p), None if b is None else bytes(b), bytes(a)) for p, b, a in rows]
        settled.append(_settle(db, move, files))
    return settled


def _settle(db: StateDB, move: int, files: list[Planned]) -> Settled:
    """Complete one journalled move if every file holds its old or its new bytes.

    The targets are written before the note (``commit_move``): while every target
    still holds its old bytes, nothing of the move was written, so a note edited since
    (the user went on writing) drops the record instead of holding the note forever.
    """
    from orgrouter.io.transaction import Transaction, emacs_lock  # only a run a kill interrupted

    paths = tuple(f.path for f in files)
    states = []
    for planned in files:
        if emacs_lock(planned.path) is not None:
            return Settled(paths, "pending", f"Emacs is editing {planned.path}")
        try:
            current = _sha(_current(planned.path))
        except OrgRouterError as error:  # unreadable for now (a directory, a FIFO): wait
            return Settled(paths, "pending", str(error))
        if current == _sha(planned.after):
            states.append("after")
        elif current == _sha(planned.before):
            states.append("before")
        else:
            states.append("edited")
    if "edited" in states:
        if all(state == "before" for state in states[:-1]):
            _forget(db, move)
            return Settled(
                paths, "dropped", f"nothing of it was written and {files[-1].path} was edited since"
            )
        edited = files[states.index("edited")].path
        return Settled(
            paths,
            "pending",
            f"{edited} was edited after an interrupted move; "
            "check that the moved subtree is where you want it, then "
            "`orgrouter state reset` clears the record",
        )
    finish = Transaction()
    for planned, state in zip(files, states, strict=True):
        if state == "before":
            if planned.before is None:
                finish.create(planned.path, planned.after)
            else:
                finish.replace(planned.path, planned.after, expect_sha256=_sha(planned.before))
    outcomes = finish.commit(all_or_nothing=True)
    if not all(o.ok for o in outcomes):
        bad = next(o for o in outcomes if not o.ok)
        return Settled(paths, "pending", bad.error.message if bad.error else "not written")
    _forget(db, move)
    return Settled(paths, "completed")
