"""Route whole notes trees: discovery, scan cache, run lock, transactions, report.

``run_route`` is what ``orgrouter route PATH...`` does. An unchanged tree is checked
with one ``stat`` per file (the scan cache), and neither the skills, the gate nor
their grammar are imported until a file actually holds work. A file that fails,
changed under us, or is locked by Emacs is reported and the run goes on; the next
run picks it up. Files are routed one after another, in discovery order.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.config import Config
from orgrouter.errors import ConfigError, ConflictError, OrgRouterError, StateError
from orgrouter.io.text import BOM
from orgrouter.progress import Progress, progress_for
from orgrouter.records import replace
from orgrouter.report import Report
from orgrouter.route.router import Router, RunOptions
from orgrouter.writemode import WriteMode, unified_diff

if TYPE_CHECKING:  # the pipeline (skills, edits) loads only when a file holds work
    from orgrouter.discover import Discovery
    from orgrouter.io.text import Snapshot
    from orgrouter.prefilter import Prefilter
    from orgrouter.route.pipeline import DocumentOutcome, Found
    from orgrouter.scancache import ScanCache, Scanned
    from orgrouter.skills.search import Lookup


def run_route(
    paths: Sequence[str | os.PathLike[str]],
    config: Config,
    report: Report,
    options: RunOptions,
    environ: Mapping[str, str] = os.environ,
) -> None:
    """Route every Org file under ``paths``, recording each outcome in ``report``."""
    from orgrouter.discover import RUN_DISCOVERY, discover, find_notes_root
    from orgrouter.eventlog import EventLog
    from orgrouter.prefilter import prefilter_for
    from orgrouter.scancache import READS_EVERY_NOTE, ScanCache, scan_one
    from orgrouter.state import StateDB

    # The directory of orgrouter.toml (else the paths' common root): a route of one
    # file shares the tree's lock, state and search scope with the cron run.
    root = find_notes_root(paths)
    found = discover(paths, config.scan)
    for error in found.errors:
        report.fail(error)
    for odd, reason in found.odd:  # named like notes, but not files orgrouter can route
        report.skip(odd, reason, retry=False)
    # What a run allocates mostly lives to its end (the cache's entries, the kept
    # candidates, the parsed requests): collecting every 700 new objects walked them
    # again and again, 0.05 s of a 20,000-note cold run; every 10,000, half that.
    threshold = gc.get_threshold()
    lock = None
    if options.mode.writes:
        from orgrouter.runlock import RunLock

        lock = RunLock(root, environ)
        lock.acquire()
    state = None
    log: EventLog | None = None
    try:
        gc.set_threshold(max(threshold[0], GC_YOUNG), *threshold[1:])
        state = StateDB.open(options.state_path) if options.state_path is not None else None
        prefilter = prefilter_for(config)
        # --force reads every file again: a settled file may hold requests to redo.
        cache = ScanCache(None if options.force else state, prefilter.signature)
        if state is not None:
            state.run_memo[READS_EVERY_NOTE] = cache.knows_nothing
            state.run_memo[RUN_DISCOVERY] = found
        router = Router(config, options, root, state)
        router.pending = _settle_moves(state, report) if options.mode.writes else set()
        log = EventLog(log_path=options.log_path, db=state)
        log.emit("run_start", root=str(root), mode=options.mode.value, files=len(found.files))
        if lock is not None and lock.taken_over is not None:
            # The run before was killed (its pid was still in the lock file).
            log.emit("lock_taken_over", root=str(root), holder_id=lock.taken_over)
        bar = progress_for(len(found.files), quiet=report.quiet)
        report.emit = _above(bar, report.emit)
        # Every file is scanned before any is routed: a cold run's searches are learned
        # from the candidates and answered from the text the scan reads (_Learning).
        learning = _Learning(router, found) if state is not None and cache.knows_nothing else None
        kept: list[tuple[Scanned, Found | None]] = []  # what each file asks, in order
        held = 0  # memory the kept candidates hold; past KEEP_BYTES, one is read again
        for path in found.files:
            scanned = scan_one(path, prefilter, cache)
            bar.advance()
            report.file_scanned(cached=scanned.status == "cached")
            requests = learning.take(scanned) if learning is not None else None
            if scanned.status in ("skipped", "failed", "candidate"):
                size = _held(scanned.snapshot, requests)
                if held + size > KEEP_BYTES:
                    scanned, requests, size = scanned._replace(snapshot=None), None, 0
                held += size
                kept.append((scanned, requests))
        if learning is not None and learning.lookup is not None:
            learning.lookup.scanned_all()
        # The routing is the slow phase with a model: the bar goes on over the candidates.
        bar.restart(sum(scanned.status == "candidate" for scanned, _ in kept), "routing")
        for scanned, requests in kept:
            if scanned.status == "candidate":
                bar.advance()
                now = _current(scanned, prefilter, cache)
                scanned, requests = now, requests if now is scanned else None
            if scanned.status == "skipped":
                report.skip(scanned.path, scanned.reason or "skipped", retry=scanned.retry)
            elif scanned.status == "failed" and scanned.error is not None:
                report.fail(scanned.error)
            elif scanned.status == "candidate" and os.path.realpath(scanned.path) in router.pending:
                report.skip(scanned.path, "an interrupted move across files is not settled yet")
            elif scanned.status == "candidate" and scanned.snapshot is not None:
                before = report.as_counts()
                route_file(scanned.snapshot, router, report, options, cache, requests)
                log.emit("file_routed", path=os.fspath(scanned.path), **_delta(before, report))
        bar.close()
        # The skills' load warnings, once (none unless a file was routed).
        for warning in router.warnings:
            report.emit(warning)
        if options.mode.writes:
            for walked in found.walked:  # a run given one file says nothing of the rest
                cache.forget_missing_under(walked, found.files)
        cache.flush()
        if options.warm_key is not None and state is not None:
            from orgrouter.warm import record

            record(state, os.fspath(paths[0]), options.warm_key, prefilter.signature)
        log.emit("run_end", **report.as_counts(), duration_ms=log.elapsed_ms())
    finally:
        gc.set_threshold(*threshold)
        if log is not None:
            log.close()
        if lock is not None:
            lock.release()
        if state is not None:
            state.close()


GC_YOUNG = 10_000  # new objects between two collections of the youngest generation
KEEP_BYTES = 4 << 20  # of the memory candidates hold from scan to routing
REQUEST_BYTES = 2 << 10  # what a request found holds, its headlines too (1.7 KB measured)


def _held(snapshot: Snapshot | None, requests: Found | None) -> int:
    """Return the memory a kept candidate holds: its bytes and its requests.

    The requests count: 150 notes of 16 KB with 400 requests each held 127 MB.
    """
    if snapshot is None:
        return 0
    if requests is None:
        return len(snapshot.data)
    # The gate's verdicts on them (Router.plan) weigh about as much (1.8 KB measured).
    verdicts = {id(gate) for gate in requests.gates.values()}  # one for requests alike
    return len(snapshot.data) + (len(requests.requests) + len(verdicts)) * REQUEST_BYTES


class _Learning:
    """A cold run's searches, learned from its candidates while the scan reads every note.

    The requests of each candidate tell the run's ``Lookup`` (``skills/search.py``) the
    words they will search for, and every note's text is given to it as it is read, so
    the searches are answered when routing starts without reading the notes again.
    """

    def __init__(self, router: Router, found: Discovery) -> None:
        self.router, self.found = router, found
        self.lookup: Lookup | None = None
        self.given = 0  # notes scanned so far
        self.off = False  # the run's searches cannot be answered from its scan

    def take(self, scanned: Scanned) -> Found | None:
        """Learn the searches of one file just scanned, and give its text; return its requests."""
        snapshot, requests = scanned.snapshot, None
        if snapshot is not None and not self.off:
            try:
                data, path, newline = snapshot.data, snapshot.path, snapshot.newline
                searches, requests = self.router.plan(data, path, newline)
            except Exception:  # a fault here is the route's to report, for this file only
                searches, requests = [], None
            for words in searches:
                if self.lookup is None:
                    from orgrouter.skills.search import lookup_for

                    state, root = self.router.state, self.router.root
                    lookup = lookup_for(state, root, self.router.config) if root else None
                    if lookup is None or not lookup.learns_from(self.found, self.given):
                        self.off = True
                        break
                    self.lookup = lookup
                self.lookup.learn(words)
        self.given += 1
        if self.lookup is not None:
            self.lookup.offer(_text(scanned))
        return requests


def _text(scanned: Scanned) -> str | None:
    """Return the text of a file scanned as a search reads it (None: it cannot)."""
    if scanned.snapshot is not None:
        return scanned.snapshot.text
    if scanned.data is None:
        return None  # failed or skipped (a cold run reads every note: none is "cached")
    try:  # clean: scan_one already refused a binary, UTF-16 or oversized file
        return scanned.data.removeprefix(BOM).decode()
    except UnicodeDecodeError:
        return None


def _current(scanned: Scanned, prefilter: Prefilter, cache: ScanCache) -> Scanned:
    """Return a candidate as it stands now: scanned again if changed since, or not kept."""
    from orgrouter.scancache import scan_one

    snapshot = scanned.snapshot
    if snapshot is not None:
        entry = cache.get(snapshot.path)
        try:
            st = os.stat(snapshot.path)
        except OSError:
            st = None
        if st is not None and entry is not None:
            now = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            if now == (snapshot.size, snapshot.mtime_ns, entry.ctime_ns, entry.inode):
                return scanned
    # As a run that scanned it now would see it: a move of this run may have written it.
    return scan_one(scanned.path, prefilter, cache)


def _delta(before: dict[str, int], report: Report) -> dict[str, int]:
    """Return what one file added to the run's counts (for its event)."""
    after = report.as_counts()
    keys = ("requests_routed", "results_written", "changed", "skipped", "failed")
    return {key: after[key] - before[key] for key in keys}


def _above(bar: Progress, emit: Callable[[str], None]) -> Callable[[str], None]:
    """Return ``emit`` erasing the progress bar first, so messages never share its line."""

    def emit_above(message: str) -> None:
        bar.close()  # the next advance draws it again below the message
        emit(message)

    return emit_above


def route_file(
    snapshot: Snapshot,
    router: Router,
    report: Report,
    options: RunOptions,
    cache: ScanCache,
    requests: Found | None = None,
) -> None:
    """Route one candidate file read as ``snapshot``; write, diff or count the outcome.

    ``requests``: what ``Router.plan`` found in these bytes.
    """
    path = snapshot.path
    try:
        outcome = router.route(snapshot.data, path, snapshot.newline, requests)
    except ConfigError:
        raise  # a bad model configuration fails the run, not one file
    except OrgRouterError as error:
        report.fail(error if error.path else OrgRouterError(error.message, path=path))
        return
    except Exception as error:  # one bad file never stops a run (STYLE.md 4)
        report.fail(path, f"internal error: {type(error).__name__}: {error}")
        return
    if outcome.data == snapshot.data:
        _tell(options, outcome)
        if any(r.status == "deferred" for r in outcome.requests):
            report.skip(path, "deferred: model time spent")  # neuro.run_timeout_s
        else:
            report.file_unchanged(path)
        if options.mode.writes and not outcome.retry:
            cache.settle(path, snapshot.sha256, waiting=outcome.deferred)
        _record_history(router, report, snapshot, outcome)
        return
    if options.mode is WriteMode.DIFF:
        options.on_diff(unified_diff(snapshot.data, outcome.data, path))
        for other in outcome.writes:
            shown = os.path.relpath(other.path) if not os.path.isabs(path) else other.path
            options.on_diff(unified_diff(other.before or b"", other.data, shown))
    if options.mode.writes and outcome.writes:
        refused = _commit_move(router, report, snapshot, outcome, cache)
        if refused is not None:
            _tell(options, outcome, *refused)
            return
        _record_history(router, report, snapshot, outcome)
    elif options.mode.writes:
        from orgrouter.io.transaction import Status, write_snapshot

        written = write_snapshot(snapshot, outcome.data)
        if written.status is Status.CONFLICT:
            conflict = written.error
            reason = (
                conflict.reason if isinstance(conflict, ConflictError) else "changed during the run"
            )
            _tell(options, outcome, "skipped", f"{reason}; will retry")
            report.skip(path, reason)
            cache.unsettle(path)
            return
        if not written.ok:
            failure = written.error or OrgRouterError("cannot write", path=path)
            _tell(options, outcome, "failed", failure.message)
            report.fail(failure)
            return
        if not outcome.retry:
            cache.settle(path, hashlib.sha256(outcome.data).hexdigest(), waiting=outcome.deferred)
        _record_history(router, report, snapshot, outcome)
    _tell(options, outcome)
    report.done(path, requests=outcome.routed, results=outcome.results)


def _tell(
    options: RunOptions, outcome: DocumentOutcome, status: str | None = None, reason: str = ""
) -> None:
    """Give each request's report to ``on_request``; ``status`` when the file was not written.

    A request routed in a file that could not be written is not done: ``--json`` says
    ``skipped`` (or ``failed``) with the reason, and the next run routes it again.
    """
    for request in outcome.requests:
        if status is not None and request.status != "unchanged":
            request = replace(request, status=status, reason=reason)
        options.on_request(request)


def _settle_moves(state: Any, report: Report) -> set[str]:
    """Settle the moves a killed run left; return the files still held by one."""
    if state is None:
        return set()
    from orgrouter.route.journal import pending_paths, recover

    for settled in recover(state):
        names = ", ".join(settled.paths)
        if settled.outcome == "completed":
            report.emit(f"completed an interrupted move: {names}")
        elif settled.outcome == "pending":
            report.emit(f"orgrouter: warning: an interrupted move waits: {settled.reason}")
        elif settled.outcome == "dropped":
            report.emit(f"an interrupted move was not made ({settled.reason}); it is asked again")
    return pending_paths(state)


def _commit_move(
    router: Router, report: Report, snapshot: Snapshot, outcome: DocumentOutcome, cache: ScanCache
) -> tuple[str, str] | None:
    """Write a note and the other files its approved moves change.

    Return None when written, else the status and reason its requests report
    (``skipped``: it waits for a later run; ``failed``).
    """
    from orgrouter.route.journal import Planned, commit_move
    from orgrouter.skills.search import Lookup

    path = snapshot.path
    if router.state is None:
        reason = "a move across files needs the state database (its journal); not moved"
        report.skip(path, reason, retry=False)
        return "skipped", reason
    others = [Planned(w.path, w.before, w.data) for w in outcome.writes]
    try:
        commit_move(
            router.state, snapshot, outcome.data, others, now=router.options.now.isoformat()
        )
    except ConflictError as error:
        report.skip(path, error.reason)
        cache.unsettle(path)
        _reinstate_approvals(router.state, path, outcome)
        return "skipped", f"{error.reason}; will retry"
    except OrgRouterError as error:
        report.fail(error if error.path else OrgRouterError(error.message, path=path))
        return "failed", error.message
    if not outcome.retry:  # a failed request beside the move waits out its window
        cache.settle(path, hashlib.sha256(outcome.data).hexdigest(), waiting=outcome.deferred)
    for memo in router.state.run_memo.values():  # the scan's answers predate the move
        if isinstance(memo, Lookup):
            memo.notes_moved()
    for other in [] if report.quiet else outcome.writes:
        report.emit(f"moved into {other.path}")
    return None


def _reinstate_approvals(state: Any, path: str, outcome: DocumentOutcome) -> None:
    """Put back the approvals of moves that wait, so the next run acts without asking."""
    from orgrouter.route.binding import reinstate

    note = str(Path(path).resolve())
    digests = {m.approval for r in outcome.requests for m in r.moves if m.approval}
    for digest in sorted(digests):
        reinstate(state, note, digest)


def _record_history(
    router: Router, report: Report, snapshot: Snapshot, outcome: DocumentOutcome
) -> None:
    """Record the file's routed requests and edited results for refine (real runs only)."""
    if router.state is None or not router.options.mode.writes:
        return
    from orgrouter.route.history import record_route

    run = router.options.now.isoformat(timespec="seconds")  # the ORGROUTER_RUN stamp
    try:
        record_route(
            router.state,
            run,
            snapshot.path,
            snapshot.data,
            snapshot.newline,
            outcome.requests,
            root=router.root,
        )
    except StateError as error:  # the note is written; only refine's history is short
        report.emit(f"orgrouter: warning: {error}")
