"""Filter mode for editors: one Org document on stdin, the routed document on stdout.

Emacs's ``shell-command-on-region`` with replace (and ``orgrouter.el``) pipes the
buffer through ``orgrouter route --stdin``. The output is the input, byte for byte,
when there is nothing to do; messages go to stderr. ``--file-name`` names the buffer's
file so messages, search links and the per-root state use it; nothing is written to it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.config import Config
from orgrouter.io.text import check_org
from orgrouter.records import replace
from orgrouter.route.pipeline import DocumentOutcome
from orgrouter.route.router import Router, RunOptions

if TYPE_CHECKING:
    from orgrouter.state import StateDB

STDIN_NAME = "<stdin>"


class LazyState:
    """The state database of one stdin route, opened on first use.

    A stdin route needs it only for the spawn rate window (with a model) and the
    tangle skill's target record; opening it (sqlite3, WAL, schemas) would cost every
    Emacs filter run about 10 ms. Attribute access opens it and forwards to the
    ``StateDB``, so it stands wherever one is expected.
    """

    def __init__(self, locate: Callable[[], Path]) -> None:
        self._locate = locate
        self._db: StateDB | None = None
        # StateDB.run_memo's stand-in: a skill's once-per-run memo (refile's listing of
        # the notes) needs no database, so asking for it must not open one.
        self.run_memo: dict[str, object] = {}

    @property
    def opened(self) -> bool:
        """Return whether the database has been opened."""
        return self._db is not None

    def open(self) -> StateDB:
        """Return the database, opening it (at the path ``locate`` gives) the first time."""
        if self._db is None:
            from orgrouter.state import StateDB

            self._db = StateDB.open(self._locate())
        return self._db

    def __getattr__(self, name: str) -> Any:
        return getattr(self.open(), name)

    def close(self) -> None:
        """Close the database if it was opened."""
        if self._db is not None:
            self._db.close()
            self._db = None


class LazyLock:
    """The notes root's run lock, taken only when a skill is about to write a file.

    Most filter runs write nothing but stdout: they neither wait for the lock nor pay
    for importing it (runlock pulls in sqlite3).
    """

    def __init__(self, root: Path, environ: Mapping[str, str]) -> None:
        self._root = root
        self._environ = environ
        self._lock: Any = None

    def acquire(self) -> None:
        """Take the lock (once), or raise LockedError if another run holds it."""
        if self._lock is None:
            from orgrouter.runlock import RunLock

            self._lock = RunLock(self._root, self._environ)
        self._lock.acquire()

    def release(self) -> None:
        """Give the lock up if it was taken."""
        if self._lock is not None:
            self._lock.release()


def route_stdin(
    data: bytes,
    file_name: str | None,
    config: Config,
    options: RunOptions,
    *,
    locate_state: Callable[[], Path] | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[DocumentOutcome, list[str]]:
    """Return the routed document for ``data`` and any warnings (e.g. a broken skill).

    The state database is ``locate_state()`` (called only if a skill needs it), else
    ``options.state_path``; with neither there is none. Before a skill writes any file
    besides stdout (a tangle target) it takes the notes root's run lock (``environ``
    says where locks live), so a filter run never writes while a directory run holds
    it: LockedError (exit 75) then, with nothing written. Only such a run takes it.
    """
    label = file_name or STDIN_NAME
    newline = check_org(data, label)  # refuses binary or non-UTF-8 input, naming the line
    root = stdin_root(file_name)
    if locate_state is None and options.state_path is not None:
        locate_state = _fixed(options.state_path)
    state = LazyState(locate_state) if locate_state is not None else None
    lock = LazyLock(root, environ)
    try:
        router = Router(config, options, root, state)
        router.env(None).write_lock = lock.acquire
        outcome = router.route(data, file_name, newline)
        if outcome.writes:
            outcome, warning = _defer_moves(outcome, data, file_name, state)
            router.warnings.append(warning)
    finally:
        lock.release()
        if state is not None:
            state.close()
    for request in outcome.requests:
        options.on_request(request)
    return outcome, router.warnings


def _defer_moves(
    outcome: DocumentOutcome, data: bytes, path: str | None, state: Any
) -> tuple[DocumentOutcome, str]:
    """Return ``outcome`` without its moves across files, their approvals kept for later.

    A move writes other files too, atomically with this one only through the journal
    of a file route: a filter cannot, so the whole move waits for one.
    """
    if state is not None and path is not None:
        from orgrouter.route.binding import reinstate

        note = str(Path(path).resolve())
        for digest in sorted({m.approval for r in outcome.requests for m in r.moves}):
            if digest:
                reinstate(state, note, digest)
    names = ", ".join(w.path for w in outcome.writes)
    warning = f"an approved move into {names} waits: run `orgrouter route` on the file"
    return replace(outcome, data=data, writes=[]), warning


def _fixed(path: Path) -> Callable[[], Path]:
    """Return a locator that always gives ``path``."""
    return lambda: path


def stdin_root(file_name: str | None) -> Path:
    """Return the notes root a stdin run belongs to (shared with runs over its tree)."""
    from orgrouter.discover import find_notes_root

    return find_notes_root([Path(os.path.abspath(file_name)).parent if file_name else Path.cwd()])
