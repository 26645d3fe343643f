"""Everything one refine command works with, gathered once by the CLI."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from orgrouter.config import Config, RefineConfig
from orgrouter.errors import ConfigError
from orgrouter.refine.score import Scores
from orgrouter.refine.store import RefineStore
from orgrouter.refine.tree import RulesTree, package_rules_dir
from orgrouter.state import StateDB

MODES = ("report", "propose", "auto_apply")

Emit = Callable[[str, Mapping[str, object]], None]
Replay = Callable[[Path, Path | None], Scores]


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

    @property
    def refine(self) -> RefineConfig:
        """Return the ``[refine]`` section."""
        return self.config.refine


def package_golden_dir() -> Path:
    """Return the directory of the project's own golden set."""
    return package_rules_dir().parent / "golden"


def resolve_dirs(config: Config, base: Path | None) -> tuple[RulesTree, Path]:
    """Return the rules tree and golden dir, resolving config paths against ``base``."""
    if config.refine.mode not in MODES:
        raise ConfigError(
            f"refine.mode must be one of {', '.join(MODES)}, not {config.refine.mode!r}"
        )
    root = base if base is not None else Path.cwd()
    live = None if config.rules.dir is None else (root / config.rules.dir)
    golden = package_golden_dir() if config.refine.golden is None else root / config.refine.golden
    if not golden.is_dir():
        raise ConfigError(f"the golden set directory does not exist: {golden}")
    if live is not None and live.exists() and not live.is_dir():
        raise ConfigError(f"rules.dir is not a directory: {live}")
    return RulesTree(live=live, default=package_rules_dir()), golden
