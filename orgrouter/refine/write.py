"""Write rules files for approve and rollback, through the project's one transaction."""

from __future__ import annotations

import hashlib
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

    transaction = Transaction()
    for change in changes:
        if change.expected is None:
            if change.new is None:
                raise ValueError(f"nothing to remove: {change.path} is expected absent")
            transaction.create(change.path, change.new, mkdirp=True)
            continue
        expected = hashlib.sha256(change.expected).hexdigest()
        if change.new is None:
            # Rolling back a copy refine created removes it, if it holds what refine wrote.
            transaction.delete(change.path, expect_sha256=expected)
        else:
            transaction.replace(change.path, change.new, expect_sha256=expected)
    failed = [outcome for outcome in transaction.commit(all_or_nothing=True) if not outcome.ok]
    if failed:
        first = failed[0]
        raise first.error or ConflictError(
            f"not written ({first.status.value}); nothing was written", path=first.path
        )
