"""Answer ``orgrouter route DIR`` over an unchanged tree before the router is imported.

A cron run that finds nothing changed costs start-up, one walk, one ``stat`` per note
and one read of the scan cache. :func:`route_unchanged` proves it, then does what the
full run would (take the run lock, log its events), or returns False and leaves all to
the full run. It proves only the cheap case: no ``ORGROUTER_*`` variable, no symlink or odd
entry in the tree, no interrupted move, every note's stat as recorded by a run that left
nothing to do in it but WAITING approvals (``scancache.WAITING``: routing such a note
again changes nothing), and the configuration files byte for byte those of the last
full run over the root, whose prefilter signature that run left in ``warm_proof``
(:func:`record`). The configuration is never parsed here: its bytes name the
signature, and a run whose configuration loads user skills records none.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.xdg import user_config_path

if TYPE_CHECKING:
    from collections.abc import Mapping

    from orgrouter.state import StateDB

# The table versions the run would check and scancache.WAITING, discover.ROOT_MARKER
# and configload.PROJECT_FILE: tests/ops/test_warm.py holds them to the modules that
# own them.
SCHEMAS = {"scan_cache": 1, "events": 1, "move_journal": 1, "warm_proof": 1}
PROJECT_FILE = "orgrouter.toml"
PROOF_DDL = """
CREATE TABLE IF NOT EXISTS warm_proof (
    root TEXT PRIMARY KEY,
    config_key TEXT NOT NULL,
    signature TEXT NOT NULL
);
"""
WAITING = 2
_DELTA = ("requests_routed", "results_written", "changed", "skipped", "failed")
_ROWS = (
    "SELECT path, size, mtime_ns, ctime_ns, inode, has_request, settled, signature FROM scan_cache"
)


def route_unchanged(paths: list[str], *, quiet: bool, state_path: str | None) -> bool:
    """Do what ``route -q [--state S] [DIR]`` does if nothing changed; False if not proved."""
    env = os.environ
    if not _plain(paths, env):
        return False
    arg = paths[0] if paths else "."
    if not quiet and sys.stderr.isatty():  # the run draws a progress bar
        return False
    given = os.path.abspath(arg)
    try:
        root, key = config_key(given, env)
    except OSError:
        return False
    files = _walk(given)
    if files is None:
        return False
    from orgrouter.state import StateDB, resolve_state_path

    # With no [state] path in the configuration; one that names another database
    # leaves no proof for these bytes in this one, so the full run takes over.
    path = resolve_state_path(state_path, env, None, root)
    if not path.is_file():
        return False
    db = StateDB.open(path)
    try:
        waiting = _unchanged(db, given, files, (root, key))
        if waiting is None:
            return False
        shown = [str(Path(arg) / os.path.relpath(name, given)) for name in waiting]
        _log_run(db, root, len(files), shown)
    finally:
        db.close()
    return True


def _walk(top: str) -> list[tuple[str, os.stat_result]] | None:
    """Return every note under ``top`` with its stat, or None where discovery could differ."""
    files: list[tuple[str, os.stat_result]] = []
    seen: set[tuple[int, int]] = set()
    stack = [top]
    try:
        while stack:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    if entry.is_symlink():
                        return None
                    if entry.is_dir(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        if name.endswith(".org") or (st.st_dev, st.st_ino) in seen:
                            return None  # reported as odd; a bind mount seen twice
                        seen.add((st.st_dev, st.st_ino))
                        stack.append(entry.path)
                    elif name.endswith(".org"):
                        if not entry.is_file(follow_symlinks=False):
                            return None  # a FIFO or socket: reported
                        files.append((entry.path, entry.stat(follow_symlinks=False)))
    except OSError:
        return None
    return files


def _plain(paths: list[str], env: Mapping[str, str]) -> bool:
    """Return whether a run over ``paths`` in ``env`` is one a proof may speak for."""
    return len(paths) <= 1 and not any(name.startswith("ORGROUTER_") for name in env)


def proof_key(paths: list[str], env: Mapping[str, str]) -> str | None:
    """Return ``config_key`` for a full run whose proof a later warm run may use.

    Only a run configured as that one is (one directory, no ``ORGROUTER_*`` variable)
    may leave the proof ``record`` writes: its prefilter signature.
    """
    start = paths[0] if paths else "."
    if not _plain(paths, env) or not os.path.isdir(start):
        return None
    try:
        return config_key(os.path.abspath(start), env)[1]
    except OSError:
        return None


def config_key(start: str, env: Mapping[str, str]) -> tuple[str, str]:
    """Return the notes root of directory ``start`` and a hash of its configuration files.

    The files ``configload.load_config`` reads without ``--config``: the user's and the
    nearest ``orgrouter.toml`` at or above ``start`` (whose directory is the notes root,
    as ``discover.find_notes_root`` has it), each by path and bytes.
    """
    here = Path(os.path.realpath(start))
    project = next(
        (d / PROJECT_FILE for d in (here, *here.parents) if (d / PROJECT_FILE).is_file()), None
    )
    digest = hashlib.sha256()
    for config in (user_config_path(env), project):
        if config is not None and config.is_file():
            digest.update(os.fsencode(config) + b"\0" + config.read_bytes() + b"\0")
        else:
            digest.update(b"-\0")
    return str(here if project is None else project.parent), digest.hexdigest()


def record(db: StateDB, start: str, key: str, signature: str) -> None:
    """Leave the proof a later warm run needs: these configuration bytes, this signature.

    ``key`` is ``config_key`` taken before the run loaded its configuration; a file
    changed since then records nothing (the signature may be of other bytes).
    """
    try:
        root, now = config_key(os.path.abspath(start), os.environ)
    except OSError:
        return
    if now != key:
        return
    db.ensure_schema("warm_proof", SCHEMAS["warm_proof"], PROOF_DDL)
    with db.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO warm_proof (root, config_key, signature) VALUES (?, ?, ?)",
            (root, key, signature),
        )


def _unchanged(
    db: StateDB, top: str, files: list[tuple[str, os.stat_result]], proof: tuple[str, str]
) -> list[str] | None:
    """Return the notes that wait on approvals if the cache proves ``files`` unchanged."""
    import sqlite3

    conn = db.conn
    try:
        versions = dict(conn.execute("SELECT name, version FROM schema_versions"))
        if any(versions.get(name) != version for name, version in SCHEMAS.items()):
            return None
        if conn.execute("SELECT 1 FROM move_journal_files LIMIT 1").fetchone() is not None:
            return None
        found = conn.execute(
            "SELECT config_key, signature FROM warm_proof WHERE root = ?", (proof[0],)
        ).fetchone()
        if found is None or found[0] != proof[1]:
            return None  # another configuration, or none recorded by a full run
        signature = found[1]
        rows = {row[0]: row[1:] for row in conn.execute(_ROWS)}
    except sqlite3.Error:
        return None
    prefix = top.rstrip("/") + "/"
    if sum(1 for key in rows if key.startswith(prefix)) != len(files):
        return None  # a note deleted: the run forgets it
    waiting = []
    for path, st in files:
        row = rows.get(path)
        stat = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        if row is None or row[6] != signature or row[:4] != stat or row[4:6] == (1, 0):
            return None  # changed, or due (has_request and not settled)
        if row[4] and row[5] == WAITING:
            waiting.append(path)
    # The run routes these in discovery order: each directory's entries sorted by name.
    return sorted(waiting, key=lambda name: name.split("/"))


def _log_run(db: StateDB, root: str, count: int, waiting: list[str]) -> None:
    """Take the run lock and log the events the full run logs over an unchanged tree."""
    from orgrouter.eventlog import EventLog
    from orgrouter.runlock import RunLock

    with RunLock(root, os.environ) as lock:
        log = EventLog(db=db)
        log.emit("run_start", root=root, mode="write", files=count)
        if lock.taken_over is not None:
            log.emit("lock_taken_over", root=root, holder_id=lock.taken_over)
        for path in waiting:  # Report.as_counts's keys, in its order
            log.emit("file_routed", path=path, **dict.fromkeys(_DELTA, 0))
        log.emit(
            "run_end",
            scanned=count,
            cached=count - len(waiting),
            **dict.fromkeys(_DELTA[:3], 0),
            unchanged=len(waiting),
            **dict.fromkeys(_DELTA[3:], 0),
            duration_ms=log.elapsed_ms(),
        )
        log.close()
