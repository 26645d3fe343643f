"""Run exactly the crontab line and systemd units the README shows, against a temp HOME.

The test reads the section from README.md, so the text users copy
is the text that is tested.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.runlock import RunLock

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Running from cron"
REQUEST = "* @agent create a todo to water the plants\n"


def section_text() -> str:
    """Return the README's cron section: the text users copy is the text tested."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no {SECTION!r} section"
    start = text.index(SECTION)
    following = re.search(r"^## ", text[start + len(SECTION) :], re.M)
    end = len(text) if following is None else start + len(SECTION) + following.start()
    return text[start:end]


def fenced_blocks(text: str, info: str) -> list[str]:
    """Return the bodies of the fenced code blocks tagged ``info``."""
    return re.findall(r"^```" + re.escape(info) + r"\n(.*?)^```", text, re.M | re.S)


def crontab_command() -> str:
    """Return the command of the README's one crontab entry (after the five time fields)."""
    (block,) = fenced_blocks(section_text(), "crontab")
    entries = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(entries) == 1
    fields = entries[0].split(None, 5)
    assert fields[:5] == ["*/5", "*", "*", "*", "*"]
    assert "%" not in fields[5]  # cron would turn % into a newline
    return fields[5]


def systemd_unit(name: str) -> dict[str, list[str]]:
    """Return the README's systemd unit ``name`` as key -> values (comments dropped)."""
    for block in fenced_blocks(section_text(), "ini"):
        first, _, body = block.partition("\n")
        if first == f"# ~/.config/systemd/user/{name}":
            unit: dict[str, list[str]] = {}
            for line in body.splitlines():
                if "=" in line and not line.startswith(("#", "[")):
                    key, _, value = line.partition("=")
                    unit.setdefault(key, []).append(value)
            return unit
    raise AssertionError(f"no {name} block in the README section")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A HOME as the README assumes: orgrouter in ~/.local/bin, notes in ~/notes."""
    installed = Path(sys.executable).with_name("orgrouter")
    if not installed.is_file():
        pytest.skip("the orgrouter script is not installed beside this Python (pip install -e .)")
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "orgrouter").symlink_to(installed)
    notes = home / "notes"
    (notes / "projects").mkdir(parents=True)
    (notes / "projects" / "garden.org").write_text("#+TITLE: Garden\n\n" + REQUEST)
    (notes / "plain.org").write_text("* Nothing for the agent\njust notes\n")
    return home


def cron_env(home: Path) -> dict[str, str]:
    """Return the environment cron gives a job (no XDG variables, a minimal PATH)."""
    return {"HOME": str(home), "LOGNAME": "user", "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}


def run_cron(home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", crontab_command()],
        env=cron_env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )


def log_records(home: Path) -> list[dict[str, object]]:
    log = home / ".local" / "state" / "orgrouter" / "route.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_crontab_line_routes_quietly_and_logs(home: Path) -> None:
    garden = home / "notes" / "projects" / "garden.org"
    first = run_cron(home)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    routed = garden.read_text(encoding="utf-8")
    assert routed.startswith("#+TITLE: Garden\n\n" + REQUEST + ":PROPERTIES:\n")
    assert ":ORGROUTER_HASH:" in routed
    assert "** TODO" in routed
    mtime = garden.stat().st_mtime_ns

    second = run_cron(home)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    assert garden.stat().st_mtime_ns == mtime
    assert garden.read_text(encoding="utf-8") == routed

    records = log_records(home)
    events = [r["event"] for r in records]
    assert events[0] == "run_start" and events[-1] == "run_end"
    assert events.count("run_start") == 2 and events.count("run_end") == 2
    runs = [r["run"] for r in records if r["event"] == "run_end"]
    assert runs[0] != runs[1]
    ends = [r for r in records if r["event"] == "run_end"]
    assert (ends[0]["scanned"], ends[0]["requests_routed"], ends[0]["failed"]) == (2, 1, 0)
    assert (ends[1]["scanned"], ends[1]["requests_routed"], ends[1]["failed"]) == (2, 0, 0)
    text = (home / ".local" / "state" / "orgrouter" / "route.jsonl").read_text(encoding="utf-8")
    for secret in ("water the plants", "Nothing for the agent", "Garden"):
        assert secret not in text  # ids and counts, never note content


def test_second_concurrent_run_exits_75_with_one_line(home: Path) -> None:
    with RunLock(home / "notes", cron_env(home)):
        locked = run_cron(home)
    assert locked.returncode == 75
    assert locked.stdout == ""
    assert locked.stderr.count("\n") == 1
    assert locked.stderr == (
        f"orgrouter: error: {home / 'notes'}: another orgrouter run (pid {os.getpid()}) "
        "is working on this notes root; this run did nothing\n"
    )
    garden = home / "notes" / "projects" / "garden.org"
    assert garden.read_text(encoding="utf-8") == "#+TITLE: Garden\n\n" + REQUEST


def test_a_bad_file_fails_the_run_but_not_the_others(home: Path) -> None:
    bad = home / "notes" / "bad.org"
    bad.write_bytes(b"* @agent summarize\ncaf\xe9\n")
    done = run_cron(home)
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.splitlines()[0] == (
        f"orgrouter: error: {bad}:2:4: invalid UTF-8 at byte 22 (0xe9): Org files must be UTF-8"
    )
    assert ":ORGROUTER_HASH:" in (home / "notes" / "projects" / "garden.org").read_text()


def test_systemd_units_run_and_accept_75(home: Path) -> None:
    service = systemd_unit("orgrouter.service")
    timer = systemd_unit("orgrouter.timer")
    assert service["Type"] == ["oneshot"]
    assert service["SuccessExitStatus"] == ["75"]
    assert timer["OnCalendar"] == ["*:0/5"]
    assert timer["WantedBy"] == ["timers.target"]
    (exec_start,) = service["ExecStart"]
    # systemd expands %h to the user's home and %% to %; nothing else is used here.
    argv = [arg.replace("%h", str(home)).replace("%%", "%") for arg in shlex.split(exec_start)]
    done = subprocess.run(
        argv, env=cron_env(home), cwd="/", capture_output=True, text=True, timeout=300
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert ":ORGROUTER_HASH:" in (home / "notes" / "projects" / "garden.org").read_text()
    assert [r["event"] for r in log_records(home)][-1] == "run_end"
