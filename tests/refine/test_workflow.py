"""The refine cycle on a temp rules dir: run, gate (every refusal and verdict), approve,
reject, rollback, auto-apply; with the real golden replay, rules loader and state DB."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.errors import ConflictError, RefusedError
from orgrouter.refine.apply import approve_run, reject_run, rollback
from orgrouter.refine.candidate import Candidate, Edit
from orgrouter.refine.gate import gate_run
from orgrouter.refine.run import run_refinement
from orgrouter.refine.tree import package_rules_dir
from orgrouter.refine.workspace import Workspace

SUMMARIZE = "[skills.summarize]"
TODO = "[skills.todo]"


def teach(*verbs: str, skill: str = SUMMARIZE) -> Edit:
    """An edit adding ``verbs`` to a skill's verbs list."""
    added = "".join(f'"{verb}", ' for verb in verbs)
    return Edit("verbs.toml", "replace", "verbs = [", "verbs = [" + added, skill)


def verbs_file(ws: Workspace) -> Path:
    assert ws.tree.live is not None
    return ws.tree.live / "verbs.toml"


def events(ws: Workspace) -> list[tuple[str, dict[str, object]]]:
    return list(ws.emit)  # type: ignore[call-overload]


def test_run_records_findings_and_a_second_run_is_quiet(workspace: Workspace) -> None:
    first = run_refinement(workspace)
    assert (first.scores.passed, first.scores.total, first.baseline) == (3, 5, "accepted")
    assert [f["case"] for f in first.findings] == ["precis", "skim"]
    assert first.findings[0] == {
        "key": "golden:precis:intents[1].skill",
        "kind": "golden",
        "case": "precis",
        "fields": ["intents[1].skill"],
    }
    assert first.history == "unavailable"
    second = run_refinement(workspace)
    assert (second.findings, second.baseline) == ([], "kept")
    full = run_refinement(workspace, full=True)
    assert [f["case"] for f in full.findings] == ["precis", "skim"]
    assert workspace.store.get(second.run_id).status == "completed"
    assert events(workspace)[0] == (
        "refinement_run",
        {
            "run_id": first.run_id,
            "cases_count": 5,
            "passed_count": 3,
            "findings_count": 2,
            "history_count": 0,
            "mode": "incremental",
        },
    )


def test_hand_edit_of_the_rules_re_accepts_the_baseline(workspace: Workspace) -> None:
    run_refinement(workspace)
    path = verbs_file(workspace)
    path.write_bytes(path.read_bytes().replace(b'"sum up", ', b""))
    again = run_refinement(workspace)
    assert again.baseline == "re-accepted"
    assert [f["case"] for f in again.findings] == ["sum-up"]


def test_report_mode_refuses_before_anything(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    workspace.config.refine.mode = "report"
    with pytest.raises(RefusedError, match=r'refine\.mode is "report"'):
        gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    assert workspace.store.get(run_id).status == "completed"
    assert [name for name, _ in events(workspace)] == ["refinement_run"]


def test_a_run_that_is_not_completed_is_refused(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    with pytest.raises(RefusedError, match=f"run {run_id} is awaiting_approval, not completed"):
        gate_run(workspace, run_id, [Candidate((teach("precis"),))])


def test_rules_changed_since_the_run_is_refused(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    verbs_file(workspace).write_bytes(verbs_file(workspace).read_bytes() + b"\n")
    with pytest.raises(RefusedError, match=f"changed since run {run_id}"):
        gate_run(workspace, run_id, [Candidate((teach("skim"),))])


def test_every_edit_dropped_is_refused_with_the_reasons(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    candidate = Candidate(
        (
            Edit("risk.toml", "append", "", "x = 1\n"),
            Edit("verbs.toml", "replace", "no such text", "x"),
        )
    )
    with pytest.raises(RefusedError) as refused:
        gate_run(workspace, run_id, [candidate])
    assert str(refused.value) == (
        "every edit was dropped, nothing to gate: "
        "edit 1 (risk.toml): not_allowed: risk.toml is not on the write allowlist "
        "(refine.files); "
        "edit 2 (verbs.toml): stale: `before` is not in the file (stale)"
    )
    assert workspace.store.get(run_id).status == "completed"


def test_a_fix_awaits_approval(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    before = verbs_file(workspace).read_bytes()
    result = gate_run(workspace, run_id, [Candidate((teach("skim"),), proposer="test")])
    assert result.status == "awaiting_approval"
    verdict = result.chosen.verdict
    assert verdict is not None
    assert (verdict.fixed, verdict.regressions, verdict.score) == (("skim",), (), 0.8)
    # Gating never touches the live rules.
    assert verbs_file(workspace).read_bytes() == before
    assert workspace.store.get(run_id).status == "awaiting_approval"
    assert events(workspace)[-1] == (
        "refinement_gated",
        {
            "run_id": run_id,
            "status": "awaiting_approval",
            "reason": None,
            "cases_count": 5,
            "passed_count": 4,
            "regressions_count": 0,
            "fixed_count": 1,
            "edits_count": 1,
            "dropped_count": 0,
            "candidates_count": 1,
        },
    )


def test_a_regression_is_rejected_with_the_case_named(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    # Teaching "skim" while dropping "jot down" from the todo verbs: one fix, one break.
    drop_jot = Edit("verbs.toml", "replace", '"jot down", ', "", TODO)
    result = gate_run(workspace, run_id, [Candidate((teach("skim"), drop_jot))])
    verdict = result.chosen.verdict
    assert verdict is not None
    assert (result.status, verdict.reason, verdict.regressions, verdict.fixed) == (
        "rejected",
        "regression",
        ("jot",),
        ("skim",),
    )
    assert workspace.store.get(run_id).status == "rejected"
    with pytest.raises(RefusedError, match="not awaiting_approval"):
        approve_run(workspace, run_id)


def test_an_edit_that_breaks_a_table_is_rejected(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    # "jot down" already belongs to todo: the loader refuses a verb listed twice.
    result = gate_run(workspace, run_id, [Candidate((teach("jot down"),))])
    verdict = result.chosen.verdict
    assert verdict is not None
    assert (result.status, verdict.reason) == ("rejected", "invalid")
    assert verdict.detail is not None and "listed for both" in verdict.detail
    assert verdict.regressions == ("jot", "schedule", "sum-up")


def test_approve_writes_keeps_a_version_and_moves_the_baseline(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    original = verbs_file(workspace).read_bytes()
    gate_run(workspace, run_id, [Candidate((teach("skim", "precis"),))])
    version = approve_run(workspace, run_id)
    assert verbs_file(workspace).read_bytes() == original.replace(
        b"[skills.summarize]\nverbs = [", b'[skills.summarize]\nverbs = ["skim", "precis", ', 1
    )
    baseline = workspace.store.baseline()
    assert baseline is not None and baseline.scores.passed == 5
    after = run_refinement(workspace)
    assert (after.baseline, after.scores.passed, after.findings) == ("kept", 5, [])
    assert events(workspace)[-2] == (
        "refinement_applied",
        {"run_id": run_id, "version": version, "files": 1, "edits_count": 1, "mode": "approved"},
    )


def test_stale_approval_is_refused_whole(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"), teach("jot it", skill=TODO)))])
    # The user rewrites the summarize list by hand after the gate.
    path = verbs_file(workspace)
    edited = path.read_bytes().replace(
        b"[skills.summarize]\nverbs = [", b"[skills.summarize]\nverbs=["
    )
    path.write_bytes(edited)
    with pytest.raises(RefusedError) as refused:
        approve_run(workspace, run_id)
    assert str(refused.value) == (
        f"run {run_id} refused whole: edit 1 (verbs.toml): `before` is not in the file "
        "(stale) (the rules changed since the gate; start a new run)"
    )
    assert path.read_bytes() == edited  # the todo edit, still valid, was not applied either
    assert workspace.store.versions() == []


def test_reject_closes_the_run(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    reject_run(workspace, run_id)
    assert workspace.store.get(run_id).status == "rejected"
    assert events(workspace)[-1] == ("refinement_rejected", {"run_id": run_id})
    with pytest.raises(RefusedError):
        reject_run(workspace, run_id)


def test_rollback_restores_the_exact_bytes(workspace: Workspace) -> None:
    path = verbs_file(workspace)
    # Odd bytes a re-serialiser would lose: CRLF endings and no final newline.
    original = path.read_bytes().replace(b"\n", b"\r\n").rstrip(b"\r\n")
    path.write_bytes(original)
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    first = approve_run(workspace, run_id)
    second_run = run_refinement(workspace).run_id
    gate_run(workspace, second_run, [Candidate((teach("precis"),))])
    second = approve_run(workspace, second_run)
    assert path.read_bytes() != original
    done = rollback(workspace, first)  # undoes the later version too, newest first
    assert (done.version, done.undone, done.files) == (first, (second, first), ("verbs.toml",))
    assert path.read_bytes() == original
    baseline = workspace.store.baseline()
    assert baseline is not None and baseline.scores.passed == 3
    assert [v.status for v in workspace.store.versions()] == ["rolled_back", "rolled_back"]
    assert run_refinement(workspace).baseline == "kept"
    with pytest.raises(RefusedError, match="nothing to roll back"):
        rollback(workspace)


def test_rollback_removes_a_copy_refine_created(workspace: Workspace) -> None:
    path = verbs_file(workspace)
    path.unlink()  # the user has no copy: the package's table is in force
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    approve_run(workspace, run_id)
    assert path.read_bytes().count(b'"skim"') == 1
    rollback(workspace)
    assert not path.exists()
    assert (package_rules_dir() / "verbs.toml").read_bytes().count(b'"skim"') == 0


def test_rollback_over_a_hand_edit_is_refused(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    approve_run(workspace, run_id)
    path = verbs_file(workspace)
    path.write_bytes(path.read_bytes() + b"# mine\n")
    with pytest.raises(RefusedError, match="changed since version 1 wrote it"):
        rollback(workspace)
    assert path.read_bytes().endswith(b"# mine\n")


def test_auto_apply_applies_one_edit_at_once(workspace: Workspace) -> None:
    workspace.config.refine.mode = "auto_apply"
    run_id = run_refinement(workspace).run_id
    result = gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    assert (result.status, result.version) == ("applied", 1)
    assert verbs_file(workspace).read_bytes().count(b'"skim"') == 1
    assert workspace.store.get(run_id).status == "applied"
    assert events(workspace)[-1][1]["mode"] == "auto_apply"


def test_auto_apply_holds_more_edits_than_allowed_for_approval(workspace: Workspace) -> None:
    workspace.config.refine.mode = "auto_apply"
    run_id = run_refinement(workspace).run_id
    before = verbs_file(workspace).read_bytes()
    result = gate_run(workspace, run_id, [Candidate((teach("skim"), teach("jot it", skill=TODO)))])
    assert (result.status, result.version) == ("awaiting_approval", None)
    assert verbs_file(workspace).read_bytes() == before


def test_an_edit_outside_the_allowlist_never_touches_its_file(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    assert workspace.tree.live is not None
    risk = workspace.tree.live / "risk.toml"
    candidate = Candidate((teach("skim"), Edit("risk.toml", "append", "", "# sneaky\n")))
    result = gate_run(workspace, run_id, [candidate])
    assert [d.reason for d in result.chosen.validation.dropped] == ["not_allowed"]
    approve_run(workspace, run_id)
    assert not risk.exists()
    [version] = workspace.store.versions()
    assert sorted(version.files) == ["verbs.toml"]


def test_tolerance_must_not_be_negative(workspace: Workspace) -> None:
    from orgrouter.errors import UsageError

    run_id = run_refinement(workspace).run_id
    with pytest.raises(UsageError, match="--tolerance must be 0 or more"):
        gate_run(workspace, run_id, [Candidate((teach("skim"),))], tolerance=-0.1)


def test_emacs_lock_stops_approval_and_nothing_is_written(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    gate_run(workspace, run_id, [Candidate((teach("skim"),))])
    path = verbs_file(workspace)
    before = path.read_bytes()
    lock = path.parent / ".#verbs.toml"
    lock.symlink_to("user@host.12345:1700000000")
    with pytest.raises(ConflictError):
        approve_run(workspace, run_id)
    assert path.read_bytes() == before
    assert workspace.store.get(run_id).status == "awaiting_approval"
    lock.unlink()
    assert approve_run(workspace, run_id) == 1


def test_no_rules_dir_is_refused_before_scoring(workspace: Workspace) -> None:
    from dataclasses import replace

    from orgrouter.errors import ConfigError

    run_id = run_refinement(workspace).run_id
    workspace.tree = replace(workspace.tree, live=None)
    with pytest.raises(ConfigError, match=r"none is set: add `dir = \"rules\"`"):
        gate_run(workspace, run_id, [Candidate((teach("skim"),))])


def test_approval_after_another_change_is_refused(workspace: Workspace) -> None:
    first = run_refinement(workspace).run_id
    gate_run(workspace, first, [Candidate((teach("skim"),))])
    second = run_refinement(workspace).run_id
    gate_run(workspace, second, [Candidate((teach("jot it", skill=TODO),))])
    approve_run(workspace, second)
    # The first run's `before` still fits, but its scores predate the second change.
    path = verbs_file(workspace)
    before = path.read_bytes()
    with pytest.raises(RefusedError, match=f"run {first} refused: the rules or the golden"):
        approve_run(workspace, first)
    assert path.read_bytes() == before
