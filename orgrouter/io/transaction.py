"""Every file orgrouter writes goes through here: check, then replace atomically.

A :class:`Transaction` stages writes (an existing file with the :class:`Snapshot` it
was read as, a file whose current bytes must have a given hash, a new file that must not
exist yet, or a removal of a file that must still have a given hash), then
:meth:`Transaction.commit` handles each one on its own:

1. bytes that would not change are not written (the mtime stays);
2. an Emacs lock (``.#NAME`` beside the file or its symlink) or a file changed since it
   was read (size, mtime or hash) is a conflict, and the file is left untouched;
3. the new bytes go to a temp file in the target's own directory (``os.replace`` cannot
   cross file systems), are fsynced and given the old file's mode (and owner, where
   allowed); the temp file replaces the target, and the directory is fsynced.

A symlink is followed: its target is replaced and the link stays a link. A file with
more than one hard link is refused (a WriteError, the file untouched): replacing it
would leave the other names holding the old bytes, and writing in place would give up
the atomic replace that makes a crash harmless; a symlink shares a note safely. A write that
fails (disk full, permissions, read-only file system) is a WriteError; the temp file is
removed and the original is intact. A process killed mid-write leaves at most a temp
file named ``.orgrouter-tmp-PID-*``; the next commit in that directory removes those
whose process is gone (:func:`clean_stale_temps`).
"""

from __future__ import annotations

import contextlib
import enum
import errno
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass

from orgrouter.errors import ConflictError, OrgRouterError, WriteError
from orgrouter.io.text import Snapshot

TEMP_PREFIX = ".orgrouter-tmp-"
# The reasons a run's report gives for a conflict (Emacs locks a file while its buffer
# has unsaved changes, and removes the lock when it is saved or reverted).
EMACS_LOCKED = "open in Emacs with unsaved changes"
CHANGED = "changed while orgrouter was working on it"
_APPEARED = "appeared while being written; not overwritten"


class Status(enum.Enum):
    """What happened to one staged file."""

    WRITTEN = "written"
    REMOVED = "removed"
    UNCHANGED = "unchanged"  # the bytes were already right: nothing written
    CONFLICT = "conflict"  # changed since read, locked by Emacs, or already exists
    FAILED = "failed"  # could not be written; the original is intact
    SKIPPED = "skipped"  # not attempted: another file conflicted (all_or_nothing)


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """The result of committing one staged file."""

    path: str  # as the caller staged it
    status: Status
    error: OrgRouterError | None = None

    @property
    def ok(self) -> bool:
        """Return whether the file now holds the staged bytes."""
        return self.status in (Status.WRITTEN, Status.REMOVED, Status.UNCHANGED)


@dataclass(frozen=True, slots=True)
class _Staged:
    """One write waiting for commit."""

    path: str
    data: bytes
    snapshot: Snapshot | None = None  # replace: the file as read
    expect_sha256: str | None = None  # replace: what the file must hold now
    create: bool = False  # the file must not exist
    mode: int | None = None  # for a new file; None: 0o666 less the umask
    mkdirp: bool = False
    delete: bool = False  # remove the file (holding expect_sha256) instead


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def emacs_lock(path: str) -> str | None:
    """Return the Emacs lock file (``.#NAME``) beside ``path`` or its target, if any."""
    candidates = [path, os.path.realpath(path)]
    for candidate in candidates:
        head, name = os.path.split(candidate)
        lock = os.path.join(head, ".#" + name)
        # Emacs makes the lock a dangling symlink (user@host.pid), so test the link.
        if os.path.lexists(lock):
            return lock
    return None


def pid_alive(pid: int) -> bool:
    """Return whether a process ``pid`` exists (one of another user's counts too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def clean_stale_temps(directory: str | os.PathLike[str]) -> list[str]:
    """Remove temp files left in ``directory`` by orgrouter processes that have died."""
    removed: list[str] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(TEMP_PREFIX):
            continue
        pid_text = name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or pid_alive(int(pid_text)):
            continue
        path = os.path.join(directory, name)
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed.append(path)
    return removed


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        # Some file systems cannot fsync a directory; the replace itself has happened.
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _write_error(path: str, exc: OSError) -> WriteError:
    reasons = {
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EFBIG: "file too large for this file system or limit",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.EROFS: "read-only file system",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return WriteError(f"cannot write: {reason}; the original is unchanged", path=path)


class Transaction:
    """Stage file writes, then commit each atomically after checking it is unchanged."""

    def __init__(self) -> None:
        self._staged: list[_Staged] = []

    def replace(
        self,
        target: Snapshot | str | os.PathLike[str],
        data: bytes,
        *,
        expect_sha256: str | None = None,
    ) -> None:
        """Stage new bytes for a file read as ``target`` (or holding ``expect_sha256``)."""
        if isinstance(target, Snapshot):
            self._staged.append(_Staged(target.path, data, target))
            return
        if expect_sha256 is None:
            raise ValueError("replace() of a path needs expect_sha256 (or pass a Snapshot)")
        path = os.fspath(target)
        self._staged.append(_Staged(path, data, expect_sha256=expect_sha256))

    def create(
        self,
        path: str | os.PathLike[str],
        data: bytes,
        *,
        mode: int | None = None,
        mkdirp: bool = False,
    ) -> None:
        """Stage a new file that must not exist yet (its parents made when ``mkdirp``)."""
        self._staged.append(_Staged(os.fspath(path), data, create=True, mode=mode, mkdirp=mkdirp))

    def delete(self, path: str | os.PathLike[str], *, expect_sha256: str) -> None:
        """Stage removing a file that must still hold ``expect_sha256`` (a link itself)."""
        self._staged.append(_Staged(os.fspath(path), b"", expect_sha256=expect_sha256, delete=True))

    def commit(self, *, all_or_nothing: bool = False) -> list[FileOutcome]:
        """Write every staged file; with ``all_or_nothing``, none if any fails its check.

        The checks (locks, conflicts) all run before the first write. A write that
        then fails (disk full) cannot undo the ones before it; its outcome says so.
        """
        staged, self._staged = self._staged, []
        checked = [(item, *self._check(item)) for item in staged]
        if all_or_nothing and any(o is not None and not o.ok for _, o, _ in checked):
            return [o or FileOutcome(i.path, Status.SKIPPED) for i, o, _ in checked]
        return [o or self._write(i, current) for i, o, current in checked]

    def _check(self, item: _Staged) -> tuple[FileOutcome | None, os.stat_result | None]:
        """Return the outcome if ``item`` is settled without writing, and the file's stat."""
        if item.snapshot is not None and item.data == item.snapshot.data:
            return FileOutcome(item.path, Status.UNCHANGED), None
        try:
            current = self._verify(item)
        except ConflictError as exc:
            return FileOutcome(item.path, Status.CONFLICT, exc), None
        except WriteError as exc:
            return FileOutcome(item.path, Status.FAILED, exc), None
        except OSError as exc:
            error = WriteError(f"cannot check the file: {exc.strerror}", path=item.path)
            return FileOutcome(item.path, Status.FAILED, error), None
        expected = None if item.delete else item.expect_sha256
        if expected is not None and _sha256(item.data) == expected:
            return FileOutcome(item.path, Status.UNCHANGED), None
        return None, current

    @staticmethod
    def _delete(item: _Staged) -> FileOutcome:
        """Remove a checked file."""
        try:
            os.unlink(item.path)
            _fsync_dir(os.path.dirname(os.path.abspath(item.path)))
        except OSError as exc:
            return FileOutcome(item.path, Status.FAILED, _write_error(item.path, exc))
        return FileOutcome(item.path, Status.REMOVED)

    def _verify(self, item: _Staged) -> os.stat_result | None:
        """Raise ConflictError unless ``item`` may be written; return the file's stat."""
        lock = emacs_lock(item.path)
        if lock is not None:
            raise ConflictError(
                f"Emacs is editing this file (lock {os.path.basename(lock)}); "
                "skipped, it will be picked up by the next run",
                reason=EMACS_LOCKED,
                path=item.path,
            )
        if item.create:
            if os.path.lexists(item.path):
                raise ConflictError("already exists; not overwritten", path=item.path)
            return None
        snapshot = item.snapshot
        if snapshot is not None and os.path.realpath(item.path) != snapshot.real_path:
            raise ConflictError("the symlink points elsewhere since it was read", path=item.path)
        try:
            with open(item.path, "rb") as handle:
                current = os.fstat(handle.fileno())
                stamp = (current.st_size, current.st_mtime_ns)
                if snapshot is not None and stamp != (snapshot.size, snapshot.mtime_ns):
                    raise _changed(item.path, "since it was read")
                if current.st_nlink > 1 and not item.delete:
                    raise _hard_linked(item.path, current.st_nlink)
                # In pieces: a 60 MB note's bytes held a third time (the snapshot's, the
                # new ones) took its write 60 MB past the 2 x its size + 60 MB limit.
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
        except FileNotFoundError:
            raise ConflictError(
                "was removed since it was read; not written", path=item.path
            ) from None
        if digest != (snapshot.sha256 if snapshot is not None else item.expect_sha256):
            raise _changed(item.path, "since it was read")
        return current

    def _write(self, item: _Staged, current: os.stat_result | None) -> FileOutcome:
        """Write one checked item through a temp file; return its outcome."""
        if item.delete:
            return self._delete(item)
        target = os.path.realpath(item.path)
        directory = os.path.dirname(target) or "."
        if item.mkdirp:
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as exc:
                return FileOutcome(item.path, Status.FAILED, _write_error(item.path, exc))
        elif not os.path.isdir(directory):
            error = WriteError(
                f"directory {directory} does not exist (not created without mkdirp)",
                path=item.path,
            )
            return FileOutcome(item.path, Status.FAILED, error)
        clean_stale_temps(directory)
        temp = os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}")
        try:
            self._write_temp(temp, item, current)
            if item.create:
                self._link_new(temp, target, item.path)
            else:
                self._recheck(item, target, current)
                os.replace(temp, target)
            _fsync_dir(directory)
        except OrgRouterError as exc:
            _remove(temp)
            status = Status.CONFLICT if isinstance(exc, ConflictError) else Status.FAILED
            return FileOutcome(item.path, status, exc)
        except OSError as exc:
            _remove(temp)
            return FileOutcome(item.path, Status.FAILED, _write_error(item.path, exc))
        except BaseException:
            _remove(temp)
            raise
        return FileOutcome(item.path, Status.WRITTEN)

    @staticmethod
    def _write_temp(temp: str, item: _Staged, current: os.stat_result | None) -> None:
        """Write, chmod and fsync the temp file."""
        # 0o666 less the umask for a new file, like any editor; 0o600 until the mode of
        # the file it replaces is copied, so no one else can read it half written.
        initial = 0o666 if item.create and item.mode is None else 0o600
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, initial)
        try:
            if current is not None:
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, current.st_uid, current.st_gid)
                os.fchmod(fd, stat.S_IMODE(current.st_mode))
            elif item.mode is not None:
                os.fchmod(fd, item.mode)
            view = memoryview(item.data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _recheck(item: _Staged, target: str, checked: os.stat_result | None) -> None:
        """Raise ConflictError if the file changed while the temp file was written."""
        if checked is None:
            return
        try:
            now = os.stat(target)
        except FileNotFoundError:
            raise ConflictError(
                "was removed while being written; not written", path=item.path
            ) from None
        # The hash was checked against this size and mtime a moment ago.
        if (now.st_size, now.st_mtime_ns) != (checked.st_size, checked.st_mtime_ns):
            raise _changed(item.path, "while being written")
        if now.st_nlink > 1:  # linked while the temp file was written
            raise _hard_linked(item.path, now.st_nlink)
        if emacs_lock(item.path) is not None:
            raise ConflictError(
                "Emacs started editing this file; not written", reason=EMACS_LOCKED,
                path=item.path,
            )  # fmt: skip

    @staticmethod
    def _link_new(temp: str, target: str, path: str) -> None:
        """Put a new file in place, refusing to clobber one that appeared meanwhile."""
        try:
            os.link(temp, target)
        except FileExistsError:
            raise ConflictError(_APPEARED, path=path) from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise
            # No hard links on this file system: the check-then-replace is the best left.
            if os.path.lexists(target):
                raise ConflictError(_APPEARED, path=path) from None
            os.replace(temp, target)
            return
        os.unlink(temp)


def _changed(path: str, when: str) -> ConflictError:
    """Return the conflict of a file that changed under us (the report's CHANGED reason)."""
    return ConflictError(f"changed {when}; not written", reason=CHANGED, path=path)


def _hard_linked(path: str, links: int) -> WriteError:
    """Return the refusal to write a file that has other hard links."""
    return WriteError(
        f"has {links} hard links; orgrouter replaces a file to write it safely, which "
        "would cut this name off from the others, so it is not written (share the "
        "file through a symlink instead)",
        path=path,
    )


def _remove(path: str) -> None:
    # Best effort: where the temp file could not even be created (read-only file
    # system) there is nothing to remove, and a failure here must not hide the cause.
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_snapshot(snapshot: Snapshot, data: bytes) -> FileOutcome:
    """Commit new bytes for one file read as ``snapshot``; a shorthand for one write."""
    transaction = Transaction()
    transaction.replace(snapshot, data)
    return transaction.commit()[0]
