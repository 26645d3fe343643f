"""Answer ``orgrouter route DIR`` over an unchanged tree before the router is imported.

A cron run that finds nothing changed costs start-up, one walk, one ``stat`` per note
and one read of the scan cache. :func:`route_unchanged` proves it, then does what the
full run would (take the run lock, log its events), or returns False and leaves all to
the full run. It proves only the cheap case: no configuration file or ``ORGROUTER_*``
variable, no symlink or odd entry in the tree, no interrupted move, and every note's
stat as recorded by a run that left nothing to do in it but WAITING approvals
(``scancache.WAITING``: routing such a note again changes nothing).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.xdg import user_config_path

if TYPE_CHECKING:
    from orgrouter.state import StateDB

# prefilter_for(Config()).signature, the table versions the run would check and
# scancache.WAITING: tests/ops/test_warm.py holds them to the modules that own them.
DEFAULT_SIGNATURE = "967b96f84a17da92"
SCHEMAS = {"scan_cache": 1, "events": 1, "move_journal": 1}
WAITING = 2
_DELTA = ("requests_routed", "results_written", "changed", "skipped", "failed")
_ROWS = (
    "SELECT path, size, mtime_ns, ctime_ns, inode, has_request, settled, signature FROM scan_cache"
)


def route_unchanged(paths: list[str], *, quiet: bool, state_path: str | None) -> bool:
    """Do what ``route -q [--state S] [DIR]`` does if nothing changed; False if not proved."""
    env = os.environ
    if len(paths) > 1 or any(name.startswith("ORGROUTER_") for name in env):
        return False
    arg = paths[0] if paths else "."
    if not quiet and sys.stderr.isatty():  # the run draws a progress bar
        return False
    given = os.path.abspath(arg)
    root = os.path.realpath(given)
    here = Path(root)  # no configuration file: the defaults hold
    configs = [user_config_path(env), *(d / "orgrouter.toml" for d in (here, *here.parents))]
    if any(config.is_file() for config in configs):
        return False
    files = _walk(given)
    if files is None:
        return False
    from orgrouter.state import StateDB, resolve_state_path

    path = resolve_state_path(state_path, env, None, root)
    if not path.is_file():
        return False
    db = StateDB.open(path)
    try:
        waiting = _unchanged(db, given, files)
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


def _unchanged(db: StateDB, top: str, files: list[tuple[str, os.stat_result]]) -> list[str] | None:
    """Return the notes that wait on approvals if the cache proves ``files`` unchanged."""
    import sqlite3

    conn = db.conn
    try:
        versions = dict(conn.execute("SELECT name, version FROM schema_versions"))
        if any(versions.get(name) != version for name, version in SCHEMAS.items()):
            return None
        if conn.execute("SELECT 1 FROM move_journal_files LIMIT 1").fetchone() is not None:
            return None
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
        if row is None or row[6] != DEFAULT_SIGNATURE or row[:4] != stat or row[4:6] == (1, 0):
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
