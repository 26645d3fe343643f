"""Routing costs what the file's size does, whatever its shape: deep outlines, a
headline of 200,000 stars and more, many requests deep down.

Each case runs ``orgrouter route`` in its own process under a generous guard (60 s;
each takes about a second here). A search per outline level made them quadratic or
worse: 500 levels took 23 s (minutes with text), 3,000 levels never finished, one
headline of 200,000 stars took 38 s. No timing is asserted: the guard only turns a
hang into a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GUARD_S = 60
MILK = "@agent create a todo to buy milk"


def route(tmp: Path, note: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``orgrouter route -q`` on ``note`` in a fresh process under the guard."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")},
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
        "XDG_STATE_HOME": str(tmp / "xdg-state"),
        "ORGROUTER_NOW": "2026-11-30T09:00",
    }
    command = [sys.executable, "-m", "orgrouter", "route", "-q", *args]
    command += ["--state", str(tmp / "state.db"), str(note)]
    try:
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"route did not finish within {GUARD_S} s on {note.name}")


def routed_twice(tmp: Path, note: Path) -> str:
    """Route ``note``, check a second run finds nothing to do, return the routed text."""
    done = route(tmp, note)
    assert (done.returncode, done.stderr) == (0, "")
    assert route(tmp, note, "--check").returncode == 0  # stable: nothing left to do
    return note.read_text()


def ladder(levels: int, text: str = "") -> str:
    """Return an outline one headline per level, down to ``levels`` stars."""
    return "".join(f"{'*' * level} h{level}\n{text}" for level in range(1, levels + 1))


def test_500_levels_with_text_under_each(tmp_path: Path) -> None:
    # Body lines of stars (no space after them: text, not headlines) are what a
    # search for a run of stars trips over most.
    note = tmp_path / "deep.org"
    note.write_text(ladder(500, "*" * 1000 + "x\n") + f"{'*' * 501} {MILK}\n")
    routed = routed_twice(tmp_path, note)
    assert f"\n{'*' * 502} TODO buy milk\n" in routed


def test_3000_levels_and_a_way_back_up(tmp_path: Path) -> None:
    back = "".join(f"{'*' * level} up{level}\n" for level in range(3000, 0, -1))
    note = tmp_path / "deep.org"
    note.write_text(ladder(3000) + f"{'*' * 3001} {MILK}\n" + back)
    routed = routed_twice(tmp_path, note)
    result = f"\n{'*' * 3002} TODO buy milk\n"
    assert result in routed
    assert routed.index(result) < routed.index(f"\n{'*' * 3000} up3000\n")


def test_many_requests_deep_down(tmp_path: Path) -> None:
    lines = []
    for level in range(1, 2001):
        lines.append(f"{'*' * level} h{level}\n")
        if level % 20 == 0:
            lines.append(f"{'*' * (level + 1)} {MILK} {level}\n")
    note = tmp_path / "deep.org"
    note.write_text("".join(lines))
    routed = routed_twice(tmp_path, note)
    assert routed.count(":ORGROUTER_RESULT:") == 100
    assert f"\n{'*' * 2002} TODO buy milk 2000\n" in routed


@pytest.mark.parametrize("stars", [200_000, 1_000_000])
def test_one_headline_of_many_stars(tmp_path: Path, stars: int) -> None:
    note = tmp_path / "stars.org"
    note.write_text(f"{'*' * stars} {MILK}\n")
    routed = routed_twice(tmp_path, note)
    assert f"\n{'*' * (stars + 1)} TODO buy milk\n" in routed
