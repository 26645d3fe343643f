"""Routed-request history: read after a cursor, so a second run finds nothing new.

The router's table (``route_requests``: ``id`` and ``outcome`` at least) is created
here as the router would; until the router records requests, history is unavailable.
"""

from __future__ import annotations

from orgrouter.refine.history import read_history
from orgrouter.refine.run import run_refinement
from orgrouter.refine.workspace import Workspace


def add_requests(ws: Workspace, *outcomes: str) -> None:
    with ws.db.transaction() as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS route_requests (id INTEGER PRIMARY KEY, file TEXT,"
            " outcome TEXT NOT NULL)"
        )
        conn.executemany(
            "INSERT INTO route_requests (file, outcome) VALUES ('a.org', ?)",
            [(outcome,) for outcome in outcomes],
        )


def test_no_router_table_means_history_unavailable(workspace: Workspace) -> None:
    history = read_history(workspace.db.conn, None)
    assert (history.available, history.findings, history.cursor) == (False, (), None)


def test_new_requests_become_findings_once(workspace: Workspace) -> None:
    add_requests(workspace, "done", "clarification", "vetoed", "done", "corrected")
    first = run_refinement(workspace)
    assert (first.history, first.history_scanned) == ("read", 5)
    assert [f for f in first.findings if f["kind"] != "golden"] == [
        {"key": "request:2", "kind": "clarification", "request": 2},
        {"key": "request:3", "kind": "vetoed", "request": 3},
        {"key": "request:5", "kind": "corrected", "request": 5},
    ]
    second = run_refinement(workspace)
    assert (second.findings, second.history_scanned) == ([], 0)
    add_requests(workspace, "clarification")
    third = run_refinement(workspace)
    assert third.findings == [{"key": "request:6", "kind": "clarification", "request": 6}]
    # --full reads the whole history again.
    full = run_refinement(workspace, full=True)
    assert len([f for f in full.findings if f["kind"] != "golden"]) == 4
