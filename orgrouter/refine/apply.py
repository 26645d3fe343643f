"""``refine approve`` / ``reject`` / ``rollback``: the only paths that write rules files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from orgrouter.errors import ConfigError, ConflictError, RefusedError
from orgrouter.refine.candidate import candidate_from_json
from orgrouter.refine.run import rules_fingerprint
from orgrouter.refine.score import Scores
from orgrouter.refine.store import APPLIED, AWAITING, REJECTED, Baseline, Run
from orgrouter.refine.validate import StaleEdit, reapply
from orgrouter.refine.workspace import Workspace


@dataclass(frozen=True)
class FileChange:
    """One rules file to set: what it must hold now (None: absent) and what it becomes."""

    path: Path
    expected: bytes | None
    new: bytes | None  # None: remove the user's copy (the package default shows again)


def commit_changes(changes: list[FileChange]) -> None:
    """Write (or remove) every file, all or nothing, if each still holds what was expected."""
    from orgrouter.io.transaction import Transaction

    transaction = Transaction()
    for change in changes:
        if change.expected is None:
            if change.new is None:
                raise ValueError(f"nothing to remove: {change.path} is expected absent")
            transaction.create(change.path, change.new, mkdirp=True)
            continue
        expected = hashlib.sha256(change.expected).hexdigest()
        if change.new is None:
            # Rolling back a copy refine created removes it, if it holds what refine wrote.
            transaction.delete(change.path, expect_sha256=expected)
        else:
            transaction.replace(change.path, change.new, expect_sha256=expected)
    failed = [outcome for outcome in transaction.commit(all_or_nothing=True) if not outcome.ok]
    if failed:
        first = failed[0]
        raise first.error or ConflictError(
            f"not written ({first.status.value}); nothing was written", path=first.path
        )


def _awaiting(ws: Workspace, run_id: int) -> Run:
    """Return run ``run_id`` if it awaits approval, else refuse."""
    run = ws.store.get(run_id)
    if run.status != AWAITING or run.gate is None:
        raise RefusedError(f"run {run_id} is {run.status}, not awaiting_approval")
    return run


def approve_run(ws: Workspace, run_id: int, *, auto: bool = False) -> int:
    """Apply run ``run_id``'s gated edits to the live rules; return the new version."""
    run = _awaiting(ws, run_id)
    assert run.gate is not None
    if ws.tree.live is None:
        raise ConfigError("no rules dir to write to: set `dir` in the [rules] section")
    edits = candidate_from_json({"edits": run.gate["edits"]}, source=f"run {run_id}").edits
    try:
        results = reapply(edits, ws.tree)
    except StaleEdit as stale:
        raise RefusedError(
            f"run {run_id} refused whole: {stale} (the rules changed since the gate; "
            "start a new run)"
        ) from stale
    if rules_fingerprint(ws) != run.fingerprint:
        # Every `before` still fits, but something else changed (another approval, a
        # hand edit, new golden cases): the gate's scores would not describe the result.
        raise RefusedError(
            f"run {run_id} refused: the rules or the golden set changed since it was "
            "gated; start a new run so the gate scores what would be live"
        )
    live = {rel: ws.tree.read_live(rel) for rel in results}
    commit_changes(
        [FileChange(ws.tree.live / rel, live[rel], data) for rel, data in sorted(results.items())]
    )
    scores = Scores.from_json(run.gate["scores"])
    now = ws.now()
    version = ws.store.add_version(
        run_id=run_id,
        now=now,
        files={rel: (live[rel], data) for rel, data in results.items()},
        baseline_before=ws.store.baseline(),
        baseline_after=Baseline(rules_fingerprint(ws), scores, now),
    )
    ws.emit(
        "refinement_applied",
        {
            "run_id": run_id,
            "version": version,
            "files": len(results),
            "edits_count": len(edits),
            "mode": "auto_apply" if auto else "approved",
        },
    )
    return version


def reject_run(ws: Workspace, run_id: int) -> None:
    """Close run ``run_id`` without applying it."""
    _awaiting(ws, run_id)
    ws.store.set_status(run_id, REJECTED, ws.now())
    ws.emit("refinement_rejected", {"run_id": run_id})


@dataclass(frozen=True)
class Rollback:
    """What a rollback undid."""

    version: int
    undone: tuple[int, ...]  # newest first
    files: tuple[str, ...]


def rollback(ws: Workspace, version: int | None = None) -> Rollback:
    """Restore the rules exactly as they were before ``version`` (default: the latest)."""
    if ws.tree.live is None:
        raise ConfigError("no rules dir: set `dir` in the [rules] section")
    applied = [v for v in ws.store.versions() if v.status == APPLIED]
    if not applied:
        raise RefusedError("nothing to roll back: no applied version")
    target = applied[-1].version if version is None else version
    if target not in {v.version for v in applied}:
        raise RefusedError(f"version {target} is not an applied version (see `refine status`)")
    undo = [v for v in reversed(applied) if v.version >= target]
    state: dict[str, bytes | None] = {}
    current: dict[str, bytes | None] = {}
    for entry in undo:
        for rel, (before, after) in entry.files.items():
            if rel not in state:
                state[rel] = current[rel] = ws.tree.read_live(rel)
            if state[rel] != after:
                raise RefusedError(
                    f"{rel} changed since version {entry.version} wrote it: rolling back "
                    "would lose that change; nothing was written"
                )
            state[rel] = before
    commit_changes(
        [FileChange(ws.tree.live / rel, current[rel], state[rel]) for rel in sorted(state)]
    )
    ws.store.roll_back([v.version for v in undo], undo[-1].baseline_before, ws.now())
    ws.emit(
        "refinement_rolled_back",
        {"version": target, "versions_count": len(undo), "files": len(state)},
    )
    return Rollback(target, tuple(v.version for v in undo), tuple(sorted(state)))
