"""The one write path: conflicts, locks, symlinks, modes, and what is preserved."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.errors import ConflictError, WriteError
from orgrouter.io.text import read_org_file
from orgrouter.io.transaction import (
    TEMP_PREFIX,
    FileOutcome,
    Status,
    Transaction,
    clean_stale_temps,
    write_snapshot,
)
from orgrouter.org.edit import AppendChild, Edit, SetProperty, edit_bytes

OLD_NS = 1_600_000_000_123_456_789


def _file(path: Path, data: bytes, mode: int = 0o644) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    os.utime(path, ns=(OLD_NS, OLD_NS))
    return path


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(TEMP_PREFIX))


def test_replace_writes_and_keeps_mode(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n", 0o640)
    outcome = write_snapshot(read_org_file(path), b"* a\nnew\n")
    assert outcome == FileOutcome(str(path), Status.WRITTEN)
    assert outcome.ok
    assert path.read_bytes() == b"* a\nnew\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _temps(tmp_path) == []


def test_unchanged_bytes_are_not_rewritten(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    inode = path.stat().st_ino
    outcome = write_snapshot(read_org_file(path), b"* a\n")
    assert outcome == FileOutcome(str(path), Status.UNCHANGED)
    assert path.stat().st_mtime_ns == OLD_NS
    assert path.stat().st_ino == inode


def test_file_changed_between_read_and_commit(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    path.write_bytes(b"* a\nuser typed this\n")
    outcome = write_snapshot(snap, b"* a\nours\n")
    assert outcome.status is Status.CONFLICT
    assert isinstance(outcome.error, ConflictError)
    assert str(outcome.error) == f"{path}: changed since it was read; not written"
    assert path.read_bytes() == b"* a\nuser typed this\n"
    assert _temps(tmp_path) == []


def test_same_size_and_mtime_but_other_bytes_is_caught_by_hash(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    _file(path, b"* b\n")  # same size, mtime put back
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (snap.size, snap.mtime_ns)
    outcome = write_snapshot(snap, b"* a\nours\n")
    assert outcome.status is Status.CONFLICT
    assert path.read_bytes() == b"* b\n"


def test_file_removed_after_read(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    path.unlink()
    outcome = write_snapshot(snap, b"x")
    assert outcome.status is Status.CONFLICT
    assert str(outcome.error) == f"{path}: was removed since it was read; not written"
    assert not path.exists()


def test_emacs_lock_refuses(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    (tmp_path / ".#a.org").symlink_to("user@host.1234:1700000000")  # dangling, as Emacs
    outcome = write_snapshot(snap, b"* a\nours\n")
    assert outcome.status is Status.CONFLICT
    assert str(outcome.error) == (
        f"{path}: Emacs is editing this file (lock .#a.org); "
        "skipped, it will be picked up by the next run"
    )
    assert path.read_bytes() == b"* a\n"
    assert path.stat().st_mtime_ns == OLD_NS


def test_symlink_target_is_written_and_link_stays(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = _file(real_dir / "t.org", b"* t\n", 0o600)
    link = tmp_path / "link.org"
    link.symlink_to(os.path.join("real", "t.org"))
    outcome = write_snapshot(read_org_file(link), b"* t\nnew\n")
    assert outcome == FileOutcome(str(link), Status.WRITTEN)
    assert link.is_symlink()
    assert os.readlink(link) == os.path.join("real", "t.org")
    assert target.read_bytes() == b"* t\nnew\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _temps(real_dir) == [] and _temps(tmp_path) == []


def test_emacs_lock_beside_symlink_target(tmp_path: Path) -> None:
    target = _file(tmp_path / "t.org", b"* t\n")
    link = tmp_path / "sub" / "link.org"
    link.parent.mkdir()
    link.symlink_to(target)
    snap = read_org_file(link)
    (tmp_path / ".#t.org").symlink_to("user@host.1:1")
    assert write_snapshot(snap, b"x").status is Status.CONFLICT
    assert target.read_bytes() == b"* t\n"


def test_symlink_retargeted_after_read(tmp_path: Path) -> None:
    one = _file(tmp_path / "one.org", b"* 1\n")
    two = _file(tmp_path / "two.org", b"* 1\n")
    link = tmp_path / "link.org"
    link.symlink_to(one)
    snap = read_org_file(link)
    link.unlink()
    link.symlink_to(two)
    outcome = write_snapshot(snap, b"x")
    assert outcome.status is Status.CONFLICT
    assert (one.read_bytes(), two.read_bytes()) == (b"* 1\n", b"* 1\n")


def test_crlf_bom_and_missing_final_newline_survive_an_edit(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf* Req @agent\r\nbody"
    path = _file(tmp_path / "w.org", data, 0o664)
    snap = read_org_file(path)
    edits: list[Edit] = [
        SetProperty(3, "ORGROUTER_STATUS", "done"),
        AppendChild(3, "R", ("ORGROUTER_RESULT", "1")),
    ]
    new = edit_bytes(snap.data, edits, newline=snap.newline)
    assert write_snapshot(snap, new).status is Status.WRITTEN
    assert path.read_bytes() == (
        b"\xef\xbb\xbf* Req @agent\r\n:PROPERTIES:\r\n:ORGROUTER_STATUS: done\r\n:END:\r\nbody"
        b"\r\n** R\r\n:PROPERTIES:\r\n:ORGROUTER_RESULT: 1\r\n:END:"
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    again = read_org_file(path)
    assert edit_bytes(again.data, edits, newline=again.newline) is again.data


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_is_kept(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.org", b"* a\n")
    os.chown(path, 1234, 2345)
    assert write_snapshot(read_org_file(path), b"* b\n").status is Status.WRITTEN
    assert (path.stat().st_uid, path.stat().st_gid) == (1234, 2345)


def test_create_new_file_with_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        transaction = Transaction()
        transaction.create(tmp_path / "new.py", b"print(1)\n")
        transaction.create(tmp_path / "tool.sh", b"#!/bin/sh\n", mode=0o755)
        outcomes = transaction.commit()
    finally:
        os.umask(old)
    assert [o.status for o in outcomes] == [Status.WRITTEN, Status.WRITTEN]
    assert (tmp_path / "new.py").read_bytes() == b"print(1)\n"
    assert stat.S_IMODE((tmp_path / "new.py").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "tool.sh").stat().st_mode) == 0o755
    assert _temps(tmp_path) == []


def test_create_refuses_existing_and_missing_parent(tmp_path: Path) -> None:
    _file(tmp_path / "there.py", b"mine\n")
    transaction = Transaction()
    transaction.create(tmp_path / "there.py", b"theirs\n")
    transaction.create(tmp_path / "no" / "dir" / "x.py", b"x\n")
    transaction.create(tmp_path / "made" / "dir" / "y.py", b"y\n", mkdirp=True)
    first, second, third = transaction.commit()
    assert first.status is Status.CONFLICT
    assert str(first.error) == f"{tmp_path / 'there.py'}: already exists; not overwritten"
    assert (tmp_path / "there.py").read_bytes() == b"mine\n"
    assert second.status is Status.FAILED
    assert isinstance(second.error, WriteError)
    assert str(second.error) == (
        f"{tmp_path / 'no' / 'dir' / 'x.py'}: directory {tmp_path / 'no' / 'dir'} "
        "does not exist (not created without mkdirp)"
    )
    assert not (tmp_path / "no").exists()
    assert third.status is Status.WRITTEN
    assert (tmp_path / "made" / "dir" / "y.py").read_bytes() == b"y\n"


def test_replace_by_expected_hash(tmp_path: Path) -> None:
    import hashlib

    path = _file(tmp_path / "out.py", b"v1\n", 0o755)
    sha = hashlib.sha256(b"v1\n").hexdigest()
    transaction = Transaction()
    transaction.replace(path, b"v1\n", expect_sha256=sha)
    assert transaction.commit()[0].status is Status.UNCHANGED
    assert path.stat().st_mtime_ns == OLD_NS
    transaction.replace(path, b"v2\n", expect_sha256=hashlib.sha256(b"other").hexdigest())
    assert transaction.commit()[0].status is Status.CONFLICT
    transaction.replace(path, b"v2\n", expect_sha256=sha)
    assert transaction.commit()[0].status is Status.WRITTEN
    assert path.read_bytes() == b"v2\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    with pytest.raises(ValueError, match="expect_sha256"):
        transaction.replace(path, b"v3\n")


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    a = _file(tmp_path / "a.org", b"a\n")
    b = _file(tmp_path / "b.org", b"b\n")
    snaps = [read_org_file(a), read_org_file(b)]
    a.write_bytes(b"a changed\n")
    transaction = Transaction()
    transaction.replace(snaps[0], b"A\n")
    transaction.replace(snaps[1], b"B\n")
    assert [o.status for o in transaction.commit()] == [Status.CONFLICT, Status.WRITTEN]
    assert (a.read_bytes(), b.read_bytes()) == (b"a changed\n", b"B\n")
    assert transaction.commit() == []  # a commit empties the transaction


def test_all_or_nothing_writes_none_on_a_conflict(tmp_path: Path) -> None:
    a = _file(tmp_path / "a.org", b"a\n")
    b = _file(tmp_path / "b.org", b"b\n")
    snaps = [read_org_file(a), read_org_file(b)]
    b.write_bytes(b"b changed\n")
    transaction = Transaction()
    transaction.replace(snaps[0], b"A\n")
    transaction.replace(snaps[1], b"B\n")
    transaction.create(tmp_path / "c.org", b"C\n")
    outcomes = transaction.commit(all_or_nothing=True)
    assert [o.status for o in outcomes] == [Status.SKIPPED, Status.CONFLICT, Status.SKIPPED]
    assert (a.read_bytes(), b.read_bytes()) == (b"a\n", b"b changed\n")
    assert not (tmp_path / "c.org").exists()


def test_stale_temp_files_of_dead_processes_are_cleaned(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    stale = tmp_path / f"{TEMP_PREFIX}{dead_pid}-abc"
    stale.write_bytes(b"half")
    mine = tmp_path / f"{TEMP_PREFIX}{os.getpid()}-def"
    mine.write_bytes(b"in progress")
    other = tmp_path / ".orgrouter-tmp-notapid"
    other.write_bytes(b"?")
    path = _file(tmp_path / "a.org", b"a\n")
    assert write_snapshot(read_org_file(path), b"b\n").status is Status.WRITTEN
    assert not stale.exists()
    assert mine.exists() and other.exists()
    assert clean_stale_temps(tmp_path) == []


def test_delete_checks_the_hash(tmp_path: Path) -> None:
    import hashlib

    keep = _file(tmp_path / "keep.toml", b"user's\n")
    gone = _file(tmp_path / "gone.toml", b"ours\n")
    transaction = Transaction()
    transaction.delete(keep, expect_sha256=hashlib.sha256(b"ours\n").hexdigest())
    transaction.delete(gone, expect_sha256=hashlib.sha256(b"ours\n").hexdigest())
    transaction.delete(tmp_path / "never.toml", expect_sha256="0" * 64)
    first, second, third = transaction.commit()
    assert first.status is Status.CONFLICT
    assert keep.read_bytes() == b"user's\n"
    assert second == FileOutcome(str(gone), Status.REMOVED)
    assert second.ok
    assert not gone.exists()
    assert third.status is Status.CONFLICT


def test_delete_waits_for_all_or_nothing(tmp_path: Path) -> None:
    import hashlib

    gone = _file(tmp_path / "gone.toml", b"ours\n")
    transaction = Transaction()
    transaction.delete(gone, expect_sha256=hashlib.sha256(b"ours\n").hexdigest())
    transaction.create(gone.parent / "gone.toml", b"clash\n")
    outcomes = transaction.commit(all_or_nothing=True)
    assert [o.status for o in outcomes] == [Status.SKIPPED, Status.CONFLICT]
    assert gone.read_bytes() == b"ours\n"


def test_file_saved_while_the_temp_file_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user saves in Emacs after the check but before the replace: the window the
    # second stat closes. Inject that save into the temp-file step.
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    real_write_temp = Transaction._write_temp

    def write_temp_and_user_saves(*args: object) -> None:
        real_write_temp(*args)  # type: ignore[arg-type]
        path.write_bytes(b"* a\nsaved meanwhile\n")

    monkeypatch.setattr(Transaction, "_write_temp", staticmethod(write_temp_and_user_saves))
    outcome = write_snapshot(snap, b"* a\nours\n")
    assert outcome.status is Status.CONFLICT
    assert str(outcome.error) == f"{path}: changed while being written; not written"
    assert path.read_bytes() == b"* a\nsaved meanwhile\n"
    assert _temps(tmp_path) == []


def test_a_hard_linked_file_is_refused_and_left_whole(tmp_path: Path) -> None:
    # Replacing one name of a hard-linked file would leave the other with the old bytes
    # (the link silently cut); writing in place would give up the atomic replace.
    path = _file(tmp_path / "a.org", b"* a\n")
    twin = tmp_path / "twin.org"
    os.link(path, twin)
    snap = read_org_file(path)
    outcome = write_snapshot(snap, b"* a\nnew\n")
    assert outcome.status is Status.FAILED
    assert isinstance(outcome.error, WriteError)
    assert str(outcome.error) == (
        f"{path}: has 2 hard links; orgrouter replaces a file to write it safely, which "
        "would cut this name off from the others, so it is not written (share the "
        "file through a symlink instead)"
    )
    assert path.read_bytes() == twin.read_bytes() == b"* a\n"
    assert os.stat(path).st_ino == os.stat(twin).st_ino and os.stat(path).st_nlink == 2
    assert os.stat(path).st_mtime_ns == OLD_NS
    assert _temps(tmp_path) == []
    # Removing a name (tangle's delete) only drops that name: allowed.
    transaction = Transaction()
    transaction.delete(twin, expect_sha256=snap.sha256)
    assert [o.status for o in transaction.commit()] == [Status.REMOVED]
    assert os.stat(path).st_nlink == 1
    assert write_snapshot(read_org_file(path), b"* a\nnew\n").status is Status.WRITTEN


def test_a_hard_link_made_while_the_temp_file_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check passed with one link; a second appears before the replace: refused all
    # the same, the temp file removed, both names still the original bytes.
    path = _file(tmp_path / "a.org", b"* a\n")
    snap = read_org_file(path)
    twin = tmp_path / "twin.org"
    real_write_temp = Transaction._write_temp

    def write_temp_and_link(*args: object) -> None:
        real_write_temp(*args)  # type: ignore[arg-type]
        os.link(path, twin)

    monkeypatch.setattr(Transaction, "_write_temp", staticmethod(write_temp_and_link))
    outcome = write_snapshot(snap, b"* a\nours\n")
    assert outcome.status is Status.FAILED
    assert "has 2 hard links" in str(outcome.error)
    assert path.read_bytes() == twin.read_bytes() == b"* a\n"
    assert _temps(tmp_path) == []


def test_the_check_before_a_write_hashes_the_file_in_pieces(tmp_path: Path) -> None:
    # A note's bytes are held twice while it is written (as read, and the new ones):
    # reading it whole a third time to hash it took a 60 MB note's route to 258 MB.
    import tracemalloc

    note = _file(tmp_path / "big.org", b"* Heading\n" + b"a line of the body\n" * 300_000)
    snapshot = read_org_file(note)
    new = snapshot.data + b"* Added\n"
    tracemalloc.start()
    try:
        outcome = write_snapshot(snapshot, new)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome.status is Status.WRITTEN and note.read_bytes() == new
    assert peak < len(new) // 4  # the file was 5.7 MB
