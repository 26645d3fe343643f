"""The routing tables: an overlay of the user's files on the package's, validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.errors import ConfigError
from orgrouter.route.decompose import decompose
from orgrouter.route.golden import package_golden_dir
from orgrouter.route.rules import TABLES, configured_rules, default_rules, load_rules

PACKAGE_RULES = package_golden_dir().parent / "rules"


def _copy(tmp_path: Path, name: str, old: str = "", new: str = "") -> Path:
    text = (PACKAGE_RULES / name).read_text("utf-8")
    if old:
        assert old in text
        text = text.replace(old, new, 1)
    (tmp_path / name).write_text(text, "utf-8")
    return tmp_path / name


def test_package_tables_load_and_say_where_they_came_from() -> None:
    rules = load_rules()
    assert sorted(rules.sources) == sorted(TABLES)
    assert rules.sources["verbs.toml"] == "orgrouter/rules/verbs.toml"
    assert rules.verbs[("summarize",)] == "summarize"
    assert rules.generic[("create",)] == "draft"
    assert rules.max_phrase >= 3


def test_a_table_in_the_user_dir_replaces_only_that_table(tmp_path: Path) -> None:
    _copy(tmp_path, "verbs.toml", '[skills.tag]\nverbs = ["tag",', '[skills.tag]\nverbs = ["frob",')
    rules = load_rules(tmp_path)
    assert rules.sources["verbs.toml"] == str(tmp_path / "verbs.toml")
    assert rules.sources["risk.toml"] == "orgrouter/rules/risk.toml"
    assert [i.skill for i in decompose("frob this :x:", rules).intents] == ["tag"]
    assert [i.skill for i in decompose("frob this :x:", default_rules()).intents] == ["ask"]


def test_configured_rules_resolves_a_relative_dir(tmp_path: Path) -> None:
    (tmp_path / "my-rules").mkdir()
    _copy(tmp_path / "my-rules", "chains.toml", 'always = ["ask", "greet", "compact"]',
          "always = []")
    rules = configured_rules("my-rules", base=tmp_path)
    assert rules.always == frozenset()
    assert configured_rules(None) is default_rules()
    with pytest.raises(ConfigError, match=r"rules\.dir is not a directory"):
        configured_rules("absent", base=tmp_path)


@pytest.mark.parametrize(
    ("name", "old", "new", "at", "message"),
    [
        ("verbs.toml", '[skills.tag]\nverbs = ["tag",', '[skills.tag]\nverbs = [tag,', "[tag,",
         "invalid TOML in routing table: Invalid value (at line {line}, column 10)"),
        ("verbs.toml", "[skills.tangle]", "[skills.tanglee]", "tanglee",
         "routing table verbs.toml: skills.tanglee = 'tanglee' is not a skill"),
        ("verbs.toml", '"retag", "untag"', '"retag", "summarize"', 'verbs = ["summarize"',
         "routing table verbs.toml: verb 'summarize' is listed for both"),
        ("verbs.toml", 'set = "schedule"', 'set = "calendar"', 'set = "calendar"',
         "routing table verbs.toml: generic.set = 'calendar' is not a skill"),
        ("intents.toml", "verb = 0.9 ", "verb = 1.9 ", "1.9",
         "routing table intents.toml: confidence.verb must be a number from 0 to 1"),
        ("intents.toml", "'compact( the)?", "'compact(( the)?", "compact((",
         "routing table intents.toml: bad regular expression"),
        ("risk.toml", 'delete = "high"', 'delete = "severe"', "severe",
         "routing table risk.toml: verbs.delete = 'severe' must be one of low, medium, high"),
        ("chains.toml", "\n[support]", "\n[supports]", "supports",
         "routing table chains.toml: unknown key 'supports' in chains.toml"),
        ("personas.toml", 'role = "Root Cause Analysis"', 'rol = "Root Cause Analysis"', "rol ",
         "routing table personas.toml: unknown key 'rol' in [[persona]]"),
        ("domains.toml", 'words = ["code", "function"', 'word = ["code", "function"', "word =",
         "routing table domains.toml: unknown key 'word' in [domains.code]"),
    ],
)
def test_a_malformed_table_is_a_config_error_naming_file_and_line(
    tmp_path: Path, name: str, old: str, new: str, at: str, message: str
) -> None:
    path = _copy(tmp_path, name, old, new)
    text = path.read_text("utf-8")
    line = text[: text.index(at)].count("\n") + 1
    with pytest.raises(ConfigError) as caught:
        load_rules(tmp_path)
    assert str(caught.value).startswith(f"{path}:{line}: {message.format(line=line)}")
    assert caught.value.exit_code == 2


def test_a_persona_with_an_unknown_domain_is_refused(tmp_path: Path) -> None:
    path = _copy(tmp_path, "personas.toml", 'domains = ["code", "security"]',
                 'domains = ["code", "secruity"]')
    line = path.read_text("utf-8")[: path.read_text("utf-8").index("secruity")].count("\n") + 1
    with pytest.raises(ConfigError) as caught:
        load_rules(tmp_path)
    assert str(caught.value).startswith(
        f"{path}:{line}: routing table personas.toml: persona 'The Detective' names unknown "
        "domain 'secruity'"
    )


def test_an_unreadable_table_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "risk.toml").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(ConfigError, match="cannot read routing table"):
        load_rules(tmp_path)


def test_package_tables_load_as_a_user_copy_would(tmp_path: Path) -> None:
    # The package's own tables skip the one-pattern-at-a-time check at load; loaded
    # from a user directory they get it, and must pass it and give the same rules.
    for name in TABLES:
        _copy(tmp_path, name)
    strict = load_rules(tmp_path)
    assert all(source.startswith(str(tmp_path)) for source in strict.sources.values())
    assert strict._replace(sources=default_rules().sources) == default_rules()


def test_a_bad_pattern_in_a_user_table_is_named_alone(tmp_path: Path) -> None:
    # Joined with the others "x)|(?:y" would compile; alone it is refused, by name.
    _copy(tmp_path, "intents.toml", "'compact( the)?", "'x)|(?:y")
    with pytest.raises(ConfigError, match=r"bad regular expression 'x\)\|\(\?:y"):
        load_rules(tmp_path)
