"""The project's literate skill notes: tangle/ matches notes/, and the skills work."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgrouter.cli import cli
from orgrouter.config import Config, SkillsConfig
from orgrouter.skills.base import (
    Context,
    Emit,
    Inject,
    Request,
    Sensor,
    Stimulus,
    StimulusType,
    delegation,
)
from orgrouter.skills.registry import load_skills

ROOT = Path(__file__).resolve().parent.parent.parent


def test_tangle_dir_is_in_sync_with_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ORGROUTER_STATE", str(tmp_path / "state.sqlite3"))
    result = CliRunner().invoke(cli, ["tangle", "--check", "notes/"], standalone_mode=False)
    assert result.exception is None
    assert result.return_value == 0, result.output
    assert result.stderr == "2 unchanged; 0 blocks skipped\n"


@pytest.fixture(scope="module")
def skills() -> dict[str, object]:
    config = Config(skills=SkillsConfig(paths=[str(ROOT / "tangle")]))
    loaded = load_skills(config, notes_roots=[ROOT / "notes"])
    assert loaded.errors == []
    return {skill.name: skill for skill in loaded.skills}


def _ctx(section: str) -> Context:
    request = Request(path=None, line=1, headline="@agent count the words",
                      instruction="count the words", agent="agent", section=section)  # fmt: skip
    return Context(Config(), datetime(2026, 1, 1), request=request)


def test_wordcount_skill(skills: dict[str, object]) -> None:
    skill = skills["wordcount"]
    section = (
        ":PROPERTIES:\n:ID: x\n:END:\n#+CAPTION: not prose\n"
        "Don't count code. Only these words count here.\n"
        "#+begin_src python\nprint('code')\n\nx = 1\n#+end_src\n"
    )
    stimulus = delegation({"skill": "summarize", "text": "how long does this take to read"})
    ctx = _ctx(section)
    assert skill.trigger(stimulus, ctx)  # type: ignore[attr-defined]
    action = skill.symbolic(skill.neuro(stimulus, ctx), ctx)  # type: ignore[attr-defined]
    assert isinstance(action, Emit)
    (result,) = action.results
    assert result.title == "8 words, about 1 min to read"
    assert result.body == (
        "- prose words: 8\n- reading time: 1 min at 230 words a minute\n"
        "- code: 2 lines in 1 src blocks"
    )


def test_literate_router_mirrors_the_seed(skills: dict[str, object]) -> None:
    skill = skills["literate-router"]
    assert skill.priority < 10  # type: ignore[attr-defined]
    stimulus = Stimulus(
        StimulusType.EVENT,
        {"sensor": Sensor.USER_COMMAND.value,
         "text": "summarize this section, then create todos for the action items"},
    )  # fmt: skip
    ctx = _ctx("")
    assert skill.trigger(stimulus, ctx)  # type: ignore[attr-defined]
    action = skill.symbolic(skill.neuro(stimulus, ctx), ctx)  # type: ignore[attr-defined]
    assert isinstance(action, Inject)
    assert [dict(s.payload) for s in action.stimuli] == [
        {"order": 1, "verb": "summarize", "text": "summarize this section",
         "sensor": "delegation"},
        {"order": 2, "verb": "create", "text": "create todos for the action items",
         "sensor": "delegation"},
    ]  # fmt: skip
