"""Write rules files for approve and rollback, through the project's one transaction."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from orgrouter.errors import ConflictError


@dataclass(frozen=True)
class FileChange:
    """One rules file to set: what it must hold now (None: absent) and what it becomes."""

    path: Path
    expected: bytes | None
    new: bytes | None  # None: remove the user's copy (the package default shows again)


def commit_changes(changes: list[FileChange]) -> None:
    """Check every file still holds what was expected, then write them all."""
    for change in changes:
        current = change.path.read_bytes() if change.path.is_file() else None
        if current != change.expected:
            raise ConflictError(
                "the file changed since refine read it; nothing was written", path=change.path
            )
    for change in changes:
        if change.new is None:
            _remove(change)
        else:
            _write(change)


def _write(change: FileChange) -> None:
    """Replace or create one file atomically (temp file in its directory, os.replace)."""
    # INTERIM: orgrouter.io.transaction (the write-back engineer's) had not landed when
    # this was written; this is the same protocol in miniature, to be replaced by it.
    import tempfile

    assert change.new is not None
    change.path.parent.mkdir(parents=True, exist_ok=True)
    mode = change.path.stat().st_mode & 0o7777 if change.path.exists() else 0o644
    fd, temp = tempfile.mkstemp(prefix=".orgrouter-", dir=change.path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(change.new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, change.path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _remove(change: FileChange) -> None:
    """Remove a user's copy that refine created, once its bytes are still ours."""
    # The transaction writes; it has no delete. A rollback of a file refine created
    # removes it, after checking once more that it holds the bytes refine wrote.
    if change.path.read_bytes() != change.expected:
        raise ConflictError("the file changed since refine read it", path=change.path)
    os.unlink(change.path)


def _sha(data: bytes) -> str:
    """Return the hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()
