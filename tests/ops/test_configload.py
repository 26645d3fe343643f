"""Configuration loading: precedence, validation with suggestions, provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.configload import (
    Source,
    agent_keyword_in_bytes,
    all_keys,
    env_names,
    find_project_file,
    load_config,
    user_config_path,
)
from orgrouter.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """An environment whose XDG config home is empty and inside tmp_path."""
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def test_defaults_when_nothing_is_configured(tmp_path: Path, home: dict[str, str]) -> None:
    loaded = load_config(tmp_path, env=home)
    assert loaded.files == []
    assert loaded.config.neuro.backend == "rules"
    assert loaded.source("neuro.backend") == Source("default")
    assert loaded.ignored_env == []


def test_precedence_cli_env_project_user(tmp_path: Path, home: dict[str, str]) -> None:
    user = write(
        Path(home["XDG_CONFIG_HOME"]) / "orgrouter" / "config.toml",
        '[neuro]\nbackend = "openai"\nmodel = "user-model"\nendpoint = "http://u"\n'
        '[agent]\nname = "hal"\n',
    )
    project = write(
        tmp_path / "notes" / "orgrouter.toml",
        '# project settings\n[neuro]\nmodel = "project-model"\ntimeout_s = 5\n'
        "[sensor_gate]\nmax_personas = 3\n",
    )
    root = tmp_path / "notes" / "deep" / "er"
    root.mkdir(parents=True)
    env = {**home, "ORGROUTER_NEURO_TIMEOUT_S": "7.5", "ORGROUTER_SENSOR_GATE_MAX_PERSONAS": "4"}
    loaded = load_config(root, env=env, overrides={"sensor_gate.max_personas": 2})
    config = loaded.config
    assert loaded.files == [user, project]
    assert (config.neuro.backend, config.neuro.endpoint) == ("openai", "http://u")
    assert config.neuro.model == "project-model"
    assert config.neuro.timeout_s == 7.5
    assert config.sensor_gate.max_personas == 2
    assert config.agent.name == "hal"
    assert loaded.source("neuro.backend") == Source("file", f"{user}:2")
    assert loaded.source("neuro.model") == Source("file", f"{project}:3")
    assert loaded.source("neuro.timeout_s") == Source("env", "ORGROUTER_NEURO_TIMEOUT_S")
    assert loaded.source("sensor_gate.max_personas") == Source("cli", "--max-personas")
    assert loaded.source("privacy.tags") == Source("default")
    assert str(loaded.source("neuro.model")) == f"file {project}:3"


def test_explicit_file_replaces_discovery(tmp_path: Path, home: dict[str, str]) -> None:
    write(tmp_path / "orgrouter.toml", '[agent]\nname = "discovered"\n')
    chosen = write(tmp_path / "other.toml", '[agent]\nname = "chosen"\n')
    assert load_config(tmp_path, cli_file=chosen, env=home).config.agent.name == "chosen"
    env = {**home, "ORGROUTER_CONFIG": str(chosen)}
    assert load_config(tmp_path, env=env).files == [chosen]
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cli_file=tmp_path / "nope.toml", env=home)
    assert str(info.value) == f"{tmp_path}/nope.toml: --config: no such configuration file"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[agent]\nname = "hal"\n\n[neuro]\nbakend = "openai"\n',
            "5: unknown key neuro.bakend (did you mean 'backend'?)",
        ),
        ("[nuero]\nmodel = 'x'\n", "1: unknown section [nuero] (did you mean 'neuro'?)"),
        ('neuro.modle = "x"\n', "1: unknown key neuro.modle (did you mean 'model'?)"),
        ("[agent]\nname = 3\n", "2: agent.name must be a string, not 3"),
        ("[sensor_gate]\nenabled = 1\n", "2: sensor_gate.enabled must be true or false, not 1"),
        (
            "[sensor_gate]\nmax_personas = 2.5\n",
            "2: sensor_gate.max_personas must be an integer, not 2.5",
        ),
        (
            "[sensor_gate]\nmin_confidence = 2\n",
            "2: sensor_gate.min_confidence must be between 0 and 1, not 2",
        ),
        # NaN compares false with any bound: it is refused, not taken as "no limit".
        ("[neuro]\nrun_timeout_s = nan\n", "2: neuro.run_timeout_s must be positive, not nan"),
        (
            "[privacy]\ntags = '@personal'\n",
            "2: privacy.tags must be a list of strings, not '@personal'",
        ),
        (
            '[refine]\nmode = "auto"\n',
            "2: refine.mode must be one of report, propose, auto_apply, not 'auto' "
            "(did you mean 'auto_apply'?)",
        ),
        (
            '[agent]\nsub_agents = ["ok", "two words"]\n',
            "2: agent.sub_agents: 'two words' is not a name an address can use "
            "(letters, digits, -, _)",
        ),
        ("agent = 3\n", "1: [agent] must be a table, not a value"),
        ('[agent]\nname = "hal\n', "2:12: invalid TOML: Illegal character '\\n'"),
        (
            '[agents.hal.neuro]\nmodle = "x"\n',
            "2: unknown key agents.hal.neuro.modle (did you mean 'model'?)",
        ),
        (
            '[agents.hal.nuero]\nmodel = "x"\n',
            "1: unknown key agents.hal.nuero (did you mean 'neuro'?)",
        ),
    ],
)
def test_file_errors_name_file_line_and_suggestion(
    tmp_path: Path, home: dict[str, str], text: str, message: str
) -> None:
    path = write(tmp_path / "orgrouter.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env=home)
    assert str(info.value) == f"{path}:{message}"
    assert info.value.exit_code == 2


def test_not_utf8_is_reported(tmp_path: Path, home: dict[str, str]) -> None:
    path = tmp_path / "orgrouter.toml"
    path.write_bytes(b"[agent]\nname = '\xff'\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env=home)
    assert str(info.value) == f"{path}: not UTF-8: TOML files must be UTF-8"


def test_env_values_are_typed_and_checked(tmp_path: Path, home: dict[str, str]) -> None:
    env = {
        **home,
        "ORGROUTER_SENSOR_GATE_ENABLED": "no",
        "ORGROUTER_PRIVACY_TAGS": "@personal, @health",
        "ORGROUTER_NEURO_BUDGET_TOKENS": "1000",
        "ORGROUTER_AGENT_NAME": "Hal",
        "ORGROUTER_STATE": "rel/state.db",
        "ORGROUTER_API_KEY": "not a config key",
    }
    loaded = load_config(tmp_path, env=env)
    config = loaded.config
    assert config.sensor_gate.enabled is False
    assert config.privacy.tags == ["@personal", "@health"]
    assert config.neuro.budget_tokens == 1000
    assert config.agent.name == "Hal"
    assert config.state.path == str(Path.cwd() / "rel" / "state.db")
    assert loaded.source("state.path") == Source("env", "ORGROUTER_STATE")
    assert loaded.ignored_env == ["ORGROUTER_API_KEY"]
    bad = {**home, "ORGROUTER_SENSOR_GATE_MAX_PERSONAS": "many"}
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env=bad)
    assert str(info.value) == (
        "ORGROUTER_SENSOR_GATE_MAX_PERSONAS: sensor_gate.max_personas must be an integer, "
        "not 'many'"
    )
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={**home, "ORGROUTER_NEURO_BACKEND": "olama"})
    assert "must be one of rules, openai" in str(info.value)


def test_cli_override_unknown_key(tmp_path: Path, home: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env=home, overrides={"neuro.modle": "x"})
    assert str(info.value) == "--modle: unknown key neuro.modle (did you mean 'neuro.model'?)"
    loaded = load_config(tmp_path, env=home, overrides={"neuro.budget_tokens": "50"})
    assert loaded.config.neuro.budget_tokens == 50


def test_paths_in_files_are_relative_to_the_file(tmp_path: Path, home: dict[str, str]) -> None:
    write(
        tmp_path / "notes" / "orgrouter.toml",
        '[state]\npath = "../state/db.sqlite3"\n[rules]\ndir = "rules"\n'
        '[skills]\npaths = ["skills", "/abs/skills"]\n',
    )
    config = load_config(tmp_path / "notes", env=home).config
    assert config.state.path == str(tmp_path / "state" / "db.sqlite3")
    assert config.rules.dir == str(tmp_path / "notes" / "rules")
    assert config.skills.paths == [str(tmp_path / "notes" / "skills"), "/abs/skills"]


def test_agents_tables_start_from_neuro(tmp_path: Path, home: dict[str, str]) -> None:
    path = write(
        tmp_path / "orgrouter.toml",
        '[neuro]\nbackend = "openai"\nendpoint = "http://x"\nmodel = "small"\n'
        '[agents.Coder.neuro]\nmodel = "big"\n',
    )
    loaded = load_config(tmp_path, env=home)
    coder = loaded.config.neuro_for("coder")
    assert (coder.backend, coder.endpoint, coder.model) == ("openai", "http://x", "big")
    assert loaded.config.neuro_for("other").model == "small"
    assert loaded.source("agents.coder.neuro.model") == Source("file", f"{path}:6")


def test_find_project_file_walks_up(tmp_path: Path) -> None:
    found = write(tmp_path / "a" / "orgrouter.toml", "")
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    assert find_project_file(tmp_path / "a" / "b" / "c") == found
    note = write(tmp_path / "a" / "b" / "n.org", "")
    assert find_project_file(note) == found
    assert find_project_file(tmp_path) is None or tmp_path in find_project_file(tmp_path).parents


def test_user_config_path(tmp_path: Path) -> None:
    assert user_config_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/orgrouter/config.toml")
    assert user_config_path({"HOME": "/h", "XDG_CONFIG_HOME": "rel"}) == Path(
        "/h/.config/orgrouter/config.toml"
    )


def test_every_key_has_an_env_name() -> None:
    names = env_names()
    assert names["ORGROUTER_NEURO_BACKEND"] == "neuro.backend"
    assert names["ORGROUTER_AGENT_NAME"] == "agent.name"
    assert names["ORGROUTER_SENSOR_GATE_MIN_CONFIDENCE"] == "sensor_gate.min_confidence"
    assert names["ORGROUTER_STATE"] == "state.path"
    assert set(names.values()) == set(all_keys())


def test_agent_keyword() -> None:
    data = b"#+TITLE: t\n  #+orgrouter_agent: Hal \r\n* x\n"
    assert agent_keyword_in_bytes(data, "n.org") == "hal"
    with pytest.raises(ConfigError) as info:
        agent_keyword_in_bytes(b"* x\n#+ORGROUTER_AGENT: two words\n", "n.org")
    assert str(info.value) == (
        "n.org:2: #+ORGROUTER_AGENT: 'two words' is not an agent name "
        "(one word: letters, digits, -, _)"
    )


def test_every_orgrouter_variable_the_code_reads_is_known_to_the_warning() -> None:
    # A variable read somewhere but missing from ENV_NOT_KEYS would be reported to the
    # user as one orgrouter ignores.
    import re

    from orgrouter.configload import env_warnings

    package = Path(__file__).resolve().parents[2] / "orgrouter"
    read = set()
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        read |= set(re.findall(r'_ENV = "(ORGROUTER_[A-Z_]+)"', text))
        read |= set(re.findall(r'environ(?:\.get\(|\[)"(ORGROUTER_[A-Z_]+)"', text))
    assert "ORGROUTER_NOW" in read and "ORGROUTER_TEST_CRASH_AT" in read
    assert env_warnings(dict.fromkeys(read, "1")) == []


def test_a_removed_key_warns_with_its_line_and_the_file_still_applies(
    tmp_path: Path, home: dict[str, str]
) -> None:
    write(tmp_path / "orgrouter.toml", "[limits]\npool_from = 64\nresult_bytes = 4096\n")
    loaded = load_config(tmp_path, env={**home, "ORGROUTER_WORKERS": "4"})
    assert loaded.config.limits.result_bytes == 4096
    assert loaded.warnings == [
        f"{tmp_path / 'orgrouter.toml'}:2: limits.pool_from has no effect since 0.2: "
        "the process pool was removed"
    ]
    assert loaded.ignored_env == ["ORGROUTER_WORKERS"]


def test_each_configuration_has_its_own_lists_and_sections() -> None:
    # The sections are records (orgrouter.records), whose factories run per instance:
    # a list or section shared between two configurations would leak one run's
    # settings into the next (serve, tests).
    from orgrouter.config import AgentConfig, Config

    first, second = Config(), Config()
    first.scan.include.append("*.txt")
    first.agent.sub_agents.append("otto")
    first.agents["hal"] = first.neuro
    assert second == Config() != first
    assert (second.scan.include, second.agent.sub_agents, second.agents) == (["*.org"], [], {})
    assert Config(agent=AgentConfig(name="Hal")).agent.name == "Hal"
    with pytest.raises(TypeError, match=r"unexpected .*'nam'"):  # a compiled record's or not
        AgentConfig(nam="Hal")
