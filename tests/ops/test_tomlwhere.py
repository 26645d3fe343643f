"""One helper points TOML errors at their line and suggests the nearest name."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from orgrouter.errors import ConfigError
from orgrouter.route.rules import load_rules
from orgrouter.tomlwhere import did_you_mean, key_line, line_of, nearest


def test_suggestions() -> None:
    assert nearest("bakend", ["backend", "model"]) == "backend"
    assert nearest("zzz", ["backend"]) is None
    assert did_you_mean("modle", ["model", "endpoint"]) == " (did you mean 'model'?)"
    assert did_you_mean("zzz", ["a", "b"]) == " (valid: a, b)"
    assert did_you_mean("zzz", ["a", "b"], label="one of") == " (one of: a, b)"
    assert did_you_mean("zzz", ["a", "b"], listing=1) == ""  # too many to list


def test_lines() -> None:
    text = '# "x" named in a comment\n[a]\nb = 1\n"x" = 2\n'
    assert line_of(text, '"x"') == 4  # a comment line is never the place
    assert line_of(text.splitlines(), "b =", 0, 2) is None
    assert key_line(text, ["a"], "b") == 3
    assert key_line(text, ["a"], None) == 2
    assert key_line("nuero.model = 1\n", ["nuero"], "model") == 1


def _table_with(tmp_path: Path, old: str, new: str) -> Path:
    text = resources.files("orgrouter.rules").joinpath("verbs.toml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "verbs.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    return tmp_path


def test_routing_tables_suggest_the_skill_a_typo_meant(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_rules(_table_with(tmp_path, 'set = "schedule"', 'set = "schedual"'))
    assert "generic.set = 'schedual' is not a skill (did you mean 'schedule'?)" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_rules(_table_with(tmp_path, 'set = "schedule"', 'set = "zzz"'))
    assert "is not a skill (skills: todo, schedule, " in str(info.value)  # no match: the list


def test_routing_tables_suggest_the_key_a_typo_meant(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_rules(_table_with(tmp_path, 'nouns = ["todo"', 'noun = ["todo"'))
    assert "unknown key 'noun' in [skills.todo] (did you mean 'nouns'?)" in str(info.value)
