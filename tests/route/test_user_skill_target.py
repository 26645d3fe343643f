"""A user skill (``skills.paths``) is a routing-table target like a built-in one."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from route_cli import run_cli

WEATHER = """
from orgrouter.skills.base import BaseSkill, Emit, Result

class Weather(BaseSkill):
    name = "weather"
    priority = 40

    def symbolic(self, proposal, ctx):
        return Emit((Result(title="Forecast: sunny", body=proposal.text + "\\n"),))

SKILLS = [Weather()]
"""


def _setup(tmp_path: Path, *, skills: bool = True) -> Path:
    """Return a notes root whose rules dir sends "forecast" to the user skill weather."""
    notes = tmp_path / "notes"
    notes.mkdir()
    config = '[rules]\ndir = "../rules"\n'
    if skills:
        config += '[skills]\npaths = ["../skills"]\n'
        (tmp_path / "skills").mkdir()
        (tmp_path / "skills" / "weather.py").write_text(WEATHER, encoding="utf-8")
    (notes / "orgrouter.toml").write_text(config, encoding="utf-8")
    (tmp_path / "rules").mkdir()
    verbs = resources.files("orgrouter.rules").joinpath("verbs.toml").read_text(encoding="utf-8")
    verbs += '\n[skills.weather]\nverbs = ["forecast"]\nnouns = ["forecast", "weather"]\n'
    (tmp_path / "rules" / "verbs.toml").write_text(verbs, encoding="utf-8")
    return notes


def test_user_skill_named_in_a_routing_table_is_routed_to(tmp_path: Path) -> None:
    notes = _setup(tmp_path)
    note = notes / "day.org"
    note.write_bytes(b"* @agent forecast the weather for the picnic\n")
    code, out, err = run_cli(["route", "--json", "--now", "2026-12-01T09:00", str(notes)], tmp_path)
    assert code == 0 and "1 result written" in err, err
    [request] = [json.loads(line) for line in out.splitlines()]
    assert request["gate"]["primary_skill"] == "weather"
    assert [i["skill"] for i in request["intents"]] == ["weather"]
    written = note.read_text(encoding="utf-8").splitlines()
    assert written[:2] == ["* @agent forecast the weather for the picnic", ":PROPERTIES:"]
    assert ":ORGROUTER_STATUS: done" in written
    child = written.index("** Forecast: sunny")
    assert ":ORGROUTER_INTENT: 1 weather: forecast the weather for the picnic" in written[child:]
    assert written[-1] == "forecast the weather for the picnic"  # the skill's body


def test_classify_and_decompose_know_the_user_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_setup(tmp_path))  # both read the configuration from where they run
    text = ["forecast the weather for the picnic"]
    code, out, err = run_cli(["classify", *text], tmp_path)
    assert (code, json.loads(out)["primary_skill"]) == (0, "weather"), err
    code, out, err = run_cli(["decompose", "--json", *text], tmp_path)
    assert (code, [i["skill"] for i in json.loads(out)["intents"]]) == (0, ["weather"]), err


def test_a_table_naming_a_skill_nobody_loads_is_an_error(tmp_path: Path) -> None:
    notes = _setup(tmp_path, skills=False)
    (notes / "day.org").write_bytes(b"* @agent forecast the weather\n")
    code, _, err = run_cli(["route", str(notes)], tmp_path)
    assert code == 2
    assert "verbs.toml" in err and "'weather' is not a skill" in err
