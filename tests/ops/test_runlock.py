"""The run lock: one run per notes root; the second fails at once with exit 75."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.errors import EXIT_LOCKED, LockedError, StateError
from orgrouter.runlock import RunLock, lock_path


def test_second_lock_fails_naming_root_and_pid(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    root = tmp_path / "notes"
    root.mkdir()
    with RunLock(root, env) as first:
        assert first.path.read_text() == f"{os.getpid()}\n"
        with pytest.raises(LockedError) as info:
            RunLock(root, env).acquire()
        assert info.value.exit_code == EXIT_LOCKED == 75
        assert str(info.value) == (
            f"{root.resolve()}: another orgrouter run (pid {os.getpid()}) is working on "
            "this notes root; this run did nothing"
        )
        # A different root is not excluded.
        other = tmp_path / "other"
        other.mkdir()
        with RunLock(other, env):
            pass
    # Released: the next run gets it, and the file no longer names a holder.
    assert lock_path(root, env).read_text() == ""
    with RunLock(root, env):
        pass


def test_lock_held_by_another_process(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    root = tmp_path / "notes"
    root.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys\n"
            "from orgrouter.runlock import RunLock\n"
            "lock = RunLock(sys.argv[1], os.environ)\n"
            "lock.acquire()\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
            str(root),
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(LockedError) as info:
            RunLock(root, env).acquire()
        assert f"(pid {holder.pid})" in str(info.value)
    finally:
        holder.kill()  # dies holding the lock: the kernel releases it
        holder.communicate()
    with RunLock(root, env) as lock:
        assert lock.path.read_text() == f"{os.getpid()}\n"  # this run holds it now


def test_unusable_state_dir_is_a_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    with pytest.raises(StateError) as info:
        RunLock(tmp_path, {"XDG_STATE_HOME": str(blocker)}).acquire()
    assert str(info.value).startswith(f"{blocker}/orgrouter/locks/")
    assert "cannot create the run lock" in str(info.value)
    assert info.value.exit_code == 3
