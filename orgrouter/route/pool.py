"""Route candidate files in worker processes when a run has many of them.

Only the pure part of routing moves: a worker turns a file's bytes into its routed
bytes and request reports (``Router.route``). Everything that writes or must stay in
order stays in the parent, which takes the answers back in file order: the
transaction and its re-check against the snapshot, the scan cache, route history, the
event log, the report and every message, ``--diff`` and ``--json`` line. So a pooled
run prints and writes exactly what a serial run does.

A run stays serial (``workers_for``, ``RouteAhead``) when:

- it has fewer than ``limits.pool_from`` candidate files (256): starting the workers (a fork
  each, then the rules and a state connection in each) costs more than a few routes;
- a model backend is configured: the run's token budget and the spawn rate window are
  shared by all its files and must not be multiplied by the workers, and model calls
  wait on the network, not on the CPU;
- one CPU, or ``ORGROUTER_WORKERS=1``. ``--stdin`` routes one document and never
  reaches the runner.

A skill whose effects reach beyond the document being routed never acts in a worker:
``search`` reads the other notes (which earlier files of this very run may just have
changed), ``tangle`` writes targets and the state database, and a user skill may do
anything. When one is about to act, the worker gives the whole file back and the
parent routes it at its turn, exactly as a serial run would.

A file that fails in a worker is reported for that file. A worker that dies (killed,
out of memory) loses the files it held: each is then routed again alone in a fresh
worker, so the one that kills it is the one reported, and the run goes on.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.config import Config
from orgrouter.errors import ConfigError, OrgRouterError
from orgrouter.route.kernel import NotHere
from orgrouter.route.router import Router, RunOptions
from orgrouter.writemode import WriteMode

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from orgrouter.io.text import Snapshot
    from orgrouter.route.pipeline import DocumentOutcome, RouteEnv
    from orgrouter.scancache import Scanned
    from orgrouter.skills.base import Context, Skill, Stimulus

PER_WORKER = 16  # files in flight per worker: keeps it busy, bounds the parent's memory
MAX_WAITING_BYTES = 8 * 1024 * 1024  # of candidates waiting (each held as bytes and text)
CRASHED = "internal error: the worker process routing it stopped abruptly (killed, out of memory?)"
# limits.pool_from (256): `python bench/pool.py` (cold route --dry-run, 2 CPUs shared with other
# work, notes of ~15 kB, one in five with a request, median of 5), pooled ÷ serial wall:
# 65 candidates 1.16, 130: 0.95, 194: 1.05, 259: 0.58; the pool's CPU time is 15-30 %
# more at every size and its peak memory about twice (57 vs 28 MB: each worker holds
# the skills and rules). On an idle machine (0.1's figures) 64 broke even and 400 gained
# 20 %. So a run pools only from about 256 candidates, where the gain is clear..


def workers_for(config: Config, processes: int) -> int:
    """Return how many worker processes a run routes in beside its own (0: serially).

    The run's own process counts as one: it scans, writes, and routes the files
    workers give back, so on two CPUs one worker beside it is the measured best.
    """
    from orgrouter.skills.registry import uses_models

    return 0 if uses_models(config) else processes - 1


# -- in a worker -----------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What a worker needs to build the run's route environment (picklable)."""

    config: Config
    mode: WriteMode
    now: datetime
    force: bool
    root: Path | None
    state_path: Path | None
    config_dir: Path | None
    parent: int = 0  # the run's pid: a worker dies with it
    rules_cache: Path | None = None

    @classmethod
    def of(cls, router: Router) -> Setup:
        """Return the setup that rebuilds ``router``'s environment in a worker."""
        options = router.options
        return cls(
            router.config,
            options.mode,
            options.now,
            options.force,
            router.root,
            options.state_path if router.state is not None else None,
            options.config_dir,
            os.getpid(),
            options.rules_cache,
        )


@dataclass(frozen=True)
class Task:
    """One candidate file's bytes, as the parent read them."""

    path: str
    data: bytes
    newline: bytes


ROUTED, FAILED, HERE = "routed", "failed", "here"


@dataclass(frozen=True)
class Answer:
    """A worker's answer: routed, failed (an error for the file), or route it here."""

    kind: str
    outcome: DocumentOutcome | None = None
    error: tuple[str, str | None, int | None, int | None] | None = None  # message, where
    warnings: tuple[str, ...] | None = None  # the skills' load warnings, if it used them


class _ParentOnly:
    """A skill that must not act in a worker: acting gives the file back instead."""

    def __init__(self, skill: Skill) -> None:
        self.skill = skill
        self.name = skill.name
        self.priority = skill.priority
        # The guardian leaves a self-binding skill's intents to it (route/binding.py):
        # hidden behind this wrapper, it would ask for approval without the plan.
        self.binds_approvals = bool(getattr(skill, "binds_approvals", False))

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether the skill wants ``stimulus`` (deciding that has no effects)."""
        return self.skill.trigger(stimulus, ctx)

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Give the file back: the skill would act."""
        raise NotHere(self.name)

    def symbolic(self, proposal: object, ctx: Context) -> None:
        """Give the file back: the skill would act."""
        raise NotHere(self.name)


class WorkerRouter(Router):
    """The run's Router rebuilt in a worker, its effectful skills handing files back."""

    used_env = False  # whether the current file got as far as the environment
    _guarded = False

    def env(self, file_agent: str | None) -> RouteEnv:
        """Return the route environment, built once with parent-only skills guarded."""
        env = super().env(file_agent)
        if not self._guarded:
            env.skills = guard(env.skills)
            self._guarded = True
        self.used_env = True
        return env


def guard(skills: Sequence[Skill]) -> list[Skill]:
    """Return ``skills`` with every one the registry does not know to be pure made parent-only."""
    from orgrouter.skills.registry import in_worker

    return [skill if in_worker(skill) else _ParentOnly(skill) for skill in skills]


_router: WorkerRouter | None = None


def start_worker(setup: Setup) -> None:
    """Build this worker's route environment once (the pool's initializer)."""
    global _router
    # Ctrl-C reaches the whole process group: the parent stops the run and the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(setup.parent)
    try:
        from orgrouter.state import StateDB

        state = StateDB.open(setup.state_path) if setup.state_path is not None else None
        options = RunOptions(
            mode=setup.mode,
            now=setup.now,
            force=setup.force,
            state_path=setup.state_path,
            config_dir=setup.config_dir,
            rules_cache=setup.rules_cache,
        )
        router = WorkerRouter(setup.config, options, setup.root, state)
        router.env(None)  # skills, rules and the gate load now, while the parent scans
        _router = router
    except Exception:  # the parent routes every file and meets it there
        _router = None


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this worker when the run's process ends (Linux).

    A parent killed with SIGKILL or SIGTERM cannot stop its pool, and a worker blocked
    on the pool's queue would wait forever. The run lock is the parent's alone (see
    ``orgrouter.runlock``), so an orphan could not hold it; this makes sure none is
    left at all. Elsewhere a worker ends when it next finds the parent gone.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if parent and os.getppid() != parent:
        os._exit(1)  # the parent died before the prctl took effect


def route_in_worker(task: Task) -> Answer:
    """Route one file's bytes in this worker (the pool's task)."""
    router = _router
    if router is None:
        return Answer(HERE)
    router.used_env = False
    try:
        outcome = router.route(task.data, task.path, task.newline)
    except NotHere:
        return Answer(HERE)
    except ConfigError:
        return Answer(HERE)  # the parent meets it again and stops the run, as serially
    except OrgRouterError as error:
        where = (error.message, error.path, error.line, error.column)
        return Answer(FAILED, error=where, warnings=_warnings(router))
    except Exception as error:  # one bad file never stops a run (STYLE.md 4)
        message = f"internal error: {type(error).__name__}: {error}"
        return Answer(FAILED, error=(message, None, None, None), warnings=_warnings(router))
    return Answer(ROUTED, outcome=outcome, warnings=_warnings(router))


def _warnings(router: WorkerRouter) -> tuple[str, ...] | None:
    """Return the skills' load warnings if this file used them (a serial run's would show)."""
    return tuple(router.warnings) if router.used_env else None


# -- in the parent ---------------------------------------------------------------------


@dataclass(eq=False)
class Handle:
    """One file sent ahead: its task and where its answer will come from."""

    task: Task
    future: Future[Answer] | None = None
    alone: bool = False  # lost with a dead worker: retry with nothing else in flight


class RoutePool:
    """Worker processes routing files ahead; answers are taken back in any order asked."""

    def __init__(self, setup: Setup, workers: int) -> None:
        self.setup = setup
        self.workers = workers
        self.warnings: tuple[str, ...] = ()
        self._executor: ProcessPoolExecutor | None = None
        self._dead = False  # the pool cannot start here: everything is routed in the parent
        self._inflight: list[Handle] = []
        self._deferred: deque[Handle] = deque()
        self.counts = {"routed_count": 0, "returned_count": 0, "crashed_count": 0}

    def submit(self, snapshot: Snapshot) -> Handle:
        """Send a candidate's bytes to a worker; return the handle to its answer."""
        handle = Handle(Task(snapshot.path, snapshot.data, snapshot.newline))
        if any(h.alone for h in self._inflight):
            self._deferred.append(handle)  # lost files are retried one at a time first
        else:
            self._send(handle)
        return handle

    def pending(self) -> int:
        """Return how many files are in flight or waiting to be sent."""
        return len(self._inflight) + len(self._deferred)

    def ready(self, handle: Handle) -> bool:
        """Return whether ``handle``'s answer can be taken without waiting."""
        return handle.future is None or handle.future.done()

    def outcome(self, handle: Handle) -> DocumentOutcome | None:
        """Return the routed outcome, None to route the file here, or raise its error."""
        if handle.future is None and not handle.alone:
            while self._deferred:  # every lost file before it is settled: resume
                self._send(self._deferred.popleft())
        answer = self._alone(handle) if handle.alone else self._wait(handle)
        if answer.warnings is not None and not self.warnings:
            self.warnings = answer.warnings
        crashed = answer.error is not None and answer.error[0] == CRASHED
        self.counts["returned_count" if answer.kind == HERE else "routed_count"] += not crashed
        if answer.kind == ROUTED:
            return answer.outcome
        if answer.kind == FAILED and answer.error is not None:
            message, path, line, column = answer.error
            if path is None:  # as route_file names a file error that does not
                raise OrgRouterError(message, path=handle.task.path)
            raise OrgRouterError(message, path=path, line=line, column=column)
        return None

    def close(self) -> None:
        """Stop the workers (those still routing finish their file first)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _start(self) -> ProcessPoolExecutor | None:
        """Return the running executor, starting one if needed (None: cannot here)."""
        if self._executor is None and not self._dead:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # fork: a worker inherits the modules the parent loaded; elsewhere (macOS,
            # Windows) the platform's default start method.
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=start_worker,
                initargs=(self.setup,),
            )
        return self._executor

    def _send(self, handle: Handle) -> None:
        """Submit ``handle``'s task (or leave it to the parent if no pool can run)."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            executor = self._start()
            if executor is not None:
                handle.future = executor.submit(route_in_worker, handle.task)
                self._inflight.append(handle)
        except BrokenProcessPool:
            self._lose_all()
            handle.alone = True
            self._inflight.append(handle)
        except (OSError, RuntimeError):  # no processes here (limits, a sandbox)
            self._dead = True
            self.close()

    def _wait(self, handle: Handle) -> Answer:
        """Return the answer of a file sent with others."""
        from concurrent.futures.process import BrokenProcessPool

        if handle.future is None:
            return Answer(HERE)
        try:
            answer = handle.future.result()
        except BrokenProcessPool:
            self._lose_all()
            return self._alone(handle)
        except Exception:  # e.g. an answer that did not pickle
            answer = Answer(HERE)
        self._inflight.remove(handle)
        return answer

    def _lose_all(self) -> None:
        """A worker died: every file in flight is retried alone, in order."""
        for handle in self._inflight:
            handle.future = None
            handle.alone = True
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _alone(self, handle: Handle) -> Answer:
        """Return the answer of a lost file routed with nothing else in flight."""
        from concurrent.futures.process import BrokenProcessPool

        if handle in self._inflight:
            self._inflight.remove(handle)
        handle.alone = False
        try:
            executor = self._start()
            if executor is None:
                return Answer(HERE)
            return executor.submit(route_in_worker, handle.task).result()
        except BrokenProcessPool:
            self.close()
            self.counts["crashed_count"] += 1
            return Answer(FAILED, error=(CRASHED, None, None, None))
        except (OSError, RuntimeError):
            self._dead = True
            self.close()
            return Answer(HERE)
        except Exception:  # e.g. an answer that did not pickle
            return Answer(HERE)


@dataclass
class _Waiting:
    """A scanned file waiting for its turn, with the handle of its answer if sent."""

    scanned: Scanned
    handle: Handle | None = None


@dataclass
class RouteAhead:
    """Scanned files in, the same files out in order, candidates routed ahead in a pool.

    ``add`` takes each scanned file and yields those whose turn has come, with the
    handle of their answer (None: route it in the parent); ``drain`` yields the rest.
    Until ``min_candidates`` candidates have been seen every file waits (or, with too
    many bytes waiting, is routed here), so a run with few stays serial.
    """

    router: Router
    processes: int  # ORGROUTER_WORKERS, else the CPU count
    min_candidates: int = 256  # the run passes its limits.pool_from
    on_start: Callable[[int, int], None] = lambda _workers, _candidates: None
    workers: int | None = None  # decided at the first candidate (the config is read then)
    pool: RoutePool | None = None
    candidates: int = 0
    _waiting: deque[_Waiting] = field(default_factory=deque)
    _bytes: int = 0

    def add(self, scanned: Scanned) -> Iterator[tuple[Scanned, Handle | None]]:
        """Take one scanned file; yield the files whose turn has come."""
        snapshot = scanned.snapshot if scanned.status == "candidate" else None
        if snapshot is not None and self.workers is None:
            self.workers = workers_for(self.router.config, self.processes)
        if self.workers is not None and self.workers < 1:
            yield scanned, None  # serial: every file at once, as it is scanned
            return
        item = _Waiting(scanned)
        self._waiting.append(item)
        if snapshot is not None:
            self.candidates += 1
            self._bytes += snapshot.size
            if self.pool is not None:
                item.handle = self.pool.submit(snapshot)
            elif self.candidates >= self.min_candidates:
                self._start()
        yield from self._turns()

    def drain(self) -> Iterator[tuple[Scanned, Handle | None]]:
        """Yield every file still waiting, in order (waiting for answers as needed)."""
        while self._waiting:
            yield self._pop()

    def outcome(self, handle: Handle) -> DocumentOutcome | None:
        """Return a file's routed outcome, None to route it here, or raise its error."""
        assert self.pool is not None  # a handle comes from the pool
        return self.pool.outcome(handle)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Return the skills' load warnings the workers met (what a serial run shows)."""
        return self.pool.warnings if self.pool is not None else ()

    def close(self) -> None:
        """Stop the workers."""
        if self.pool is not None:
            self.pool.close()

    def _start(self) -> None:
        """Start the pool and send every candidate waiting so far."""
        workers = self.workers or 1
        # Loaded here before the fork, the workers inherit the modules instead of each
        # importing them (and a file a worker gives back is routed here without delay).
        self.router.preload()
        self.pool = RoutePool(Setup.of(self.router), workers)
        self.on_start(workers, self.candidates)
        for item in self._waiting:
            if item.scanned.status == "candidate" and item.scanned.snapshot is not None:
                item.handle = self.pool.submit(item.scanned.snapshot)

    def _turns(self) -> Iterator[tuple[Scanned, Handle | None]]:
        """Yield the head files that need no waiting, or that must not wait longer."""
        while self._waiting:
            head = self._waiting[0]
            candidate = head.scanned.status == "candidate"
            if self.pool is None:
                # Before the pool: files ahead of the first candidate go at once; a
                # candidate waits to see whether enough follow, unless memory says no.
                if candidate and self._bytes <= MAX_WAITING_BYTES:
                    return
            elif head.handle is not None and not self.pool.ready(head.handle):
                full = self.pool.pending() > self.pool.workers * PER_WORKER
                if not full and self._bytes <= MAX_WAITING_BYTES:
                    return
            yield self._pop()

    def _pop(self) -> tuple[Scanned, Handle | None]:
        """Remove and return the head file."""
        head = self._waiting.popleft()
        if head.scanned.snapshot is not None and head.scanned.status == "candidate":
            self._bytes -= head.scanned.snapshot.size
        return head.scanned, head.handle
