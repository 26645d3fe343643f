"""Killing a parallel run leaves no worker and no lock behind; the next run logs the takeover.

A real tree of 60 notes (more than the 48 that start the route pool), each request long
enough to keep a worker busy for a while, is routed by the real CLI with two workers.
Once both workers exist, the parent is killed (SIGKILL: no cleanup at all; SIGTERM:
Python's default, no cleanup either). Then a second route must get the lock.
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

NOW = "2026-11-30T09:00:00"
FILES = 60
# Long (under limits.instruction_chars) so that deciding on it keeps a worker busy.
SLOW = "@agent plan the offsite " + "and review the budget then book rooms " * 450


def _children(pid: int) -> list[int]:
    """Return the pids whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


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
    clean.update(
        XDG_CONFIG_HOME=str(root / "xdg-config"),
        XDG_STATE_HOME=str(root / "xdg-state"),
        ORGROUTER_WORKERS="3",  # the run's process and two workers, even on one CPU
    )
    return clean


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killing_the_parent_of_a_pooled_run_frees_the_lock(
    tmp_path: Path, how: signal.Signals
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("[limits]\npool_from = 1\n")  # a pool even for 60 files
    for n in range(FILES):
        (notes / f"n{n:02}.org").write_text(f"* Team {n}\n** {SLOW}\n")
    parent = subprocess.Popen(
        [sys.executable, "-m", "orgrouter", "route", str(notes), "--now", NOW, "-q"],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        for _ in range(600):  # until the pool's two workers exist (or the run ended)
            workers = [pid for pid in _children(parent.pid) if _alive(pid)]
            if len(workers) >= 2 or parent.poll() is not None:
                break
            time.sleep(0.05)
        assert parent.poll() is None and len(workers) >= 2, "the run ended before its pool"
        parent.send_signal(how)
        parent.wait(timeout=30)
        assert parent.returncode == -how
        for _ in range(200):  # the kernel kills the workers with their parent
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.05)
        left = [pid for pid in workers if _alive(pid)]
        assert left == [], f"workers outlived the killed run: {left}"
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
        for pid in [parent.pid, *workers]:  # only what this test started
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.wait(timeout=30)


def test_a_cleanly_released_lock_logs_no_takeover(tmp_path: Path) -> None:
    (tmp_path / "a.org").write_text("* a\n")
    log = tmp_path / "events.jsonl"
    for _ in range(2):
        done = run_orgrouter(tmp_path, "route", ".", "--now", NOW, "--log", str(log))
        assert done.returncode == 0, done.stderr
    assert "lock_taken_over" not in log.read_text()


# A run holding the lock forks a child that outlives it (what an orphaned pool worker
# did): the kernel must release the lock with the parent, whatever the child does.
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
