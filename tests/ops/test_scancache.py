"""The scan stage and its cache: an unchanged tree is decided from stat calls alone."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from orgrouter.prefilter import Prefilter, make_prefilter
from orgrouter.scancache import RACY_NS, ScanCache, Scanned, scan_one
from orgrouter.state import StateDB

PREFILTER = make_prefilter([], ["APPROVED", "REJECTED"])
OLD_NS = 1_600_000_000 * 10**9  # a fixed mtime well in the past, so entries are not racy


def write(path: Path, data: bytes, mtime_ns: int = OLD_NS) -> Path:
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def scan_files(paths: Iterable[Path], prefilter: Prefilter, cache: ScanCache) -> list[Scanned]:
    return [scan_one(path, prefilter, cache) for path in paths]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def statuses(paths: list[Path], cache: ScanCache) -> list[str]:
    return [s.status for s in scan_files(paths, PREFILTER, cache)]


@pytest.fixture
def tree(tmp_path: Path) -> list[Path]:
    notes = tmp_path / "notes"
    notes.mkdir()
    return [
        write(notes / "plain.org", b"* just notes\n"),
        write(notes / "ask.org", b"* @agent summarize\nbody\n"),
        write(notes / "crlf.org", b"\xef\xbb\xbf* @agent hi\r\n"),
    ]


def test_cold_then_warm(tmp_path: Path, tree: list[Path]) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        cache = ScanCache(db, PREFILTER.signature)
        results = list(scan_files(tree, PREFILTER, cache))
        assert [r.status for r in results] == ["clean", "candidate", "candidate"]
        snapshot = results[2].snapshot
        assert snapshot is not None
        assert snapshot.data == b"\xef\xbb\xbf* @agent hi\r\n"
        assert (snapshot.has_bom, snapshot.newline, snapshot.text) == (
            True,
            b"\r\n",
            "* @agent hi\r\n",
        )
        assert snapshot.mtime_ns == OLD_NS and snapshot.size == 16
        assert cache.flush() == 3
    with StateDB.open(tmp_path / "s.db") as db:
        cache = ScanCache(db, PREFILTER.signature)
        # Unsettled candidates are read again; a clean file is not opened.
        assert statuses(tree, cache) == ["cached", "candidate", "candidate"]
        cache.settle(tree[1], _sha(tree[1]))
        cache.settle(tree[2], _sha(tree[2]))
        cache.flush()
    os.utime(tree[1], ns=(OLD_NS, OLD_NS))  # settle() stats the file as it is now
    os.utime(tree[2], ns=(OLD_NS, OLD_NS))
    with StateDB.open(tmp_path / "s.db") as db:
        cache = ScanCache(db, PREFILTER.signature)
        cache.settle(tree[1], _sha(tree[1]))
        cache.settle(tree[2], _sha(tree[2]))
        cache.flush()
        assert statuses(tree, cache) == ["cached", "cached", "cached"]


def test_cached_file_is_not_opened(tmp_path: Path, tree: list[Path]) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    list(scan_files(tree, PREFILTER, cache))
    tree[0].chmod(0o000)  # unreadable now: a cache hit must not try to open it
    try:
        if os.geteuid() != 0:
            assert scan_one(tree[0], PREFILTER, cache).status == "cached"
        os.utime(tree[0], ns=(OLD_NS + 1, OLD_NS + 1))
        second = scan_one(tree[0], PREFILTER, cache)
        if os.geteuid() != 0:
            assert second.status == "failed"
            assert second.error is not None
            assert str(second.error) == f"{tree[0]}: permission denied: cannot read the file"
    finally:
        tree[0].chmod(0o644)


def test_edit_and_touch(tmp_path: Path, tree: list[Path]) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    list(scan_files(tree, PREFILTER, cache))
    cache.settle(tree[1], _sha(tree[1]))
    os.utime(tree[1], ns=(OLD_NS, OLD_NS))
    cache.settle(tree[1], _sha(tree[1]))
    assert statuses(tree[:2], cache) == ["cached", "cached"]
    # A touch without an edit: read again, hash unchanged, the answer holds.
    os.utime(tree[1], ns=(OLD_NS + 5, OLD_NS + 5))
    assert statuses([tree[1]], cache) == ["cached"]
    # The same size and mtime but new bytes: ctime and the hash catch it.
    write(tree[1], b"* @agent summariZE\nbody\n")
    assert statuses([tree[1]], cache) == ["candidate"]
    # A clean file gains a request.
    write(tree[0], b"* @agent now\n")
    assert statuses([tree[0]], cache) == ["candidate"]


def test_new_signature_rescans(tmp_path: Path, tree: list[Path]) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    list(scan_files(tree, PREFILTER, cache))
    other = make_prefilter(["hal"], ["APPROVED"])
    cache.signature = other.signature
    assert [s.status for s in scan_files(tree, other, cache)] == ["clean", "candidate", "candidate"]


def test_racy_entries_are_never_trusted_by_stat(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.org"
    fresh.write_bytes(b"* plain\n")
    cache = ScanCache(None, PREFILTER.signature)
    assert scan_one(fresh, PREFILTER, cache).status == "clean"
    entry = cache.get(fresh)
    assert entry is not None and entry.mtime_ns == -1
    assert time.time_ns() - fresh.stat().st_mtime_ns < RACY_NS
    # Not decided by stat, but the hash says it is the same clean file.
    assert scan_one(fresh, PREFILTER, cache).status == "cached"


def test_unsettle_and_forget_missing(tmp_path: Path, tree: list[Path]) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    list(scan_files(tree, PREFILTER, cache))
    cache.settle(tree[1], _sha(tree[1]))
    os.utime(tree[1], ns=(OLD_NS, OLD_NS))
    cache.settle(tree[1], _sha(tree[1]))
    cache.unsettle(tree[1])
    assert scan_one(tree[1], PREFILTER, cache).status == "candidate"
    assert cache.forget_missing_under(tree[0].parent, [tree[0], tree[2]]) == 1
    assert cache.get(tree[1]) is None and cache.get(tree[0]) is not None


def test_deleted_bad_and_special_files(tmp_path: Path) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    gone = scan_one(tmp_path / "gone.org", PREFILTER, cache)
    assert (gone.status, gone.reason) == ("skipped", "deleted during the run")
    bad = write(tmp_path / "bad.org", b"* @agent x\n\xff\n")
    failed = scan_one(bad, PREFILTER, cache)
    assert failed.status == "failed" and failed.error is not None
    assert (
        str(failed.error) == f"{bad}:2:1: invalid UTF-8 at byte 11 (0xff): Org files must be UTF-8"
    )
    # Latin-1 without a request is passed over, not failed: no request, nothing to say.
    assert (
        scan_one(write(tmp_path / "latin.org", b"* caf\xe9\n"), PREFILTER, cache).status == "clean"
    )
    os.mkfifo(tmp_path / "pipe.org")
    fifo = scan_one(tmp_path / "pipe.org", PREFILTER, cache)
    assert fifo.status == "failed" and fifo.error is not None
    assert fifo.error.message == "is not a regular file"
    big = write(tmp_path / "big.org", b"* @agent\n" + b"x" * 100)
    over = scan_one(big, PREFILTER, cache, max_bytes=50)
    assert over.error is not None
    assert over.error.message == "file is 109 bytes, over the limit of 50 bytes"


def test_cache_rows_survive_in_the_database(tmp_path: Path, tree: list[Path]) -> None:
    with StateDB.open(tmp_path / "s.db") as db:
        cache = ScanCache(db, PREFILTER.signature)
        list(scan_files(tree, PREFILTER, cache))
        cache.flush()
        rows = db.conn.execute(
            "SELECT path, size, mtime_ns, has_request, settled FROM scan_cache ORDER BY path"
        ).fetchall()
    assert rows == [
        (str(tree[1]), 24, OLD_NS, 1, 0),
        (str(tree[2]), 16, OLD_NS, 1, 0),
        (str(tree[0]), 13, OLD_NS, 0, 0),
    ]



def test_cache_keys_are_abspath_without_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The key of a relative name (`orgrouter route .`) is joined to the working
    # directory, not normalised: it must be what abspath gives for every name.
    import random

    from orgrouter.scancache import _key

    monkeypatch.chdir(tmp_path)
    rng = random.Random(7)
    parts = ["a", "b.org", ".", "..", "...", ".x", "x.", "é", "a b", "", "/"]
    names = ["x.org", "/abs/x.org", "a/../b.org", "./a.org", "a//b", "a/", "/", "."]
    names += ["/".join(rng.choice(parts) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    for name in names:
        if name:
            assert _key(name) == os.path.abspath(name), name
            assert _key(Path(name)) == os.path.abspath(Path(name)), name
    monkeypatch.chdir("/")
    assert _key("x.org") == os.path.abspath("x.org") == "/x.org"


def test_a_candidate_read_again_with_its_stat_unchanged_is_not_hashed_or_filtered_again(
    tree: list[Path],
) -> None:
    cache = ScanCache(None, PREFILTER.signature)
    first = scan_files(tree, PREFILTER, cache)
    asked: list[bytes] = []

    class Counting(Prefilter):
        def matches(self, data: bytes) -> bool:
            asked.append(data)
            return super().matches(data)

    counting = Counting(PREFILTER.addresses, PREFILTER.answer_keywords)
    again = scan_files(tree[1:], counting, cache)
    assert asked == [] and again == first[1:]  # the same snapshots, the hash as read
    assert [s.snapshot.sha256 for s in again if s.snapshot] == [_sha(p) for p in tree[1:]]
    # Edited (its stat moved, its size too): hashed and filtered as any read.
    write(tree[1], b"* @agent summarize this\nbody\n", OLD_NS + 1)
    edited = scan_one(tree[1], counting, cache)
    assert asked and edited.snapshot is not None and edited.snapshot.sha256 == _sha(tree[1])
    # Racy (written within RACY_NS of its read): its entry's mtime matches nothing.
    racy = write(tree[0].parent / "racy.org", b"* @agent hi\n", time.time_ns())
    scan_one(racy, PREFILTER, cache)
    asked.clear()
    assert scan_one(racy, counting, cache).status == "candidate" and asked
