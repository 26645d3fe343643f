"""What orgrouter last wrote to each file besides notes (a table in the state database).

Tangle targets, and any other file a routed skill writes (archive files): the write
policy (``orgrouter.io.policy``) lets a routed request rewrite only a file recorded
here as written from the same note, with the bytes it holds now. A target whose bytes
no longer hash to what we last wrote was edited by hand since: tangling again would
lose that edit, so it is a conflict (``--force`` overrides).
"""

from __future__ import annotations

import hashlib
import time

from orgrouter.state import StateDB

SCHEMA = "tangle"
VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS tangle_targets (
    target TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    source TEXT NOT NULL,
    written_at REAL NOT NULL
)
"""


def digest(data: bytes) -> str:
    """Return the sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


class TargetRecord:
    """Read and update the last-written hashes of tangled targets."""

    def __init__(self, db: StateDB) -> None:
        self.db = db
        db.ensure_schema(SCHEMA, VERSION, DDL)

    def owner(self, target: str) -> tuple[str, str] | None:
        """Return (sha256, source note) of what orgrouter last wrote to ``target``, if any."""
        row = self.db.conn.execute(
            "SELECT sha256, source FROM tangle_targets WHERE target = ?", (target,)
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def remember(self, target: str, data: bytes, source: str) -> None:
        """Record that ``data`` (from ``source``) is now what ``target`` holds."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO tangle_targets (target, sha256, source, written_at)"
                " VALUES (?, ?, ?, ?)",
                (target, digest(data), source, time.time()),
            )
