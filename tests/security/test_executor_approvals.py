"""Approvals of moves bind to where the move really goes, not to a name that can change."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "route"))

from route_cli import run_cli

NOW = "2026-12-01T10:00:00"


def _route(tmp: Path, notes: Path) -> int:
    args = ["route", "-q", "--now", NOW, "--state", str(tmp / "state.db"), str(notes)]
    code, _out, _err = run_cli(args, tmp, env={"HOME": str(tmp)})
    return code


def test_a_symlink_target_pointed_elsewhere_after_approval_asks_again(tmp_path: Path) -> None:
    # The approval showed the move going through shared.org to one file; a sync or a
    # `git pull` then points the link at another (a public folder): not approved.
    notes, approved, public = tmp_path / "notes", tmp_path / "team", tmp_path / "public"
    for directory in (notes, approved, public):
        directory.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (approved / "shared.org").write_text("* Team\n")
    (public / "shared.org").write_text("* Public\n")
    (notes / "shared.org").symlink_to(approved / "shared.org")
    note = notes / "a.org"
    note.write_text("* Secret plan\nDetails.\n** @agent refile this to shared.org\n")
    assert _route(tmp_path, notes) == 0
    asked = note.read_text()
    assert f"through a symlink to {approved / 'shared.org'}" in asked
    note.write_text(asked.replace("WAITING Approve", "APPROVED Approve"))
    (notes / "shared.org").unlink()
    (notes / "shared.org").symlink_to(public / "shared.org")
    assert _route(tmp_path, notes) == 0
    assert (public / "shared.org").read_text() == "* Public\n"
    assert (approved / "shared.org").read_text() == "* Team\n"
    again = note.read_text()
    assert again.startswith("* Secret plan\nDetails.\n") and "WAITING Approve" in again
    assert f"through a symlink to {public / 'shared.org'}" in again
