"""The scan stage: which discovered files need parsing, decided from stat calls when possible.

For every file the cache remembers (size, mtime, ctime, inode, hash, whether the
prefilter matched, and whether the router settled it: found nothing left to do in
exactly those bytes). A file whose stat is unchanged and that either cannot hold a
request or was settled is passed over without being opened, so a warm run over an
unchanged tree costs one ``stat`` per file. Everything else is read once; the bytes of
a candidate travel forward in an ``io.text.Snapshot`` so no later stage reads it again.

A file written less than ``RACY_NS`` before it was recorded may change again within
the same mtime tick without its stat changing (git's "racy clean" problem), so such
entries are recorded with an mtime that can never match; the next run re-reads the
file, and if its hash is unchanged the cached answer still holds.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable

from orgrouter.errors import ConflictError, InputError
from orgrouter.io.text import DEFAULT_MAX_BYTES, Snapshot, decode_org, read_stable, snapshot_of
from orgrouter.prefilter import Prefilter
from orgrouter.records import NamedTuple
from orgrouter.state import StateDB

SCHEMA = "scan_cache"
SCHEMA_VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS scan_cache (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    hash TEXT NOT NULL,
    has_request INTEGER NOT NULL,
    settled INTEGER NOT NULL,
    signature TEXT NOT NULL
);
"""
RACY_NS = 2_000_000_000
# ``settled``: 1, nothing left to do in these bytes; WAITING, only a WAITING approval,
# which nothing but the user's edit (a new stat) can answer. A full run still reads
# such a file (``route --json`` lists its requests); ``orgrouter.warm`` passes it over.
SETTLED, WAITING = 1, 2
# The run memo key (``StateDB.run_memo``) saying that this run's scan reads every note:
# the cache knew none (a first run over the tree, or --force). ``search`` reads it.
READS_EVERY_NOTE = "scan:reads_every_note"


class Entry(NamedTuple):
    """What the cache knows about one file (a tuple: a cold run makes one per note)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    hash: str
    has_request: bool
    settled: int  # 0, SETTLED or WAITING
    signature: str


class ScanCache:
    """The scan cache table of a state database (or an empty one, with ``db=None``)."""

    def __init__(self, db: StateDB | None, signature: str) -> None:
        self.db = db
        self.signature = signature
        self._entries: dict[str, Entry] = {}
        self._dirty: dict[str, Entry] = {}
        if db is not None:
            db.ensure_schema(SCHEMA, SCHEMA_VERSION, DDL)
            rows = db.conn.execute(
                "SELECT path, size, mtime_ns, ctime_ns, inode, hash, has_request, settled, "
                "signature FROM scan_cache"
            )
            self._entries = {row[0]: Entry(*row[1:]) for row in rows}  # has_request: 0 or 1

    @property
    def knows_nothing(self) -> bool:
        """Return whether no file is remembered (every file is read this run)."""
        return not self._entries

    def get(self, path: str | os.PathLike[str]) -> Entry | None:
        """Return the entry for ``path`` (as an absolute path), if any."""
        return self._entries.get(_key(path)) if self._entries else None

    def record(
        self,
        path: str | os.PathLike[str],
        st: os.stat_result,
        digest: str,
        has_request: bool,
        *,
        settled: int | None = None,
    ) -> None:
        """Remember what a read of ``path`` found; ``settled`` None keeps a same-hash answer."""
        self._put(_key(path), st, digest, has_request, settled)

    def _put(
        self, key: str, st: os.stat_result, digest: str, has_request: bool, settled: int | None
    ) -> None:
        old = self._entries.get(key)
        if settled is None:
            same = old is not None and old.hash == digest and old.signature == self.signature
            settled = old.settled if same and old is not None else 0
        mtime_ns = st.st_mtime_ns
        if time.time_ns() - mtime_ns < RACY_NS:
            mtime_ns = -1
        entry = Entry(
            st.st_size,
            mtime_ns,
            st.st_ctime_ns,
            st.st_ino,
            digest,
            has_request,
            settled,
            self.signature,
        )
        if old != entry:
            self._entries[key] = entry
            self._dirty[key] = entry

    def settle(
        self, path: str | os.PathLike[str], digest: str, *, waiting: bool = False
    ) -> None:
        """Mark ``path``, as it is on disk now, as holding no work left for a run.

        ``waiting``: none but WAITING approvals, which only the user's edit can answer.

        Call it after routing a file (and after writing it): never in ``--check`` or
        ``--dry-run`` runs, and never while work is left for a later run (a failed
        request waiting out its retry window, a WAITING approval), or the next run
        would pass the file over and the retry or the answer would never be seen.
        """
        try:
            st = os.stat(path)
        except OSError:
            self.forget(path)
            return
        self.record(path, st, digest, has_request=True, settled=WAITING if waiting else SETTLED)

    def unsettle(self, path: str | os.PathLike[str]) -> None:
        """Make the next run read ``path`` again even if it looks unchanged."""
        key = _key(path)
        entry = self._entries.get(key)
        if entry is not None and entry.settled:
            changed = entry._replace(settled=0)
            self._entries[key] = changed
            self._dirty[key] = changed

    def forget(self, path: str | os.PathLike[str]) -> None:
        """Drop what the cache knows about ``path``."""
        key = _key(path)
        if self._entries.pop(key, None) is not None:
            self._dirty[key] = _GONE

    def forget_missing_under(self, root: str | os.PathLike[str], present: Iterable[str]) -> int:
        """Drop entries under ``root`` whose files were not discovered; return how many."""
        prefix = _key(root).rstrip(os.sep) + os.sep
        keep = {_key(p) for p in present}
        gone = [k for k in self._entries if k.startswith(prefix) and k not in keep]
        for key in gone:
            self.forget(key)
        return len(gone)

    def flush(self) -> int:
        """Write the changes of this run in one transaction; return how many rows."""
        if self.db is None or not self._dirty:
            self._dirty.clear()
            return 0
        changed = len(self._dirty)
        gone = [(key,) for key, entry in self._dirty.items() if entry is _GONE]
        rows = [(key, *entry) for key, entry in self._dirty.items() if entry is not _GONE]
        with self.db.transaction() as conn:  # one statement each: 20,000 rows in 30 ms
            conn.executemany("DELETE FROM scan_cache WHERE path = ?", gone)
            conn.executemany(
                "INSERT OR REPLACE INTO scan_cache (path, size, mtime_ns, ctime_ns, inode, "
                "hash, has_request, settled, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        self._dirty.clear()
        return changed


_GONE = Entry(-1, -1, -1, -1, "", False, 0, "")


def _key(path: str | os.PathLike[str]) -> str:
    """Return the cache key of a path: absolute, not resolved (a symlink is its own entry)."""
    name = os.fspath(path)
    # Discovery hands over normal paths, absolute or (`orgrouter route .`, a cron job
    # run from the notes) relative; abspath() on each of them was a tenth of a cold
    # scan. Only a name that may hold a "." or ".." part, or "//", is normalised.
    if name.startswith(".") or name.endswith("/") or "/." in name or "//" in name:
        return os.path.abspath(name)
    return name if name.startswith("/") else os.path.join(os.getcwd(), name)


class Scanned(NamedTuple):
    """The scan stage's verdict on one file.

    ``status`` is ``cached`` (unchanged since a run that left nothing to do, not
    opened), ``clean`` (read; cannot hold a request), ``candidate`` (read; may hold
    work: ``snapshot`` has its bytes), ``skipped`` (``reason`` says why; picked up by
    a later run) or ``failed`` (``error`` says why).
    """

    path: str
    status: str
    snapshot: Snapshot | None = None
    reason: str | None = None
    error: InputError | None = None
    retry: bool = True  # skipped: a later run picks the file up
    data: bytes | None = None  # clean: the bytes read (a cold run searches them)


def scan_one(
    path: str, prefilter: Prefilter, cache: ScanCache, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Scanned:
    """Decide whether one file needs parsing, with its bytes when it does."""
    key = _key(path)  # once: a cold scan's get and record both need it
    entry = cache._entries.get(key)
    # An answer that holds for these bytes: nothing left to do, or nothing to do at all.
    done = entry is not None and entry.signature == cache.signature and (
        entry.settled == SETTLED or not entry.has_request
    )
    # A file the cache does not know, or must read anyway, is read whatever its stat
    # says: the read's own fstat is the stat (a cold run over 20,000 notes paid a tenth
    # of its scan for it).
    if done and entry is not None:
        try:
            st = os.stat(path)
        except OSError as error:
            return _unstatable(path, error, cache)
        if entry[:4] == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
            return Scanned(path, "cached")  # unchanged since: not opened
    try:
        data, st = read_stable(path, max_bytes=max_bytes)
    except ConflictError as error:
        return Scanned(path, "skipped", reason=error.reason)
    except InputError as error:
        try:
            os.stat(path)
        except OSError as stat_error:
            return _unstatable(path, stat_error, cache)
        return Scanned(path, "failed", error=error)
    if (
        entry is not None
        and entry.has_request
        and entry.signature == cache.signature
        and entry[:4] == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    ):
        # A candidate unchanged since it was read (by this run, whose memory budget let
        # its bytes go, or by one that left work in it): the cache trusts a stat as it
        # does to pass a file over, so neither hash nor prefilter runs again (a racy
        # entry's mtime never matches). 200 notes of 1 MB: a sixth of the run.
        return _candidate(path, data, st, entry.hash, cache, key, max_bytes)
    digest = hashlib.sha256(data).hexdigest()
    if done and entry is not None and entry.hash == digest:
        # Touched but not edited (a sync tool, `touch`): the answer still holds.
        cache._put(key, st, digest, entry.has_request, None)
        return Scanned(path, "cached")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\0" in data:
        # UTF-16 or binary: the prefilter cannot see an address in it, but it is no
        # note orgrouter can read, and the user should hear so on every run.
        try:
            decode_org(data, path, max_bytes=max_bytes)
        except InputError as error:
            return Scanned(path, "failed", error=error)
    if not prefilter.matches(data):
        cache._put(key, st, digest, False, 0)
        return Scanned(path, "clean", data=data)
    return _candidate(path, data, st, digest, cache, key, max_bytes)


def _candidate(
    path: str,
    data: bytes,
    st: os.stat_result,
    digest: str,
    cache: ScanCache,
    key: str,
    max_bytes: int,
) -> Scanned:
    """Return the verdict on a file that may hold work, read as ``data``, recording it."""
    try:
        snapshot = snapshot_of(
            path, os.path.realpath(path), data, st, sha256=digest, max_bytes=max_bytes
        )
    except InputError as error:
        return Scanned(path, "failed", error=error)
    cache._put(key, st, digest, True, 0)
    return Scanned(path, "candidate", snapshot=snapshot)


def _unstatable(path: str, error: OSError, cache: ScanCache) -> Scanned:
    """Return the verdict on a file whose stat failed: gone since discovery, or failed."""
    if isinstance(error, FileNotFoundError):
        # Deleted between discovery and scan: nothing to do, and nothing lost.
        cache.forget(path)
        return Scanned(path, "skipped", reason="deleted during the run", retry=False)
    return Scanned(path, "failed", error=InputError(f"cannot stat: {error.strerror}", path=path))
