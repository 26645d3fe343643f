"""``refine run``: replay the golden set and read new routing history into findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orgrouter.refine.history import read_history
from orgrouter.refine.score import Scores
from orgrouter.refine.store import Baseline
from orgrouter.refine.tree import fingerprint
from orgrouter.refine.workspace import Workspace


@dataclass(frozen=True)
class RunResult:
    """What one run found, as recorded."""

    run_id: int
    scores: Scores
    findings: list[dict[str, Any]]
    baseline: str  # "kept" | "accepted" | "re-accepted"
    history: str  # "read" | "unavailable"
    history_scanned: int

    def to_json(self) -> dict[str, Any]:
        """Return the result as printed by ``refine run --json``."""
        return {
            "run": self.run_id,
            "status": "completed",
            "cases": self.scores.total,
            "passed": self.scores.passed,
            "score": round(self.scores.score, 6),
            "new_findings": len(self.findings),
            "findings": self.findings,
            "baseline": self.baseline,
            "history": self.history,
            "history_scanned": self.history_scanned,
        }


def rules_fingerprint(ws: Workspace) -> str:
    """Return the fingerprint of the live rules and the golden set together."""
    return fingerprint(ws.tree.live, ws.golden_dir)


def golden_findings(scores: Scores) -> list[dict[str, Any]]:
    """Return a finding for each failing case: its id and the fields that mismatched."""
    return [
        {
            "key": f"golden:{case.case_id}:{','.join(case.mismatched)}",
            "kind": "golden",
            "case": case.case_id,
            "fields": list(case.mismatched),
        }
        for case in scores.failing()
    ]


def run_refinement(ws: Workspace, *, full: bool = False) -> RunResult:
    """Replay the golden set on the live rules, gather new findings, record the run."""
    scores = ws.replay(ws.golden_dir, ws.tree.live, ws.targets)
    print_ = rules_fingerprint(ws)
    now = ws.now()
    baseline = ws.store.baseline()
    if baseline is None:
        state = "accepted"
    elif baseline.fingerprint != print_:
        # The rules or the golden set changed outside refine (by hand): the gate must
        # judge a candidate against what is live now, not against stale scores.
        state = "re-accepted"
    else:
        state = "kept"
    if state != "kept":
        ws.store.accept_baseline(Baseline(print_, scores, now))
    golden = golden_findings(scores)
    seen = set() if full else ws.store.seen()
    history = read_history(ws.db.conn, None if full else ws.store.last_cursor())
    found = [f for f in golden if f["key"] not in seen]
    found += [f.to_json() for f in history.findings if f"request:{f.request_id}" not in seen]
    # Golden findings stay "seen" while they persist; request findings are consumed by
    # the cursor, so only the golden keys need remembering.
    run_id = ws.store.add_run(
        now=now,
        full=full,
        fingerprint=print_,
        scores=scores,
        findings=found,
        history_cursor=history.cursor,
        seen={f["key"] for f in golden},
    )
    ws.emit(
        "refinement_run",
        {
            "run_id": run_id,
            "cases_count": scores.total,
            "passed_count": scores.passed,
            "findings_count": len(found),
            "history_count": history.scanned,
            "mode": "full" if full else "incremental",
        },
    )
    read = "read" if history.available else "unavailable"
    return RunResult(run_id, scores, found, state, read, history.scanned)
