"""The progress bar of a run over many files: on a terminal only, never with -q."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from orgrouter.progress import MIN_FILES


def _tree(root: Path) -> None:
    for i in range(MIN_FILES + 10):
        (root / f"n{i:03}.org").write_text(f"* note {i}\nbody\n", encoding="utf-8")
    (root / "req.org").write_text("* @agent create a todo for milk\n", encoding="utf-8")


def _route(root: Path, *args: str, tty: bool) -> str:
    """Run a route with stderr on a pseudo-terminal (or a pipe) and return stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORGROUTER_", "XDG_"))}
    env.update(XDG_STATE_HOME=str(root.parent / "state"), TERM="xterm", COLUMNS="60")
    command = [sys.executable, "-m", "orgrouter", "route", "--now", "2026-11-30T09:00"]
    if not tty:
        done = subprocess.run(
            [*command, *args, str(root)], env=env, capture_output=True, check=True
        )
        return done.stderr.decode()
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [*command, *args, str(root)], env=env, stdout=subprocess.DEVNULL,
            stderr=follower, check=True,
        )  # fmt: skip
        assert proc.returncode == 0
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode()
    finally:
        os.close(leader)


def test_a_terminal_sees_a_bar_erased_before_every_message(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    _tree(root)
    out = _route(root, tty=True)
    assert f"/{MIN_FILES + 11} scanning" in out
    assert " 1/1 routing" in out  # then the slow phase, over the one candidate
    lines = out.replace("\r\n", "\n").split("\n")
    # Every message starts on a clean line: the bar is erased (CR, clear to EOL) first.
    routed = next(line for line in lines if "routed " in line and "req.org" in line)
    assert routed.split("\r\x1b[K")[-1].startswith("routed ")
    assert lines[-2].split("\r\x1b[K")[-1].startswith(f"{MIN_FILES + 11} files scanned")


def test_no_bar_with_q_or_without_a_terminal(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    _tree(root)
    assert "scanning" not in _route(root, tty=False)
    (root / "req2.org").write_text("* @agent create a todo for eggs\n", encoding="utf-8")
    assert "scanning" not in _route(root, "-q", tty=True)
