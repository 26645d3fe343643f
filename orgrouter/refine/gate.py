"""``refine gate``: validate a candidate, score it on a clone, judge it (seed 002)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orgrouter.errors import ConfigError, RefusedError, UsageError
from orgrouter.refine.apply import approve_run
from orgrouter.refine.candidate import Candidate
from orgrouter.refine.run import rules_fingerprint
from orgrouter.refine.score import Scores, Verdict, compare, invalid
from orgrouter.refine.store import AWAITING, COMPLETED, REJECTED, Run
from orgrouter.refine.validate import Validation, validate
from orgrouter.refine.workspace import Workspace


@dataclass(frozen=True)
class Scored:
    """One candidate through the gate: what was kept and dropped, and the verdict."""

    candidate: Candidate
    validation: Validation
    scores: Scores | None  # None when every edit was dropped (never cloned)
    verdict: Verdict | None

    def to_json(self) -> dict[str, Any]:
        """Return the gate record kept with the run (and printed by --json)."""
        return {
            "proposer": self.candidate.proposer,
            "rationale": self.candidate.rationale,
            "candidate": self.candidate.to_json(),
            "edits": [edit.to_json() for edit in self.validation.edits],
            "kept": [index + 1 for index, _ in self.validation.kept],
            "dropped": [drop.to_json() for drop in self.validation.dropped],
            "verdict": None if self.verdict is None else self.verdict.to_json(),
            "scores": None if self.scores is None else self.scores.to_json(),
        }


@dataclass(frozen=True)
class GateResult:
    """The gate's outcome for a run: its new status and the chosen candidate."""

    run_id: int
    status: str
    chosen: Scored
    panel: tuple[Scored, ...]
    version: int | None  # set when auto_apply applied it

    def to_json(self) -> dict[str, Any]:
        """Return the result as printed by ``refine gate --json``."""
        return {"run": self.run_id, "status": self.status, **self.chosen.to_json(),
                "candidates": len(self.panel), "version": self.version}  # fmt: skip


def require_write_mode(ws: Workspace) -> None:
    """Refuse unless ``refine.mode`` allows writing (an absent config is report-only)."""
    if ws.refine.mode == "report":
        raise RefusedError(
            'refine.mode is "report" (the default): set mode = "propose" or "auto_apply" '
            "in the [refine] section of orgrouter.toml to gate candidates"
        )
    if ws.tree.live is None:
        raise ConfigError(
            'refine writes to your own rules dir, and none is set: add `dir = "rules"` '
            "to the [rules] section of orgrouter.toml"
        )


def require_completed(ws: Workspace, run: Run) -> None:
    """Refuse a run that is not ``completed``, or whose rules changed since."""
    if run.status != COMPLETED:
        raise RefusedError(
            f"run {run.id} is {run.status}, not completed: start a new one with "
            "`orgrouter refine run`"
        )
    if rules_fingerprint(ws) != run.fingerprint:
        raise RefusedError(
            f"the rules or the golden set changed since run {run.id}: start a new one "
            "with `orgrouter refine run`"
        )


def score(ws: Workspace, candidate: Candidate, tolerance: float) -> Scored:
    """Validate ``candidate``, apply it to a temp clone, replay and compare."""
    validation = validate(candidate, ws.tree, ws.refine.files)
    if not validation.kept:
        return Scored(candidate, validation, None, None)
    baseline = ws.store.baseline()
    if baseline is None:
        raise RefusedError("no accepted baseline yet: run `orgrouter refine run` first")
    with tempfile.TemporaryDirectory(prefix="orgrouter-refine-") as tmp:
        clone = ws.tree.clone(Path(tmp) / "rules")
        for rel, data in validation.results.items():
            target = clone / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            # The clone is scratch space, thrown away below: not a rules file to protect.
            target.write_bytes(data)
        try:
            scores = ws.replay(ws.golden_dir, clone, ws.targets)
        except ConfigError as error:
            # The edit broke a table (bad TOML, a verb listed twice): a rejection with
            # the loader's message, never a crash and never a pass.
            detail = str(error).replace(str(clone), "<clone>")
            empty = Scores({})
            return Scored(candidate, validation, empty, invalid(baseline.scores, detail, tolerance))
    return Scored(candidate, validation, scores, compare(baseline.scores, scores, tolerance))


def best(entries: list[Scored]) -> Scored:
    """Return the best passing entry (score, then fewest edits), else the best refusal."""

    def rank(entry: Scored) -> tuple[int, float, int]:
        passed = entry.verdict is not None and entry.verdict.passed
        value = -1.0 if entry.verdict is None else entry.verdict.score
        return (int(passed), value, -len(entry.validation.kept))

    return max(entries, key=rank)


def gate_run(
    ws: Workspace,
    run_id: int,
    candidates: list[Candidate] | None,
    *,
    tolerance: float | None = None,
) -> GateResult:
    """Gate ``candidates`` (one given, or the proposer panel's) against run ``run_id``."""
    require_write_mode(ws)
    run = ws.store.get(run_id)
    require_completed(ws, run)
    if not candidates:
        raise UsageError("give a candidate with --candidate FILE, or pass --propose")
    limit = ws.refine.tolerance if tolerance is None else tolerance
    if limit < 0:
        raise UsageError(f"--tolerance must be 0 or more, not {limit}")
    entries = [score(ws, candidate, limit) for candidate in candidates]
    if all(entry.scores is None for entry in entries):
        reasons = "; ".join(
            f"edit {drop.index + 1} ({drop.file}): {drop.reason}: {drop.detail}"
            for entry in entries
            for drop in entry.validation.dropped
        )
        raise RefusedError(f"every edit was dropped, nothing to gate: {reasons}")
    chosen = best([entry for entry in entries if entry.scores is not None])
    assert chosen.verdict is not None and chosen.scores is not None
    status = AWAITING if chosen.verdict.passed else REJECTED
    record = chosen.to_json()
    record["candidates"] = len(entries)
    ws.store.set_status(run_id, status, ws.now(), gate=record)
    ws.emit(
        "refinement_gated",
        {
            "run_id": run_id,
            "status": status,
            "reason": chosen.verdict.reason,
            "cases_count": chosen.scores.total,
            "passed_count": chosen.scores.passed,
            "regressions_count": len(chosen.verdict.regressions),
            "fixed_count": len(chosen.verdict.fixed),
            "edits_count": len(chosen.validation.kept),
            "dropped_count": len(chosen.validation.dropped),
            "candidates_count": len(entries),
        },
    )
    version = None
    if (
        chosen.verdict.passed
        and ws.refine.mode == "auto_apply"
        and len(chosen.validation.kept) <= ws.refine.auto_apply_max_edits
    ):
        # The same path as a human approval: re-check, versioned write, same event.
        version = approve_run(ws, run_id, auto=True)
        status = "applied"
    return GateResult(run_id, status, chosen, tuple(entries), version)
