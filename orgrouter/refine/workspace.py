"""Everything one refine command works with, gathered once by the CLI."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from orgrouter.clock import NOW_ENV, parse_now
from orgrouter.config import Config, RefineConfig
from orgrouter.configload import load_config
from orgrouter.discover import find_notes_root
from orgrouter.errors import ConfigError
from orgrouter.eventlog import EventLog, Value
from orgrouter.refine.replay import replay_golden
from orgrouter.refine.score import Scores
from orgrouter.refine.store import RefineStore
from orgrouter.refine.tree import RulesTree, package_rules_dir
from orgrouter.skills.registry import configured_targets
from orgrouter.state import StateDB, resolve_state_path

Emit = Callable[[str, Mapping[str, object]], None]
Replay = Callable[[Path, Path | None, tuple[str, ...] | None], Scores]


@dataclass
class Workspace:
    """The refine settings, the rules, the golden set, the state and the event sink."""

    config: Config
    tree: RulesTree
    golden_dir: Path
    db: StateDB
    store: RefineStore
    emit: Emit
    now: Callable[[], str]
    replay: Replay
    targets: tuple[str, ...] | None = None  # routable skills with the user's; None: built-ins

    @property
    def refine(self) -> RefineConfig:
        """Return the ``[refine]`` section."""
        return self.config.refine


def resolve_dirs(config: Config, base: Path | None) -> tuple[RulesTree, Path]:
    """Return the rules tree and golden dir, resolving config paths against ``base``."""
    from orgrouter.route.golden import package_golden_dir

    root = base if base is not None else Path.cwd()
    live = None if config.rules.dir is None else (root / config.rules.dir)
    golden = package_golden_dir() if config.refine.golden is None else root / config.refine.golden
    if not golden.is_dir():
        raise ConfigError(f"the golden set directory does not exist: {golden}")
    if live is not None and live.exists() and not live.is_dir():
        raise ConfigError(f"rules.dir is not a directory: {live}")
    return RulesTree(live=live, default=package_rules_dir()), golden


def clock(env: Mapping[str, str]) -> Callable[[], str]:
    """Return the clock: ``ORGROUTER_NOW`` when set (reproducible), else UTC now."""
    fixed = env.get(NOW_ENV)
    if fixed:
        parse_now(fixed)  # refuse a malformed value, as route and classify do
        return lambda: fixed
    return lambda: datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@contextmanager
def open_workspace(
    start: Path,
    *,
    config_file: Path | None = None,
    state_path: str | None = None,
    log_path: Path | None = None,
    env: Mapping[str, str] = os.environ,
) -> Iterator[Workspace]:
    """Load the config found from ``start``, open the state DB and the event log."""
    loaded = load_config(start, cli_file=config_file, env=env)
    config = loaded.config
    # The notes root keys the state database: found by the rule `orgrouter route`
    # uses, so both open the same database (with --config, that file's directory).
    root = config_file.resolve().parent if config_file is not None else find_notes_root([start])
    tree, golden = resolve_dirs(config, root)
    # A routing table may send intents to the user's skills (skills.paths): the replay
    # and the proposals must know them, as route does, or refine refuses such a table.
    targets = configured_targets(config, base_dir=loaded.directory)
    path = resolve_state_path(state_path, env, config, root)
    with StateDB.open(path) as db, EventLog(log_path=log_path, db=db) as log:

        def emit(name: str, fields: Mapping[str, object]) -> None:
            log.emit(name, **cast(dict[str, Value], dict(fields)))

        yield Workspace(
            config=config,
            tree=tree,
            golden_dir=golden,
            db=db,
            store=RefineStore(db),
            emit=emit,
            now=clock(env),
            replay=replay_golden,
            targets=targets,
        )
