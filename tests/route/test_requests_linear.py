"""Routing a file costs what its requests do: twice the requests, twice the work.

Work is counted, not timed: the calls made into orgrouter's own code while routing
(a deterministic count on a given input). Each request once re-read every other
request's line and re-summed every result spliced in before it, so 3,000 requests
in one note took a minute, and the count grew three-fold per doubling. Nested
requests (each the parent of the next, so each subtree holds every request below)
were walked per request: their results looked for, their outline read line by line,
their edits planned each in an index of the whole subtree; 1,000 took 6-10 s.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from click.testing import CliRunner

import orgrouter
from orgrouter.cli import cli

PACKAGE = str(Path(orgrouter.__file__).parent)
ASKS = (
    "create a todo to buy item {i}",
    "tag this with project",
    "schedule the review for next monday",
    "summarize this section",
    "hi there",
)


def note(requests: int) -> str:
    """Return a note of ``requests`` requests, one per offline skill in turn."""
    return "".join(
        f"* @agent {ASKS[i % len(ASKS)].format(i=i)}\nBudget line {i}.\n" for i in range(requests)
    )


def nested(requests: int) -> str:
    """Return a note of ``requests`` requests nested as deep, each the parent of the next."""
    asks = [ASKS[i % len(ASKS)].format(i=i) for i in range(1, requests + 1)]
    return "".join(f"{'*' * (i + 1)} @agent {ask}\n" for i, ask in enumerate(asks))


def routed(text: str, state: Path) -> str:
    """Return ``text`` as ``route --stdin`` writes it (not counted)."""
    args = ["route", "--stdin", "-q", "--state", str(state), "--now", "2026-11-30T09:00"]
    result = CliRunner().invoke(cli, args, input=text)
    assert result.exit_code == 0, result.output
    return result.output


def work(text: str, state: Path, *, lines: bool = False) -> int:
    """Return how many calls into orgrouter's code (or its lines run) ``route --stdin`` makes."""
    done = 0

    def calls(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal done
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE):
            done += 1

    def line(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal done
        done += event == "line"  # a loop's every turn, which a call count does not see
        return line

    def enter(frame: FrameType, event: str, arg: Any) -> Any:
        return line if frame.f_code.co_filename.startswith(PACKAGE) else None

    args = ["route", "--stdin", "--state", str(state), "--now", "2026-11-30T09:00"]
    if lines:
        sys.settrace(enter)
    else:
        sys.setprofile(calls)
    try:
        result = CliRunner().invoke(cli, args, input=text)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    assert result.exit_code == 0, result.output
    return done


@pytest.mark.slow
def test_twice_the_edited_requests_is_twice_the_work(tmp_path: Path) -> None:
    # Every instruction edited: each request's old results go. Each result and tag
    # was once checked against every removal, in a loop a call count does not see
    # (quadratic: 8,000 requests took 10 s).
    def edited(requests: int) -> str:
        tags = "".join(f"* @agent tag this with project\nLine {i}.\n" for i in range(requests))
        return routed(tags, tmp_path / f"first{requests}.db").replace("@agent", "@agent please")

    work(edited(5), tmp_path / "warm.db")  # imports and caches, not counted
    once = work(edited(400), tmp_path / "a.db", lines=True)
    twice = work(edited(800), tmp_path / "b.db", lines=True)
    assert twice / once < 2.1, (once, twice)  # the checks made it 2.17 here


@pytest.mark.slow
def test_twice_the_requests_is_twice_the_work(tmp_path: Path) -> None:
    work(note(5), tmp_path / "warm.db")  # imports and caches, not counted
    once = work(note(200), tmp_path / "a.db")
    twice = work(note(400), tmp_path / "b.db")
    assert twice / once < 2.3, (once, twice)  # quadratic parts made it about 2.8


@pytest.mark.slow
@pytest.mark.parametrize("rerun", [False, True], ids=["first-run", "rerun"])
def test_twice_the_nested_requests_is_twice_the_work(tmp_path: Path, rerun: bool) -> None:
    # A rerun finds every request's results already there: nothing to write.
    notes = {n: nested(n) for n in (5, 100, 200)}
    if rerun:
        notes = {n: routed(text, tmp_path / f"first{n}.db") for n, text in notes.items()}
    work(notes[5], tmp_path / "warm.db")  # imports and caches, not counted
    once = work(notes[100], tmp_path / "a.db")
    twice = work(notes[200], tmp_path / "b.db")
    assert twice / once < 2.3, (once, twice)  # walking each subtree made it 2.6-2.9
