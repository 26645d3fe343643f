"""The skill registry: built-ins, opt-in user skills, broken files reported."""

from __future__ import annotations

from pathlib import Path

from orgrouter.config import Config
from orgrouter.errors import ConfigError
from orgrouter.skills.registry import BUILTINS, ROUTABLE, load_skills, targets

GOOD = """
from orgrouter.skills.base import BaseSkill, Emit, Result

class Weather(BaseSkill):
    name = "weather"
    priority = 80

    def symbolic(self, proposal, ctx):
        return Emit((Result(title="Sunny"),))

SKILLS = [Weather()]
"""


def _config(*paths: Path) -> Config:
    config = Config()
    config.skills.paths = [str(path) for path in paths]
    return config


def test_builtins_load_in_priority_order() -> None:
    found = load_skills(Config())
    assert found.errors == []
    offline = sorted(name for name, builtin in BUILTINS.items() if not builtin.models)
    assert sorted(found.names()) == offline  # no model skills without a backend
    assert "ask-model" not in offline and "todo" in offline
    config = Config()
    config.neuro.backend = "openai"
    with_models = load_skills(config).names()
    assert sorted(with_models) == sorted(BUILTINS)
    assert {"translate", "summarize-model", "ask-model"} <= set(with_models)
    priorities = [skill.priority for skill in found.skills]
    assert priorities == sorted(priorities, reverse=True)


def test_user_skill_loads_and_outranks(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "weather.py").write_text(GOOD)
    found = load_skills(_config(skills))
    assert found.errors == []
    assert found.names()[:3] == ["guardian", "weather", "approved"]


def test_user_skill_may_not_outrank_the_guardian(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "weather.py").write_text(GOOD.replace("priority = 80", "priority = 100"))
    found = load_skills(_config(skills))
    assert "weather" not in found.names()
    assert [str(error) for error in found.errors] == [
        f"{skills / 'weather.py'}: skill 'weather' has priority 100; user skills must stay "
        "below 100, the guardian's, so risky intents always wait for approval"
    ]


def test_broken_file_reported_with_line_and_rest_load(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "a_broken.py").write_text("x = 1\ndef oops(:\n")
    (skills / "b_raises.py").write_text("\n\nraise RuntimeError('boom')\n")
    (skills / "c_nolist.py").write_text("SKILL = 3\n")
    (skills / "d_good.py").write_text(GOOD)
    found = load_skills(_config(skills))
    assert "weather" in found.names()
    messages = [str(error) for error in found.errors]
    assert messages == [
        f"{skills / 'a_broken.py'}:2: broken skill file: invalid syntax",
        f"{skills / 'b_raises.py'}:3: broken skill file: RuntimeError: boom",
        f"{skills / 'c_nolist.py'}: a skill file must define SKILLS, a list of skills",
    ]
    assert all(isinstance(error, ConfigError) for error in found.errors)


def test_builtin_name_cannot_be_taken(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "greet.py").write_text(GOOD.replace('"weather"', '"greet"'))
    found = load_skills(_config(skills))
    assert [str(error) for error in found.errors] == [
        f"{skills / 'greet.py'}: skill name 'greet' is already taken"
    ]


def test_never_loads_from_notes_being_routed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    inside = notes / "skills"
    inside.mkdir(parents=True)
    (inside / "weather.py").write_text(GOOD)
    found = load_skills(_config(inside), notes_roots=[notes])
    assert "weather" not in found.names()
    assert len(found.errors) == 1
    assert "overlaps the notes being routed" in str(found.errors[0])


def test_relative_paths_resolve_against_base_dir(tmp_path: Path) -> None:
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "weather.py").write_text(GOOD)
    found = load_skills(_config(Path("skills")), base_dir=tmp_path)
    assert "weather" in found.names()
    missing = load_skills(_config(Path("nope")), base_dir=tmp_path)
    assert [str(e) for e in missing.errors] == [
        f"{tmp_path / 'nope'}: skills.paths entry is not a directory"
    ]


def test_user_skill_may_use_dataclasses(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "counted.py").write_text(
        # string annotations make dataclasses look the module up in sys.modules
        "from __future__ import annotations\nfrom dataclasses import dataclass\n"
        + GOOD.replace("class Weather", "@dataclass(frozen=True)\nclass Count:\n    n: int\n\n"
                       "class Weather")
        + "\nCOUNT = Count(3)\n"
    )
    found = load_skills(_config(skills))
    assert found.errors == []
    assert "weather" in found.names()


def test_only_intent_skills_are_targets(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "weather.py").write_text(GOOD, encoding="utf-8")
    config = _config(skills)
    config.neuro.backend = "openai"
    names = targets(load_skills(config).skills)
    # the machinery and the model variants are no intent's skill; the model-only
    # intents are answered (offline by ask); the user skill comes last
    assert not {"router", "guardian", "approved", "specialists", "summarize-model"} & set(names)
    assert names == (*ROUTABLE, "weather")
    assert {"translate", "explain", "todo", "delete"} <= set(ROUTABLE)
