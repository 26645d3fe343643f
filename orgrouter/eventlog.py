"""Events of a run: JSON lines in ``--log FILE`` and rows in the state database.

An event is a name plus ids, counts and durations: never note content. That is
enforced, not just documented: field names must be known id fields or end in a
suffix that says they are a count, a duration or an id, and string values must be
short single lines, so an instruction or a model answer cannot slip into a log that
cron mails or a user shares in a bug report.

Each line is written with one ``write`` on an ``O_APPEND`` descriptor, so lines from
concurrent runs (over different roots) never interleave.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from orgrouter.errors import OrgRouterError, StateError
from orgrouter.state import StateDB

SCHEMA = "events"
SCHEMA_VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    run TEXT NOT NULL,
    event TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_time ON events (time);
"""
KEEP_DAYS = 30  # a run every minute writes a few rows; a month is plenty to debug

Value = int | float | bool | str | None
# Fields that are ids, then counts (a run's report counts among them).
ID_FIELDS = frozenset({
    "path", "line", "root", "file", "skill", "intent", "request", "status", "reason", "error",
    "code", "mode", "backend", "command", "version", "hash", "kind",
    "scanned", "cached", "requests_routed", "results_written", "changed", "unchanged",
    "skipped", "failed", "files", "requests", "results", "intents",
})  # fmt: skip
ID_SUFFIXES = ("_id", "_ids", "_count", "_ms", "_s", "_bytes", "_hash", "_code")
MAX_STRING = 300
# A note's path is the user's own name, as long as the file system lets it be (JSON
# escapes a newline in it, so the line stays one): a run must not fail on one.
PATH_FIELDS, MAX_PATH = frozenset({"path", "root", "file"}), 4096


def new_run_id() -> str:
    """Return a fresh id for a run (time-ordered prefix, random suffix)."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{os.urandom(4).hex()}"  # uuid: +2 ms of imports


def _check(event: str, fields: dict[str, Value]) -> None:
    """Refuse fields that could carry note content (see the module docstring)."""
    for name, value in fields.items():
        if not (name in ID_FIELDS or name.endswith(ID_SUFFIXES)):
            raise ValueError(
                f"event {event!r}: field {name!r} is not an id, count or duration field"
            )
        if name in PATH_FIELDS and isinstance(value, str) and len(value) <= MAX_PATH:
            continue
        if isinstance(value, str) and (len(value) > MAX_STRING or "\n" in value):
            raise ValueError(f"event {event!r}: field {name!r} is too long to be an id")
        if not isinstance(value, int | float | bool | str | type(None)):
            raise ValueError(f"event {event!r}: field {name!r} must be a scalar")


class EventLog:
    """Where a run's events go: a JSON-lines file, the state DB, both, or neither."""

    def __init__(
        self,
        *,
        run_id: str | None = None,
        log_path: str | os.PathLike[str] | None = None,
        db: StateDB | None = None,
    ) -> None:
        self.run_id = run_id or new_run_id()
        self.db = db
        self.log_path = None if log_path is None else Path(log_path)
        self.started = time.monotonic()
        self._fd: int | None = None
        if self.log_path is not None:
            try:
                if self.log_path.parent != Path():
                    self.log_path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(
                    self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644
                )
            except OSError as error:
                raise OrgRouterError(
                    f"cannot open the log file: {error.strerror or error}", path=self.log_path
                ) from error
        if db is not None:
            db.ensure_schema(SCHEMA, SCHEMA_VERSION, DDL)
        self._rows: list[tuple[str, str, str, str]] = []

    def emit(self, event: str, **fields: Value) -> None:
        """Record one event with id, count and duration fields (never content)."""
        _check(event, fields)
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record: dict[str, Value] = {"event": event, "time": now, "run": self.run_id, **fields}
        if self._fd is not None:
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
            try:
                os.write(self._fd, line.encode("utf-8"))
            except OSError as error:
                raise OrgRouterError(
                    f"cannot write the log file: {error.strerror or error}", path=self.log_path
                ) from error
        if self.db is not None:
            data = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
            self._rows.append((now, self.run_id, event, data))

    def elapsed_ms(self) -> int:
        """Return milliseconds since this log was opened (the run's duration so far)."""
        return int((time.monotonic() - self.started) * 1000)

    def flush(self) -> None:
        """Write buffered events to the state database in one transaction; prune old ones."""
        if self.db is None or not self._rows:
            return
        cutoff = datetime.fromtimestamp(time.time() - KEEP_DAYS * 86400, UTC).isoformat()
        try:
            with self.db.transaction() as conn:
                conn.executemany(
                    "INSERT INTO events (time, run, event, data) VALUES (?, ?, ?, ?)", self._rows
                )
                conn.execute("DELETE FROM events WHERE time < ?", (cutoff,))
        except OrgRouterError:
            raise
        except Exception as error:  # sqlite3.Error: the DB went away mid-run
            raise StateError(f"cannot record events: {error}", path=self.db.path) from error
        self._rows.clear()

    def close(self) -> None:
        """Flush to the database and close the log file."""
        try:
            self.flush()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
