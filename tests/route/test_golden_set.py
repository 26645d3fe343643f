"""The golden set: every case replayed, and the loader and report the refine gate uses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from orgrouter.errors import ConfigError
from orgrouter.refine.replay import replay_golden
from orgrouter.refine.score import compare
from orgrouter.route.golden import CaseResult, check, load_cases, package_golden_dir, replay
from orgrouter.route.rules import default_rules, load_rules

CASES = load_cases()


def by_id(results: tuple[CaseResult, ...], case_id: str) -> CaseResult:
    """Return the result of case ``case_id`` in a replay."""
    (found,) = [result for result in results if result.case_id == case_id]
    return found


def _param(case: object) -> object:
    from orgrouter.route.golden import Case

    assert isinstance(case, Case)
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_golden_case(case: object) -> None:
    from orgrouter.route.golden import Case

    assert isinstance(case, Case)
    result = check(case, default_rules())
    assert result.passed, "\n".join(result.details)


def test_the_set_is_large_and_varied() -> None:
    assert len(CASES) >= 150
    kinds = {path.stem for path in package_golden_dir().glob("*.toml")}
    assert {"single", "sequences", "coordination", "numbered", "delegation", "bypass",
            "risky", "ambiguous", "typos", "multilingual", "long", "items"} <= kinds


def test_replay_is_deterministic_and_comparable() -> None:
    rules = default_rules()
    first, second = replay(CASES, rules), replay(CASES, rules)
    assert first == second
    assert [result.case_id for result in first] == [case.id for case in CASES]
    known = {case.id for case in CASES if case.xfail}
    assert {r.case_id for r in first if not r.passed} == known


def test_an_edited_table_shows_up_as_named_regressions(tmp_path: Path) -> None:
    verbs = (package_golden_dir().parent / "rules" / "verbs.toml").read_text("utf-8")
    # Forget the verb "summarize" (both spellings, or the typo reader finds the other):
    # every case that relies on it must regress, by name.
    edited = verbs.replace('verbs = ["summarize", "summarise", ', 'verbs = [', 1)
    assert edited != verbs
    (tmp_path / "verbs.toml").write_text(edited, "utf-8")
    golden = package_golden_dir()
    # Replayed and compared as the refine gate does.
    regressed = compare(replay_golden(golden, None), replay_golden(golden, tmp_path), 0).regressions
    assert "single-summarize" in regressed and "seq-then-comma" in regressed
    assert "single-tag" not in regressed
    assert by_id(replay(CASES, load_rules(tmp_path)), "single-summarize").mismatched == (
        "gate.intent", "gate.primary_skill", "gate.guardian_decision", "gate.clarify",
        "intents[1].skill",
    )


def test_a_user_directory_of_cases_extends_the_set(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.toml").write_text(
        '[[case]]\nid = "mine-1"\ntext = "tag this :home:"\n'
        'gate = { primary_skill = "tag" }\nintents = [{ skill = "tag", agent = "" }]\n',
        "utf-8",
    )
    mine = load_cases(tmp_path)
    assert [case.id for case in mine] == ["mine-1"]
    assert by_id(replay([*CASES, *mine], default_rules()), "mine-1").passed


def test_a_failing_case_names_its_fields(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        '[[case]]\nid = "wrong"\ntext = "tag this"\ngate = { primary_skill = "todo" }\n'
        'intents = [{ skill = "todo" }, { skill = "tag" }]\n',
        "utf-8",
    )
    (result,) = replay(load_cases(tmp_path), default_rules())
    assert result.mismatched == ("gate.primary_skill", "intents.count", "intents[1].skill")
    assert result.details == (
        "gate.primary_skill: expected 'todo', got 'tag'",
        "intents.count: expected 2, got 1",
        "intents[1].skill: expected 'todo', got 'tag'",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[[case]]\nid = "a"\ntext = "x"\n[[case]]\nid = "a"\ntext = "y"\n',
         "c.toml:2: golden case id 'a' is also used at"),
        ('[[case]]\nid = "a"\ntxt = "x"\n', "c.toml:2: golden case 1: unknown key 'txt'"),
        ('[[case]]\nid = "a"\ntext = "x"\ngate = { skill = "tag" }\n',
         "c.toml:2: golden case 1: gate keys must be among"),
        ('[[case]]\nid = "a"\ntext = "x"\norigin = "robot"\n',
         "c.toml:2: golden case 1: origin must be one of"),
        ('[[case]]\nid = "a"\ntext = "x\n', "c.toml: invalid TOML in golden file"),
        ('[cases]\nid = "a"\n', "c.toml:1: a golden file holds only [[case]] tables"),
    ],
)
def test_bad_case_files_name_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "c.toml").write_text(content, "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_cases(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "c.toml")[: -len("c.toml")] + message)


def test_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a directory"):
        load_cases(tmp_path / "absent")


def test_package_set_can_be_copied_and_replayed_from_elsewhere(tmp_path: Path) -> None:
    shutil.copytree(package_golden_dir(), tmp_path / "golden")
    copied = load_cases(tmp_path / "golden")
    assert [case.id for case in copied] == [case.id for case in CASES]
