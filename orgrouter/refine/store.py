"""Refinement runs, the accepted baseline and applied versions, in the state database.

Versions keep the exact bytes each approval replaced and wrote, so a rollback is a
restore, not a re-derivation. (They live in the state database, beside the runs they
answer; ``orgrouter state reset`` forgets them along with the runs.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from orgrouter.errors import UsageError
from orgrouter.refine.score import Scores
from orgrouter.state import StateDB

SCHEMA = "refine"
VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS refine_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    full INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    scores TEXT NOT NULL,
    findings TEXT NOT NULL,
    history_cursor INTEGER,
    gate TEXT,
    version INTEGER
);
CREATE TABLE IF NOT EXISTS refine_baseline (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    fingerprint TEXT NOT NULL,
    scores TEXT NOT NULL,
    accepted TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refine_seen (
    key TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS refine_versions (
    version INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL,
    created TEXT NOT NULL,
    status TEXT NOT NULL,
    baseline_before TEXT,
    baseline_after TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refine_version_files (
    version INTEGER NOT NULL,
    file TEXT NOT NULL,
    before BLOB,
    after BLOB NOT NULL,
    PRIMARY KEY (version, file)
)
"""

_RUN_SELECT = (
    "SELECT id, status, created, updated, full, fingerprint, scores, findings,"
    " history_cursor, gate, version FROM refine_runs"
)

COMPLETED = "completed"
AWAITING = "awaiting_approval"
REJECTED = "rejected"
APPLIED = "applied"
ROLLED_BACK = "rolled_back"


@dataclass(frozen=True)
class Run:
    """One refinement run as recorded."""

    id: int
    status: str
    created: str
    updated: str
    full: bool
    fingerprint: str
    scores: Scores
    findings: list[dict[str, Any]]
    history_cursor: int | None
    gate: dict[str, Any] | None
    version: int | None


@dataclass(frozen=True)
class Baseline:
    """The accepted scores and the fingerprint of the rules they were measured on."""

    fingerprint: str
    scores: Scores
    accepted: str

    def dumps(self) -> str:
        """Return the baseline as JSON text (kept with each version)."""
        return json.dumps({**vars(self), "scores": self.scores.to_json()}, sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> Baseline:
        """Rebuild a baseline from ``dumps`` output."""
        data = json.loads(text)
        return cls(data["fingerprint"], Scores.from_json(data["scores"]), data["accepted"])


@dataclass(frozen=True)
class Version:
    """One applied change: the bytes before and after, per file."""

    version: int
    run_id: int
    created: str
    status: str
    baseline_before: Baseline | None
    baseline_after: Baseline
    files: dict[str, tuple[bytes | None, bytes]]


class RefineStore:
    """The refine tables of one state database."""

    def __init__(self, db: StateDB) -> None:
        db.ensure_schema(SCHEMA, VERSION, DDL)
        self.db = db

    def add_run(
        self,
        *,
        now: str,
        full: bool,
        fingerprint: str,
        scores: Scores,
        findings: list[dict[str, Any]],
        history_cursor: int | None,
        seen: set[str],
    ) -> int:
        """Record a completed run and the findings seen so far; return its id."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO refine_runs (status, created, updated, full, fingerprint, scores,"
                " findings, history_cursor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    COMPLETED,
                    now,
                    now,
                    int(full),
                    fingerprint,
                    scores.dumps(),
                    json.dumps(findings, sort_keys=True),
                    history_cursor,
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            conn.execute("DELETE FROM refine_seen")
            conn.executemany(
                "INSERT INTO refine_seen (key, run_id) VALUES (?, ?)",
                [(key, run_id) for key in sorted(seen)],
            )
        return run_id

    def seen(self) -> set[str]:
        """Return the keys of findings earlier runs reported."""
        return {str(row[0]) for row in self.db.conn.execute("SELECT key FROM refine_seen")}

    def last_cursor(self) -> int | None:
        """Return the routed-request cursor of the latest run, if any."""
        row = self.db.conn.execute(
            "SELECT history_cursor FROM refine_runs WHERE history_cursor IS NOT NULL"
            " ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else int(row[0])

    def get(self, run_id: int) -> Run:
        """Return run ``run_id``; a missing run is a usage error."""
        row = self.db.conn.execute(_RUN_SELECT + " WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise UsageError(f"no refinement run {run_id} (see `orgrouter refine status`)")
        return _run(row)

    def runs(self, limit: int = 20) -> list[Run]:
        """Return the latest runs, newest first."""
        rows = self.db.conn.execute(_RUN_SELECT + " ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_run(row) for row in rows]

    def set_status(
        self, run_id: int, status: str, now: str, gate: dict[str, Any] | None = None
    ) -> None:
        """Move run ``run_id`` to ``status``, recording a gate's outcome when given."""
        gate_text = None if gate is None else json.dumps(gate, sort_keys=True)
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE refine_runs SET status = ?, gate = coalesce(?, gate), updated = ?"
                " WHERE id = ?",
                (status, gate_text, now, run_id),
            )

    def baseline(self) -> Baseline | None:
        """Return the accepted baseline, if one was accepted."""
        row = self.db.conn.execute(
            "SELECT fingerprint, scores, accepted FROM refine_baseline WHERE id = 1"
        ).fetchone()
        return None if row is None else Baseline(str(row[0]), Scores.loads(row[1]), str(row[2]))

    def accept_baseline(self, baseline: Baseline) -> None:
        """Make ``baseline`` the accepted one."""
        with self.db.transaction() as conn:
            _put_baseline(conn, baseline)

    def add_version(
        self,
        *,
        run_id: int,
        now: str,
        files: dict[str, tuple[bytes | None, bytes]],
        baseline_before: Baseline | None,
        baseline_after: Baseline,
    ) -> int:
        """Record an applied change, accept its baseline, mark the run applied."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO refine_versions (run_id, created, status, baseline_before,"
                " baseline_after) VALUES (?, ?, ?, ?, ?)",
                (
                    run_id,
                    now,
                    APPLIED,
                    None if baseline_before is None else baseline_before.dumps(),
                    baseline_after.dumps(),
                ),
            )
            version = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO refine_version_files (version, file, before, after)"
                " VALUES (?, ?, ?, ?)",
                [(version, name, before, after) for name, (before, after) in sorted(files.items())],
            )
            conn.execute(
                "UPDATE refine_runs SET status = ?, version = ?, updated = ? WHERE id = ?",
                (APPLIED, version, now, run_id),
            )
            _put_baseline(conn, baseline_after)
        return version

    def versions(self) -> list[Version]:
        """Return every version, oldest first."""
        files: dict[int, dict[str, tuple[bytes | None, bytes]]] = {}
        for version, name, before, after in self.db.conn.execute(
            "SELECT version, file, before, after FROM refine_version_files ORDER BY version, file"
        ):
            files.setdefault(version, {})[name] = (before, after)
        rows = self.db.conn.execute(
            "SELECT version, run_id, created, status, baseline_before, baseline_after"
            " FROM refine_versions ORDER BY version"
        )
        versions = []
        for version, run_id, created, status, before, after in rows:
            baselines = (None if before is None else Baseline.loads(before), Baseline.loads(after))
            found = files.get(version, {})
            versions.append(Version(version, run_id, created, status, *baselines, found))
        return versions

    def roll_back(self, versions: list[int], baseline: Baseline | None, now: str) -> None:
        """Mark ``versions`` rolled back and restore the baseline they replaced."""
        with self.db.transaction() as conn:
            for version in versions:
                conn.execute(
                    "UPDATE refine_versions SET status = ? WHERE version = ?",
                    (ROLLED_BACK, version),
                )
                conn.execute(
                    "UPDATE refine_runs SET status = ?, updated = ? WHERE version = ?",
                    (ROLLED_BACK, now, version),
                )
            if baseline is None:
                conn.execute("DELETE FROM refine_baseline")
            else:
                _put_baseline(conn, baseline)


def _put_baseline(conn: Any, baseline: Baseline) -> None:
    """Replace the accepted baseline row."""
    conn.execute(
        "INSERT OR REPLACE INTO refine_baseline (id, fingerprint, scores, accepted)"
        " VALUES (1, ?, ?, ?)",
        (baseline.fingerprint, baseline.scores.dumps(), baseline.accepted),
    )


def _run(row: Any) -> Run:
    """Build a Run from a refine_runs row (its columns in ``_RUN_SELECT`` order)."""
    scores, findings = Scores.loads(row[6]), json.loads(row[7])
    gate = None if row[9] is None else json.loads(row[9])
    return Run(row[0], row[1], row[2], row[3], bool(row[4]), row[5], scores, findings,
               row[8], gate, row[10])  # fmt: skip
