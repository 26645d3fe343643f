"""Record what each real route did to its requests, for ``orgrouter refine`` to read.

One row per request a run routed (``--diff``, ``--check`` and ``--dry-run`` record
nothing), in the state database's ``route_requests`` table: the file (relative to the
notes root), the line, the
request's ``ORGROUTER_HASH``, the outcome, the request's status and counts. Never the
note's text: refine reads ids and outcomes, and the hash stands for the instruction.

Outcomes:

- ``clarification``: the gate was below ``min_confidence`` and asked what was meant,
  or a skill asked for a clarification instead of answering;
- ``vetoed``: the guardian rejected the request (the gate could not classify it), or
  no skill took one of its intents (each one's symbolic stage vetoed it, or none
  triggered), so the kernel answered that nothing could handle it;
- ``corrected``: the user edited a result orgrouter wrote (its ``ORGROUTER_CHECK`` no
  longer matches its text): a misroute fixed by hand. One row per edited result,
  recorded once however often the file is routed again. Approvals (whose keyword the
  user changes on purpose) and archived results (``/compact``) are not corrections;
- ``routed``: anything else.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.errors import StateError
from orgrouter.marks import RESULT_KEY, find_mark
from orgrouter.org.document import Document
from orgrouter.org.drawer import Head
from orgrouter.org.headline import parse_headline
from orgrouter.route.request import instruction_hash
from orgrouter.route.results import CHECK_KEY, KIND_KEY, marked_headlines, result_check

if TYPE_CHECKING:
    from orgrouter.route.pipeline import RequestReport
    from orgrouter.state import StateDB

TABLE = "route_requests"
SCHEMA = "route_history"
VERSION = 1
DDL = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id INTEGER PRIMARY KEY,
    run TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    request_hash TEXT NOT NULL,
    outcome TEXT NOT NULL,
    status TEXT,
    intents INTEGER NOT NULL DEFAULT 0,
    results INTEGER NOT NULL DEFAULT 0,
    result TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS {TABLE}_correction ON {TABLE} (file, result)
    WHERE result IS NOT NULL;
"""


@dataclass(frozen=True)
class RouteRecord:
    """One row of the history: ids, outcome, counts and hashes, no note text."""

    file: str
    line: int  # the request's headline (a corrected result's own headline)
    request_hash: str
    outcome: str
    status: str | None = None  # the request's ORGROUTER_STATUS after the run
    intents: int = 0
    results: int = 0
    result: str | None = None  # a corrected result's ORGROUTER_RESULT


def outcome_of(report: RequestReport) -> str:
    """Return the history outcome of one routed request (see the module docstring)."""
    gate = report.gate or {}
    if gate.get("guardian_decision") == "REJECTED" and gate.get("bypass") is None:
        return "vetoed"
    if gate.get("clarify"):
        return "clarification"
    kinds = [(result.get("skill"), result.get("kind")) for result in report.results]
    if ("kernel", "clarification") in kinds:
        return "vetoed"  # no skill took an intent: the kernel said so
    if any(kind == "clarification" for _, kind in kinds):
        return "clarification"
    return "routed"


def request_records(path: str, reports: Iterable[RequestReport]) -> list[RouteRecord]:
    """Return a record for each request the run routed (unchanged ones are left out)."""
    return [
        RouteRecord(
            file=path,
            line=report.line,
            request_hash=instruction_hash(report.agent, report.instruction),
            outcome=outcome_of(report),
            status=report.status,
            intents=len(report.intents),
            results=len(report.results),
        )
        for report in reports
        if report.status != "unchanged"
    ]


def corrections(path: str, data: bytes, newline: bytes) -> list[RouteRecord]:
    """Return a ``corrected`` record for each result in ``data`` the user has edited."""
    first = find_mark(data)
    if first < 0:
        return []  # no result at all: the common case costs one search
    # One linear headline scan; each result drawer belongs to the headline above it.
    document = Document(data, newline=newline)
    found: dict[str, RouteRecord] = {}
    for index in marked_headlines(document, first):  # none before the first mark
        head = document.head(index)
        identity = head.drawer.get(RESULT_KEY) if head.drawer is not None else None
        if identity is None or identity.value in found or not _edited(data, head):
            continue
        request_hash = identity.value.partition("/")[0]
        found[identity.value] = RouteRecord(
            path, head.headline.line, request_hash, "corrected", result=identity.value
        )
    return list(found.values())


def _edited(data: bytes, head: Head) -> bool:
    """Return whether the user edited this result (an approval or archive is no edit)."""
    drawer = head.drawer
    recorded = drawer.get(CHECK_KEY) if drawer is not None else None
    kind = drawer.get(KIND_KEY) if drawer is not None else None
    if recorded is None or (kind is not None and kind.value == "approval"):
        return False
    line = data[head.headline.begin : head.headline.end].decode("utf-8", "replace")
    if parse_headline(line.rstrip("\r\n")).archived:  # /compact archived it
        return False
    return recorded.value != result_check(data, head)


def record(state: StateDB, run: str, records: Sequence[RouteRecord]) -> int:
    """Add ``records`` to the history under ``run``; return how many rows were new.

    A correction already recorded (same file and result) is not recorded again.
    """
    if not records:
        return 0
    state.ensure_schema(SCHEMA, VERSION, DDL)
    rows = [
        (run, r.file, r.line, r.request_hash, r.outcome, r.status, r.intents, r.results, r.result)
        for r in records
    ]
    try:
        with state.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                f"INSERT OR IGNORE INTO {TABLE} (run, file, line, request_hash, outcome,"
                " status, intents, results, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            return conn.total_changes - before
    except sqlite3.Error as error:
        raise StateError(f"cannot record the route history: {error}", path=state.path) from error


def file_key(path: str, root: Path | None) -> str:
    """Return how the history names a file: relative to the notes root when inside it.

    So a cron run over the tree, a one-file run from Emacs and a run given an absolute
    path all name a note alike, and a correction is recorded once.
    """
    absolute = Path(os.path.abspath(path))
    if root is not None:
        try:
            return absolute.relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            pass  # outside the root: the absolute path is the name
    return absolute.as_posix()


def record_route(
    state: StateDB,
    run: str,
    path: str,
    data: bytes,
    newline: bytes,
    reports: Iterable[RequestReport],
    *,
    root: Path | None = None,
) -> int:
    """Record a routed file: the results the user edited in ``data``, then its requests."""
    name = file_key(path, root)
    return record(state, run, [*corrections(name, data, newline), *request_records(name, reports)])
