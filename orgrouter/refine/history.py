"""Requests routed since the last refinement run, read from the router's table.

The router records each routed request in the state database (``orgrouter.route.history``
defines the outcomes). Refine reads only the ones that say routing went wrong or was
unsure: a clarification (the gate was below ``min_confidence``, or a skill asked), a
veto (the guardian rejected it, or no skill took an intent), or a result the user
corrected by hand. It reads them by row id after a
cursor, so a second run right after finds nothing new. Where the router's table is
not there (an older or fresh database), history is simply unavailable.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

TABLE = "route_requests"
# The outcomes worth a finding, as the router records them.
FINDING_OUTCOMES = ("clarification", "vetoed", "corrected")


@dataclass(frozen=True)
class HistoryFinding:
    """One routed request worth refining: its id and what went wrong."""

    request_id: int
    outcome: str

    def to_json(self) -> dict[str, object]:
        """Return the finding as stored with the run (ids only, no note text)."""
        return {
            "key": f"request:{self.request_id}",
            "kind": self.outcome,
            "request": self.request_id,
        }


@dataclass(frozen=True)
class History:
    """What the router's table held after the cursor."""

    available: bool
    findings: tuple[HistoryFinding, ...]
    cursor: int | None  # the highest row id read, to start after next time
    scanned: int


def read_history(conn: sqlite3.Connection, after: int | None) -> History:
    """Return the routed requests after row ``after`` that are findings."""
    columns = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({TABLE})")}
    if not columns or "id" not in columns or "outcome" not in columns:
        return History(available=False, findings=(), cursor=after, scanned=0)
    rows = conn.execute(
        f"SELECT id, outcome FROM {TABLE} WHERE id > ? ORDER BY id", (after or 0,)
    ).fetchall()
    findings = tuple(
        HistoryFinding(int(row[0]), str(row[1])) for row in rows if row[1] in FINDING_OUTCOMES
    )
    cursor = int(rows[-1][0]) if rows else after
    return History(available=True, findings=findings, cursor=cursor, scanned=len(rows))
