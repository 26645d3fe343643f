"""The README's Quick start: ``orgrouter route --diff notes/`` on the example notes.

The example notes are copied (with the tangled skills they load) into a temporary
directory; the diff run must write nothing and say what it would do, and a real run
followed by a second one must leave everything as the first wrote it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from route_cli import run_cli

ROOT = Path(__file__).resolve().parent.parent.parent
NOW = "2026-11-30T09:00"


def _copy_demo(tmp: Path) -> Path:
    shutil.copytree(ROOT / "notes", tmp / "notes")
    if (ROOT / "tangle").is_dir():
        shutil.copytree(ROOT / "tangle", tmp / "tangle")
    return tmp / "notes"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.org"))}


def test_quick_start_diff_then_route(tmp_path: Path) -> None:
    notes = _copy_demo(tmp_path)
    before = _snapshot(notes)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the README runs it from the checkout, with a relative path
    try:
        state = ["--state", str(tmp_path / "state.db"), "--now", NOW]
        code, out, err = run_cli(["route", "--diff", *state, "notes/"], tmp_path)
        assert code == 0
        assert _snapshot(notes) == before
        diff = out.decode()
        assert "+++ b/notes/meetings/2026-11-27-launch-kickoff.org\n" in diff
        assert "+*** TODO Alice drafts the press release\n" in diff
        assert "+*** WAITING Approve: delete this section\n" in diff
        assert "+- Old site (line 18) -> projects/website.org_archive (deleted" in diff
        assert "+*** Not sent to a model: private\n" not in diff  # offline: no model to keep
        assert err.splitlines()[-1] == (
            "6 files scanned, 13 requests would be routed, 20 results would be written, "
            "4 files would change, 1 unchanged."
        )
        assert run_cli(["route", "-q", *state, "notes/"], tmp_path)[0] == 0
        routed = _snapshot(notes)
        assert routed != before
        cold = ["--state", str(tmp_path / "cold.db")]
        assert run_cli(["route", "--check", *cold, "notes/"], tmp_path)[0] == 0
        assert _snapshot(notes) == routed
    finally:
        os.chdir(cwd)
