"""Plain-text renderings of refine results, for the terminal."""

from __future__ import annotations

from typing import Any

from orgrouter.refine.gate import GateResult
from orgrouter.refine.run import RunResult
from orgrouter.refine.workspace import Workspace
from orgrouter.report import plural


def render_run(result: RunResult) -> str:
    """Return the summary ``refine run`` prints."""
    scores = result.scores
    lines = [
        f"run {result.run_id}: completed; {scores.passed}/{scores.total} golden cases pass "
        f"(score {scores.score:.4f}); {plural(len(result.findings), 'new finding')}; "
        f"baseline {result.baseline}"
    ]
    if result.history == "unavailable":
        lines.append("  routed requests: none recorded in the state database yet")
    else:
        lines.append(f"  routed requests read since the last run: {result.history_scanned}")
    for finding in result.findings:
        if finding["kind"] == "golden":
            lines.append(f"  golden case {finding['case']}: {', '.join(finding['fields'])}")
        else:
            lines.append(f"  request {finding['request']}: {finding['kind']}")
    return "\n".join(lines)


def render_gate(result: GateResult) -> str:
    """Return the summary ``refine gate`` prints."""
    chosen = result.chosen
    verdict = chosen.verdict
    assert verdict is not None and chosen.scores is not None
    lines = [
        f"run {result.run_id}: {result.status}; score {verdict.score:.4f} vs baseline "
        f"{verdict.baseline_score:.4f} (tolerance {verdict.tolerance:g}); "
        f"{len(verdict.fixed)} fixed, {len(verdict.regressions)} regressed; "
        f"{plural(len(chosen.validation.kept), 'edit')} kept, "
        f"{len(chosen.validation.dropped)} dropped"
    ]
    if chosen.candidate.proposer:
        lines.append(
            f"  proposer: {chosen.candidate.proposer}"
            + (f" (best of {len(result.panel)})" if len(result.panel) > 1 else "")
        )
    for drop in chosen.validation.dropped:
        lines.append(f"  dropped edit {drop.index + 1} ({drop.file}): {drop.reason}: {drop.detail}")
    if verdict.fixed:
        lines.append(f"  fixed: {', '.join(verdict.fixed)}")
    if verdict.reason == "invalid":
        lines.append(f"  rejected: the edited rules do not load: {verdict.detail}")
    elif verdict.regressions:
        lines.append(f"  regressions: {', '.join(verdict.regressions)}")
    if verdict.reason == "score":
        lines.append("  rejected: the score fell below the baseline minus the tolerance")
    if result.status == "awaiting_approval":
        lines.append(
            f"  approve with `orgrouter refine approve {result.run_id}`, "
            f"or `orgrouter refine reject {result.run_id}`"
        )
    if result.version is not None:
        lines.append(f"  applied at once (auto_apply) as version {result.version}")
    return "\n".join(lines)


def status_json(ws: Workspace, run_id: int | None) -> dict[str, Any]:
    """Return the runs and versions (or one run) as ``refine status --json`` prints."""
    versions = [
        {
            "version": v.version,
            "run": v.run_id,
            "created": v.created,
            "status": v.status,
            "files": sorted(v.files),
        }
        for v in ws.store.versions()
    ]
    baseline = ws.store.baseline()
    base: dict[str, Any] | None = None
    if baseline is not None:
        scores = baseline.scores
        base = {"passed": scores.passed, "total": scores.total, "score": round(scores.score, 6)}
        base["accepted"] = baseline.accepted
    if run_id is not None:
        run = ws.store.get(run_id)
        return {
            "run": run.id,
            "status": run.status,
            "created": run.created,
            "updated": run.updated,
            "full": run.full,
            "cases": run.scores.total,
            "passed": run.scores.passed,
            "findings": run.findings,
            "gate": run.gate,
            "version": run.version,
            "mode": ws.refine.mode,
            "baseline": base,
        }
    runs = [
        {
            "run": run.id,
            "status": run.status,
            "created": run.created,
            "cases": run.scores.total,
            "passed": run.scores.passed,
            "findings": len(run.findings),
            "version": run.version,
        }
        for run in ws.store.runs()
    ]
    return {"mode": ws.refine.mode, "baseline": base, "runs": runs, "versions": versions}


def render_status(data: dict[str, Any]) -> str:
    """Return ``refine status`` as text."""
    base = data["baseline"]
    head = f"mode: {data['mode']}; baseline: " + (
        "none yet (run `orgrouter refine run`)"
        if base is None
        else f"{base['passed']}/{base['total']} (score {base['score']:.4f}) "
        f"accepted {base['accepted']}"
    )
    if "runs" not in data:
        lines = [
            head,
            f"run {data['run']}: {data['status']} (created {data['created']}, "
            f"updated {data['updated']}); {data['passed']}/{data['cases']} cases pass; "
            f"{len(data['findings'])} findings",
        ]
        gate = data["gate"]
        if gate is not None:
            verdict = gate["verdict"]
            lines.append(
                f"  gate: {'passed' if verdict['passed'] else 'rejected'}; score "
                f"{verdict['score']:.4f} vs {verdict['baseline_score']:.4f}; "
                f"{plural(len(gate['edits']), 'edit')}, {len(gate['dropped'])} dropped"
            )
            for edit in gate["edits"]:
                lines.append(
                    f"    {edit['op']} in {edit['file']}: {edit['before']!r} -> {edit['after']!r}"
                )
        if data["version"] is not None:
            lines.append(f"  version: {data['version']}")
        return "\n".join(lines)
    lines = [head]
    if not data["runs"]:
        lines.append("no runs yet")
    for run in data["runs"]:
        lines.append(
            f"run {run['run']}: {run['status']} ({run['created']}); "
            f"{run['passed']}/{run['cases']} pass; {run['findings']} findings"
            + ("" if run["version"] is None else f"; version {run['version']}")
        )
    for version in data["versions"]:
        lines.append(
            f"version {version['version']}: {version['status']} (run {version['run']}, "
            f"{version['created']}): {', '.join(version['files'])}"
        )
    return "\n".join(lines)
