"""The refine tables in a real state database: runs, baseline, versions, rollback marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.errors import UsageError
from orgrouter.refine.score import CaseOutcome, Scores
from orgrouter.refine.store import (
    APPLIED,
    AWAITING,
    COMPLETED,
    ROLLED_BACK,
    Baseline,
    RefineStore,
)
from orgrouter.state import StateDB

SCORES = Scores({"a": CaseOutcome("a", True), "b": CaseOutcome("b", False, ("intents",))})


@pytest.fixture
def store(tmp_path: Path) -> RefineStore:
    return RefineStore(StateDB.open(tmp_path / "state.sqlite3"))


def add(store: RefineStore, cursor: int | None = None) -> int:
    return store.add_run(
        now="t1",
        full=False,
        fingerprint="fp",
        scores=SCORES,
        findings=[
            {"key": "golden:b:intents", "kind": "golden", "case": "b", "fields": ["intents"]}
        ],
        history_cursor=cursor,
        seen={"golden:b:intents"},
    )


def test_run_round_trip_and_seen(store: RefineStore) -> None:
    run_id = add(store, cursor=7)
    run = store.get(run_id)
    assert (run.id, run.status, run.full, run.fingerprint, run.scores) == (
        run_id,
        COMPLETED,
        False,
        "fp",
        SCORES,
    )
    assert run.findings[0]["case"] == "b"
    assert store.seen() == {"golden:b:intents"}
    assert store.last_cursor() == 7
    add(store)  # a run without history keeps the earlier cursor
    assert store.last_cursor() == 7
    assert [r.id for r in store.runs()] == [run_id + 1, run_id]


def test_missing_run_is_a_usage_error(store: RefineStore) -> None:
    with pytest.raises(UsageError, match="no refinement run 42"):
        store.get(42)


def test_gate_and_versions_and_rollback_marks(store: RefineStore) -> None:
    run_id = add(store)
    store.set_status(run_id, AWAITING, "t2", gate={"edits": []})
    assert store.get(run_id).gate == {"edits": []}
    assert store.baseline() is None
    before = Baseline("fp0", SCORES, "t0")
    store.accept_baseline(before)
    after = Baseline("fp1", Scores({"a": CaseOutcome("a", True)}), "t3")
    version = store.add_version(
        run_id=run_id,
        now="t3",
        files={"verbs.toml": (None, b"new\x00bytes")},
        baseline_before=before,
        baseline_after=after,
    )
    assert store.baseline() == after
    assert store.get(run_id).status == APPLIED
    assert store.get(run_id).version == version
    [stored] = store.versions()
    assert stored.files == {"verbs.toml": (None, b"new\x00bytes")}
    assert (stored.baseline_before, stored.baseline_after) == (before, after)
    store.roll_back([version], before, "t4")
    assert store.versions()[0].status == ROLLED_BACK
    assert store.get(run_id).status == ROLLED_BACK
    assert store.baseline() == before


def test_schema_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with StateDB.open(path) as db:
        run_id = add(RefineStore(db))
    with StateDB.open(path) as db:
        assert RefineStore(db).get(run_id).scores == SCORES
