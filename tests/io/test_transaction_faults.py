"""Writes that fail or are killed midway leave the original or the whole new file."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from orgrouter.errors import WriteError
from orgrouter.io.text import read_org_file
from orgrouter.io.transaction import TEMP_PREFIX, Status, clean_stale_temps, write_snapshot


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(TEMP_PREFIX))


def _mount_tmpfs(directory: Path, options: str) -> bool:
    """Mount a small tmpfs on ``directory``; False where this machine does not allow it."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
        capture_output=True,
    )
    return proc.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """Return a directory on a 64 KiB tmpfs, or skip where mounting is not allowed."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not _mount_tmpfs(disk, "size=64k,mode=0755"):
        pytest.skip("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)")
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


def test_full_disk_keeps_the_original(small_disk: Path) -> None:
    path = small_disk / "a.org"
    original = b"* a\n" + b"x" * 20_000 + b"\n"
    path.write_bytes(original)
    snap = read_org_file(path)
    outcome = write_snapshot(snap, b"* a\n" + b"y" * 100_000 + b"\n")
    assert outcome.status is Status.FAILED
    assert isinstance(outcome.error, WriteError)
    assert str(outcome.error) == (
        f"{path}: cannot write: no space left on the device; the original is unchanged"
    )
    assert path.read_bytes() == original
    assert _temps(small_disk) == []


def test_file_size_limit_keeps_the_original(tmp_path: Path) -> None:
    # RLIMIT_FSIZE makes the write fail with EFBIG, the portable stand-in for a full disk
    # where a tmpfs cannot be mounted (Python ignores SIGXFSZ, so write() returns EFBIG).
    path = tmp_path / "a.org"
    original = b"* a\n" + b"x" * 1000 + b"\n"
    path.write_bytes(original)
    script = textwrap.dedent(
        """
        import resource, sys
        from orgrouter.io.text import read_org_file
        from orgrouter.io.transaction import write_snapshot
        snap = read_org_file(sys.argv[1])
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        outcome = write_snapshot(snap, b"* a\\n" + b"y" * 10000)
        print(outcome.status.value)
        print(outcome.error)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    )
    assert proc.stdout.splitlines() == [
        "failed",
        f"{path}: cannot write: file too large for this file system or limit; "
        "the original is unchanged",
    ]
    assert path.read_bytes() == original
    assert _temps(tmp_path) == []


def test_read_only_directory(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    path = ro / "a.org"
    path.write_bytes(b"* a\n")
    if os.geteuid() != 0:
        ro.chmod(0o555)
        expected = "permission denied"
    else:
        # Root ignores directory permissions: a read-only tmpfs is what stops it.
        if not _mount_tmpfs(ro, "size=64k"):
            pytest.skip("as root, only a read-only mount can refuse a write; cannot mount")
        path.write_bytes(b"* a\n")
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        expected = "read-only file system"
    try:
        snap = read_org_file(path)
        outcome = write_snapshot(snap, b"* a\nnew\n")
        assert outcome.status is Status.FAILED
        assert str(outcome.error) == f"{path}: cannot write: {expected}; the original is unchanged"
        assert path.read_bytes() == b"* a\n"
        assert _temps(ro) == []
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=True)
        else:
            ro.chmod(0o755)


WRITER = textwrap.dedent(
    """
    import sys
    from orgrouter.io.text import read_org_file
    from orgrouter.io.transaction import write_snapshot
    path, a, b = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
    print("ready", flush=True)
    while True:
        snap = read_org_file(path)
        outcome = write_snapshot(snap, a if snap.data == b else b)
        assert outcome.ok, outcome
    """
)


@pytest.mark.slow
def test_sigkill_mid_write_leaves_old_or_new_never_a_mix(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    # Two versions of one large note: a torn write would show as neither of them.
    a = b"".join(b"* heading %d\nsome body text for a %d\n" % (i, i) for i in range(40_000))
    b = a.replace(b"body text for a", b"BODY TEXT FOR B") + b"* appended\n"
    (tmp_path / "a").write_bytes(a)
    (tmp_path / "b").write_bytes(b)
    path = notes / "big.org"
    path.write_bytes(a)
    rng = random.Random(20240601)
    seen = {"a": 0, "b": 0, "temps_left": 0}
    for _ in range(25):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(tmp_path / "a"), str(tmp_path / "b")],
            stdout=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        try:
            proc.wait(timeout=rng.uniform(0.0, 0.25))
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL, "the writer stopped by itself"
        proc.stdout.close()
        content = path.read_bytes()
        assert content in (a, b), "a torn write: the file is neither version"
        seen["a" if content == a else "b"] += 1
        left = _temps(notes)
        seen["temps_left"] += len(left)
        # The writer is dead, so its temp files are stale and the next run removes them.
        assert sorted(os.path.basename(p) for p in clean_stale_temps(notes)) == left
        assert _temps(notes) == []
        assert sorted(p.name for p in notes.iterdir()) == ["big.org"]
    assert seen["a"] + seen["b"] == 25
