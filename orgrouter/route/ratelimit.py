"""The spawn rate limit: so many specialist spawns per rolling window, per session.

Kept in the state database so that separate runs (cron every minute, a hand run,
Emacs) share one window. A session is one file's conversation with the agent; the
``orgrouter classify`` command uses a session named by ``--session`` (``cli``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from orgrouter.errors import StateError
from orgrouter.state import StateDB

SCHEMA_NAME = "ratelimit"
SCHEMA_VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS spawn_events (
    session TEXT NOT NULL,
    at REAL NOT NULL,
    count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS spawn_events_session_at ON spawn_events (session, at);
"""
# A clock fixed in the past (ORGROUTER_NOW in tests) must not count later spawns.
_USED = (
    "SELECT COALESCE(SUM(count), 0) FROM spawn_events WHERE session = ? AND at > ? AND at <= ?"
)


@dataclass(frozen=True)
class Grant:
    """The limiter's answer: how many spawns may go ahead, and the window's use."""

    granted: int
    wanted: int
    used: int  # spawns already in the window before this request
    limit: int

    @property
    def limited(self) -> bool:
        """Return whether the request wanted spawns and was refused them."""
        return self.wanted > 0 and self.granted == 0


class RateLimiter:
    """Grant spawns against a rolling window stored in a state database."""

    def __init__(
        self, db: StateDB, *, limit: int = 5, window_s: float = 300.0, record: bool = True
    ) -> None:
        self.db = db
        self.limit = limit
        self.window_s = window_s
        # record=False answers as request() would and stores nothing (classify's query,
        # on a database opened read-only that may not hold the table yet).
        self.record = record
        if record:
            db.ensure_schema(SCHEMA_NAME, SCHEMA_VERSION, DDL)

    def used(self, session: str, now: float) -> int:
        """Return how many spawns ``session`` made in the window ending at ``now``."""
        try:
            if not self.record and not self._has_table():
                return 0  # no spawn was ever recorded here
            row = self.db.conn.execute(_USED, (session, now - self.window_s, now)).fetchone()
        except sqlite3.Error as error:
            raise StateError(f"cannot read the spawn window: {error}", path=self.db.path) from error
        return int(row[0])

    def request(self, session: str, wanted: int, now: float) -> Grant:
        """Record and grant ``wanted`` spawns if they fit the window, else grant none.

        All or nothing: a partial team is not what the gate decided on, so over the
        limit the request is handled directly (seed 000), and the window is untouched.
        """
        if wanted <= 0:
            return Grant(0, 0, 0, self.limit)
        if not self.record:
            used = self.used(session, now)
            return Grant(0 if used + wanted > self.limit else wanted, wanted, used, self.limit)
        try:
            with self.db.transaction() as conn:
                row = conn.execute(_USED, (session, now - self.window_s, now)).fetchone()
                used = int(row[0])
                if used + wanted > self.limit:
                    return Grant(0, wanted, used, self.limit)
                conn.execute(
                    "INSERT INTO spawn_events (session, at, count) VALUES (?, ?, ?)",
                    (session, now, wanted),
                )
                # Old rows can never count again; dropping them keeps the table small.
                conn.execute("DELETE FROM spawn_events WHERE at <= ?", (now - self.window_s,))
        except sqlite3.Error as error:
            raise StateError(f"cannot record spawns: {error}", path=self.db.path) from error
        return Grant(wanted, wanted, used, self.limit)

    def _has_table(self) -> bool:
        row = self.db.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spawn_events'"
        ).fetchone()
        return row is not None
