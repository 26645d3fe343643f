"""One run at a time per notes root: an advisory ``flock`` on a lock file in the state dir.

The lock is keyed by the notes root, not by the state database, so two runs over the
same notes exclude each other even when given different ``--state`` paths. ``flock``
is released by the kernel when the holder exits, however it exits, so a crashed run
never leaves a stale lock behind; the pid written into the file is for the message a
second run prints, and for the event the next run logs when it takes over the lock of
a run that never released it (killed: the file still names it).

A ``flock`` belongs to the open file, which a forked process shares: a worker of the
route pool that outlived a killed parent used to keep the lock held forever. So every
forked child closes its copy at once (``os.register_at_fork``); the lock is then the
parent's alone, and the kernel releases it the moment the parent is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import weakref
from collections.abc import Mapping
from pathlib import Path

from orgrouter.errors import LockedError, StateError
from orgrouter.state import root_key, state_dir


def lock_path(notes_root: str | os.PathLike[str], env: Mapping[str, str]) -> Path:
    """Return the lock file for ``notes_root``: ``<state dir>/locks/<root key>.lock``."""
    return state_dir(env) / "locks" / f"{root_key(notes_root)}.lock"


class RunLock:
    """The exclusive lock for one notes root; a context manager."""

    def __init__(self, notes_root: str | os.PathLike[str], env: Mapping[str, str]) -> None:
        self.root = Path(notes_root).expanduser().resolve()
        self.path = lock_path(self.root, env)
        self._fd: int | None = None
        self.taken_over: int | None = None  # the pid of a holder that never released it

    def acquire(self) -> None:
        """Take the lock at once, or raise LockedError naming the root and the holder."""
        if self._fd is not None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # No O_TRUNC: the file holds the current holder's pid until we own it.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise StateError(
                f"cannot create the run lock: {error.strerror or error}; "
                "set XDG_STATE_HOME to a writable directory",
                path=self.path,
            ) from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            from orgrouter.io.transaction import pid_alive  # only when the lock is taken

            holder = _read_pid(fd)
            os.close(fd)
            who = f"pid {holder}" if holder else "another process"
            if holder and not pid_alive(holder):
                # Only a process that inherited the lock from a run started before
                # the fork rule (an older orgrouter's orphaned worker) can hold it.
                who = f"a process left over from pid {holder}, now gone: fuser {self.path}"
            raise LockedError(
                f"another orgrouter run ({who}) is working on this notes root; "
                "this run did nothing",
                path=self.root,
            ) from None
        except OSError as error:
            os.close(fd)
            raise StateError(f"cannot lock: {error.strerror or error}", path=self.path) from error
        previous = _read_pid(fd)
        if previous is not None and previous != os.getpid():
            self.taken_over = previous  # released by the kernel, never by the run
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        _HELD.add(self)

    def release(self) -> None:
        """Give the lock up (closing the file releases the flock)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        _HELD.discard(self)
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_HELD: weakref.WeakSet[RunLock] = weakref.WeakSet()


def _close_in_child() -> None:
    """In a forked child, close the inherited lock files (without unlocking them).

    Closing a copy leaves the parent's lock in place (``LOCK_UN`` would release it for
    both); once no child holds a copy, the parent's exit releases it.
    """
    for lock in list(_HELD):
        fd, lock._fd = lock._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_in_child)


def _read_pid(fd: int) -> int | None:
    """Return the pid recorded in a lock file, if it holds one."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
