"""A refine workspace over temp dirs: a copy of the package's verbs table, a state DB,
the small golden set in tests/data/refine/mini, replayed by the real golden replay."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from orgrouter.config import Config
from orgrouter.refine.replay import replay_golden
from orgrouter.refine.store import RefineStore
from orgrouter.refine.tree import RulesTree, package_rules_dir
from orgrouter.refine.workspace import Workspace
from orgrouter.state import StateDB

DATA = Path(__file__).resolve().parent.parent / "data" / "refine"


class Events(list[tuple[str, dict[str, object]]]):
    def __call__(self, name: str, fields: Mapping[str, object]) -> None:
        self.append((name, dict(fields)))


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    live = tmp_path / "rules"
    live.mkdir()
    shutil.copy(package_rules_dir() / "verbs.toml", live / "verbs.toml")
    config = Config()
    config.refine.mode = "propose"
    config.refine.files = ["verbs.toml"]
    config.rules.dir = str(live)
    ticks = iter(f"2026-01-01T00:00:{n:02d}" for n in range(60))
    db = StateDB.open(tmp_path / "state.sqlite3")
    ws = Workspace(
        config=config,
        tree=RulesTree(live=live, default=package_rules_dir()),
        golden_dir=DATA / "mini",
        db=db,
        store=RefineStore(db),
        emit=Events(),
        now=lambda: next(ticks),
        replay=replay_golden,
    )
    yield ws
    db.close()
