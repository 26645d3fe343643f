"""Killing a run leaves no lock behind; the next run logs the takeover.

A real tree of 60 notes, each request long enough to keep the run busy for a while, is
routed by the real CLI. Once the run holds the lock, it is killed (SIGKILL: no cleanup
at all; SIGTERM: Python's default, no cleanup either). Then a second route must get
the lock and log that it took over the killed run's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter

from orgrouter.runlock import lock_path

NOW = "2026-11-30T09:00:00"
FILES = 60
# Long (under limits.instruction_chars) so that deciding on it keeps the run busy.
SLOW = "@agent plan the offsite " + "and review the budget then book rooms " * 450


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead; only its parent's wait would remove it
        return (Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]) != "Z"
    except OSError:
        return False


def _env(root: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ORGROUTER_", "XDG_"))}
    clean.update(XDG_CONFIG_HOME=str(root / "xdg-config"), XDG_STATE_HOME=str(root / "xdg-state"))
    return clean


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killing_a_run_frees_the_lock(tmp_path: Path, how: signal.Signals) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(FILES):
        (notes / f"n{n:02}.org").write_text(f"* Team {n}\n** {SLOW}\n")
    lock = lock_path(notes.resolve(), _env(tmp_path))
    parent = subprocess.Popen(
        [sys.executable, "-m", "orgrouter", "route", str(notes), "--now", NOW, "-q"],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # until the run holds the lock (its pid is in the file)
            if lock.is_file() and lock.read_text().strip() == str(parent.pid):
                break
            if parent.poll() is not None:
                break
            time.sleep(0.05)
        assert parent.poll() is None, "the run ended before it could be killed"
        parent.send_signal(how)
        parent.wait(timeout=30)
        assert parent.returncode == -how
        for note in notes.glob("*.org"):
            note.write_text("* done\n")  # the second run needs the lock, not the work
        log = tmp_path / "events.jsonl"
        again = run_orgrouter(
            tmp_path, "route", str(notes), "--now", NOW, "-q", "--log", str(log), env=_env(tmp_path)
        )
        assert again.returncode == 0, again.stderr  # not 75: nobody holds the lock
        events = [json.loads(line) for line in log.read_text().splitlines()]
        taken = [e for e in events if e["event"] == "lock_taken_over"]
        assert len(taken) == 1 and taken[0]["holder_id"] == parent.pid
    finally:
        if parent.poll() is None:  # only what this test started
            parent.kill()
            parent.wait(timeout=30)


def test_a_cleanly_released_lock_logs_no_takeover(tmp_path: Path) -> None:
    (tmp_path / "a.org").write_text("* a\n")
    log = tmp_path / "events.jsonl"
    for _ in range(2):
        done = run_orgrouter(tmp_path, "route", ".", "--now", NOW, "--log", str(log))
        assert done.returncode == 0, done.stderr
    assert "lock_taken_over" not in log.read_text()


# A run holding the lock forks a child that outlives it (what an orphaned worker of the
# old process pool did; a user skill may fork): the kernel must release the lock with the
# parent, whatever the child does.
FORKER = """
import os, sys, time
from orgrouter.runlock import RunLock
lock = RunLock(sys.argv[1], os.environ)
lock.acquire()
if os.fork() == 0:
    print(os.getpid(), flush=True)  # the child runs: its fork hooks have run
    time.sleep(60)
    os._exit(0)
time.sleep(60)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_never_holds_the_parents_lock(tmp_path: Path) -> None:
    from orgrouter.runlock import RunLock

    env = _env(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", FORKER, str(tmp_path)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    child = 0
    try:
        assert holder.stdout is not None
        child = int(holder.stdout.readline())
        holder.kill()
        holder.wait(timeout=30)
        assert _alive(child)  # the orphan lives on...
        lock = RunLock(tmp_path, env)
        lock.acquire()  # ...and the lock is free all the same
        assert lock.taken_over == holder.pid
        lock.release()
    finally:
        if child and _alive(child):
            os.kill(child, signal.SIGKILL)
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)
        if holder.stdout is not None:
            holder.stdout.close()
