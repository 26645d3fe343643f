"""The Router: the routing machinery one run builds lazily and shares across its files.

``RunOptions`` are what a run was asked to do. The Router loads the
skills, the routing tables, the rate limiter and the model backends only when a file
first holds work, then routes each document's bytes (``route_document``). Directory
runs (``route/runner.py``) and ``--stdin`` (``route/filter.py``) both route through one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.config import Config
from orgrouter.errors import ConfigError, InputError
from orgrouter.records import field, record
from orgrouter.writemode import WriteMode

if TYPE_CHECKING:
    from orgrouter.neuro.backend import NeuroBackend
    from orgrouter.route.gate import GateResult
    from orgrouter.route.pipeline import DocumentOutcome, Found, RequestReport, RouteEnv
    from orgrouter.route.request import FoundRequest
    from orgrouter.route.rules import Rules

    Planned = tuple[list[list[str]], Found | None]  # Router.plan: search words, requests
    Searched = tuple[list[list[str]], GateResult]  # a request's search words, gate verdict
    Memo = tuple[list[list[str]], weakref.ref[GateResult]]


@record
class RunOptions:
    """The choices of one ``orgrouter route`` run."""

    mode: WriteMode = WriteMode.WRITE
    now: datetime = field(default_factory=datetime.now)
    force: bool = False
    state_path: Path | None = None  # None: no state database (no cache, no rate window)
    log_path: Path | None = None
    on_request: Callable[[RequestReport], None] = lambda _report: None
    on_diff: Callable[[str], None] = lambda _text: None
    config_dir: Path | None = None  # where relative skills.paths are resolved
    within: tuple[int, int] | None = None  # route only requests starting in these bytes
    rules_cache: Path | None = None  # where compiled routing tables are kept (None: nowhere)
    warm_key: str | None = None  # warm.config_key before the config loaded: record the proof


class Router:
    """Lazily built routing machinery shared by every file of one run."""

    def __init__(self, config: Config, options: RunOptions, root: Path | None, state: Any):
        self.config = config
        self.options = options
        self.root = root
        self.state = state
        self._env: RouteEnv | None = None
        self._backends: dict[str, NeuroBackend | None] = {}
        self._budget: Any = None
        self.warnings: list[str] = []
        self.pending: set[str] = set()  # files an interrupted move still holds (journal.py)
        # plan's search words and gate verdicts, by what they depend on that a run varies;
        # a verdict only while a kept note holds it (thousands of requests are not kept)
        self._searches: dict[tuple[str, tuple[str, ...], str | None], Memo] = {}

    def env(self, file_agent: str | None) -> RouteEnv:
        """Return the route environment, loading skills and limiter on first use."""
        if self._env is None:
            from orgrouter.route.pipeline import RouteEnv
            from orgrouter.skills.registry import load_skills, targets, uses_models

            roots = [self.root] if self.root is not None else []
            loaded = load_skills(self.config, base_dir=self.options.config_dir, notes_roots=roots)
            limiter = None
            # Spawns are model calls: none offline, and a dry run spends none.
            if self.state is not None and self.options.mode.writes and uses_models(self.config):
                from orgrouter.route.ratelimit import RateLimiter

                gate = self.config.sensor_gate
                limiter = RateLimiter(
                    self.state, limit=gate.rate_limit_spawns, window_s=gate.rate_limit_window_s
                )
            # A broken rules table is the run's configuration error (exit 2), found
            # before any note is touched, never an error result written into one.
            where, base = self.config.rules.dir, self.options.config_dir
            found, cache = targets(loaded.skills), self.options.rules_cache
            if cache is None:
                from orgrouter.route.rules import configured_rules

                rules = configured_rules(where, base=base, targets=found)
            else:
                from orgrouter.route import rulecache

                rules = rulecache.configured_rules(where, cache, base=base, targets=found)
            self._env = RouteEnv(
                config=self.config,
                skills=loaded.skills,
                now=self.options.now,
                notes_root=self.root,
                state=self.state,
                limiter=limiter,
                backend_for=self.backend_for,
                force=self.options.force,
                dry_run=not self.options.mode.writes,
                rules=rules,
                within=self.options.within,
            )
            # Only once it stands: a run shows them when a file was routed with it.
            self.warnings.extend(f"orgrouter: warning: {error}" for error in loaded.errors)
        self._env.file_agent = file_agent
        return self._env

    def backend_for(self, agent: str) -> NeuroBackend | None:
        """Return the model backend for ``agent`` (None for ``rules``), built once."""
        settings = self.config.neuro_for(agent)
        key = agent if agent.lower() in self.config.agents else ""
        if key not in self._backends:
            if settings.backend == "rules":
                self._backends[key] = None
            else:
                from orgrouter.neuro.budget import TokenBudget
                from orgrouter.neuro.factory import make_backend

                if self._budget is None:
                    neuro = self.config.neuro
                    self._budget = TokenBudget(neuro.budget_tokens, neuro.run_timeout_s)
                self._backends[key] = make_backend(settings, budget=self._budget)
        return self._backends[key]

    def route(
        self, data: bytes, path: str | None, newline: bytes, requests: Found | None = None
    ) -> DocumentOutcome:
        """Route one document's bytes (``requests``: what ``plan`` found in them)."""
        from orgrouter.configload import keywords_in_bytes
        from orgrouter.route.pipeline import route_document

        # A CR-only note's lines end at each CR (Emacs visits it with mac EOL).
        lines = data.replace(b"\r", b"\n") if newline == b"\r" else data
        try:
            file_agent, setting = keywords_in_bytes(lines, path)  # one pass for both
        except ConfigError as error:  # a bad keyword in one note fails that note only
            raise InputError(error.message, path=error.path, line=error.line) from None
        env = self.env(file_agent)
        return route_document(
            data, path, env, newline=newline, requests=requests, setting_line=setting
        )

    def plan(self, data: bytes, path: str | None, newline: bytes) -> Planned:
        """Return the words each search that routing this document asks will look for.

        Its requests as the route finds them (given back to ``route``), with the gate's
        verdict on each: a run learns the words while it scans, so its text passes need
        no second read of the notes, and its route classifies no request again. A
        request a model decomposes, or one a skill answers otherwise, may ask other
        words: those are read for then (``skills/search``).
        """
        from orgrouter.configload import keywords_in_bytes
        from orgrouter.route.pipeline import requests_in
        from orgrouter.route.request import HASH_KEY

        if newline == b"\r":
            return [], None  # routed in its LF view (pipeline._route_mac): found again then
        try:
            file_agent, setting = keywords_in_bytes(data, path)  # one pass, as route's
            env = self.env(file_agent)
        except ConfigError:
            return [], None  # routing the file says so, in its turn
        words: list[list[str]] = []
        found = requests_in(data, path, env, newline, setting)
        limit = self.config.limits.instruction_chars
        for request in found.requests:  # those the route will run (or more: they cost a pass)
            if request.recorded(HASH_KEY) == request.hash and not env.force:
                continue  # answered
            if self.config.neuro_for(request.agent).backend != "rules":
                continue  # a model decomposes it
            if len(request.instruction) > limit or env.rules is None:
                continue  # answered without the gate (pipeline._too_long)
            key = (request.instruction, request.items, file_agent)
            searched, held = self._searches.get(key) or ([], None)
            gate = held() if held is not None else None
            if gate is None:  # not asked yet, or every note that held its verdict is done
                searched, gate = self._searched(request, env, env.rules)
                self._searches[key] = (searched, weakref.ref(gate))
            found.gates[request.index] = gate
            words += searched
        return words, found

    def _searched(self, request: FoundRequest, env: RouteEnv, rules: Rules) -> Searched:
        """Return the gate's verdict on ``request``, and the words of the searches it lets run."""
        from orgrouter.route.gate import REJECTED, classify
        from orgrouter.skills.search import query_words

        gate = classify(
            request.instruction,
            rules,
            config=self.config.sensor_gate,
            items=request.items or None,
            selves=env.selves(),
        )
        if gate.clarify or (gate.guardian_decision == REJECTED and gate.bypass is None):
            return [], gate
        intents = gate.decomposition.intents
        return [query_words(i.object or i.text) for i in intents if i.skill == "search"], gate
