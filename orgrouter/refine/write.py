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
    """Write (or remove) every file, all or nothing, if each still holds what was expected."""
    from orgrouter.io.transaction import Transaction

    removals = [change for change in changes if change.new is None]
    for change in removals:
        _check_current(change)
    transaction = Transaction()
    for change in changes:
        if change.new is None:
            continue
        if change.expected is None:
            transaction.create(change.path, change.new, mkdirp=True)
        else:
            expected = hashlib.sha256(change.expected).hexdigest()
            transaction.replace(change.path, change.new, expect_sha256=expected)
    failed = [outcome for outcome in transaction.commit(all_or_nothing=True) if not outcome.ok]
    if failed:
        first = failed[0]
        raise first.error or ConflictError(
            f"not written ({first.status.value}); nothing was written", path=first.path
        )
    for change in removals:
        # The transaction writes; it has no delete. Rolling back a file refine created
        # removes it, after checking once more that it holds the bytes refine wrote.
        _check_current(change)
        os.unlink(change.path)


def _check_current(change: FileChange) -> None:
    """Raise ConflictError unless the file holds exactly ``change.expected``."""
    current = change.path.read_bytes() if change.path.is_file() else None
    if current != change.expected:
        raise ConflictError(
            "the file changed since refine read it; nothing was written", path=change.path
        )
