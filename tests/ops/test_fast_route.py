"""``route`` answered without click (cli._fast_route) prints and exits as click's route does."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from orgrouter import cli
from orgrouter.cli import main

NOTE = "* Errands\n** @agent create a todo to renew the passport\n"


def outcome(argv: list[str], stdin: str, capsys: pytest.CaptureFixture[str]) -> tuple[object, ...]:
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    with pytest.raises(SystemExit) as done:
        main(argv)
    out, err = capsys.readouterr()
    return done.value.code, out, err


@pytest.fixture
def notes(env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tmp_path = env.parent
    monkeypatch.setenv("ORGROUTER_NOW", "2026-11-30T09:00")
    monkeypatch.setattr(sys, "stdin", sys.stdin)  # outcome() replaces it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    return tmp_path / "notes"


@pytest.mark.parametrize(
    "argv",
    [
        ["route", "-q", "--state", "s.db", "notes"],
        ["route", "--state", "s.db", "notes", "notes/a.org"],
        ["route", "--stdin", "--file-name", "notes/x.org"],
        ["route", "--stdin", "notes"],  # usage error from route itself
        ["route", "--file-name", "x.org", "notes"],
        ["route", "-q", "missing.org"],  # click: does not exist
        ["route", "--state", "adir", "notes"],  # click: is a directory
        ["route", "-q", "-q", "notes"],
        ["route", "--state"],  # click: requires an argument
        ["route", "--quiet", "--state=s.db", "notes"],
        ["route", "--dry-run", "--state", "s.db", "notes"],
        ["route", "--json", "-q", "--state", "s.db", "notes"],
        ["route", "--check", "--diff", "notes/a.org"],  # exit 1, the diff printed
        ["route", "--check", "--dry-run", "notes"],  # usage error from route itself
        ["route", "--diff", "--json", "notes"],
        ["route", "--force", "-q", "notes"],
        ["route", "--dry-run", "--dry-run", "notes"],
        ["route", "--", "notes"],
        ["route", "notes", "--"],
        ["route", "--dry-run", "--", "--json"],  # a file named --json
        ["route", "--json", "--state="],
        ["route", "--state", "", "notes"],
        ["route", ""],
        ["route", "--unknown", "notes"],
        ["route", "--fo", "notes"],
        ["route", "-qq", "notes"],
        ["route", "--state", "s.db", "--state", "t.db", "notes"],
        ["route", "--stdin", "--file-name", ""],
        ["route", "--stdin", "--file-name", "-"],
        ["route", "--dry-run", "notes/\udcff.org"],  # a name not UTF-8, as Python gives argv
        ["route", "--dry-run", "missing\udcff.org"],
        ["route", "--check", "notes", "notes"],
    ],
)
def test_fast_and_click_route_agree(
    argv: list[str], notes: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    results = []
    for fast in (True, False):
        (notes.parent / "--json").write_text(NOTE)
        (notes / "\udcff.org").write_text(NOTE)
        for name in ("a.org", "x.org"):
            (notes / name).write_text(NOTE)
        for leftover in notes.parent.glob("s.db*"):
            leftover.unlink()
        if not fast:
            monkeypatch.setattr(cli, "_fast_route", lambda args: None)
        results.append((outcome(argv, NOTE, capsys), (notes / "a.org").read_text()))
    assert results[0] == results[1]


def test_the_fast_path_takes_the_common_forms_and_leaves_the_rest(notes: Path) -> None:
    (notes / "a.org").write_text("* Nothing to do\n")
    assert cli._fast_route(["route", "-q", "--state", "s.db", "notes"]) == 0
    assert cli._fast_route(["route", "--dry-run", "-q", "notes"]) == 0
    for argv in (
        ["route", "-v", "notes"],
        ["route", "--now", "2026-11-30T09:00", "notes"],
        ["route", "--dry-run", "missing.org"],
        ["route", "--state", "adir", "notes"],
        ["route", "--state", "--stdin"],
        ["route", "--stdin", "--stdin"],
        ["-q", "route", "notes"],
        ["parse", "notes/a.org"],
    ):
        assert cli._fast_route(argv) is None, argv


@pytest.mark.parametrize("mode", ["--json", "--diff", "--dry-run"])
def test_a_reader_gone_ends_the_run_as_click_does(mode: str, notes: Path) -> None:
    """``route --json notes | head -1``: the pipe closes before the output is written."""
    import os
    import subprocess

    for name in ("a.org", "b.org"):
        (notes / name).write_text(NOTE)
    runs = []
    for fast in ("", "c._fast_route = lambda args: None;"):
        read, write = os.pipe()
        os.close(read)  # the reader is gone: the first write fails with EPIPE
        script = f"import sys, orgrouter.cli as c; {fast} sys.argv[0] = 'orgrouter'; c.main()"
        done = subprocess.run(
            [sys.executable, "-c", script, "route", mode, "--state", "s.db", "notes"],
            stdout=write, stderr=subprocess.PIPE, check=False,
        )  # fmt: skip
        os.close(write)
        runs.append((done.returncode, done.stderr.decode()))
    assert runs[0] == runs[1]
    assert "Exception ignored" not in runs[0][1]
