"""Load the configuration: files, ``ORGROUTER_*`` variables and CLI options, validated.

Precedence, lowest first: the defaults in ``orgrouter.config``; the user file
``$XDG_CONFIG_HOME/orgrouter/config.toml``; the project file ``orgrouter.toml`` found
by walking up from the notes root (or the current directory for commands without
paths); ``ORGROUTER_*`` variables; CLI options. ``--config FILE`` (or
``ORGROUTER_CONFIG``) replaces both files. Every value remembers where it came from,
so ``orgrouter config`` can say why a setting is what it is.

Every key and type is checked: an unknown key is an error naming the file, the line
and the nearest valid key; paths in a file are relative to that file.
"""

from __future__ import annotations

import functools
import os
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from orgrouter.address import file_agent_lines, keyword_lines
from orgrouter.config import BACKENDS, Config, NeuroConfig
from orgrouter.errors import ConfigError
from orgrouter.records import NamedTuple, field, fields, record, replace
from orgrouter.tomlwhere import did_you_mean, key_line, nearest
from orgrouter.xdg import user_config_path as user_config_path

PROJECT_FILE = "orgrouter.toml"
ENV_PREFIX = "ORGROUTER_"
# Variables that are not ``ORGROUTER_<SECTION>_<KEY>`` spellings of a key.
ENV_ALIASES = {"ORGROUTER_STATE": "state.path"}
# Variables orgrouter reads that are not configuration keys (not reported as ignored).
# (They are also what a misspelt variable is checked against: a new one goes here.)
ENV_NOT_KEYS = frozenset({"ORGROUTER_CONFIG", "ORGROUTER_NOW", "ORGROUTER_TEST_CRASH_AT"})
# What earlier versions read and this one does not: a warning, never an error, so an
# existing configuration (or a cron line setting the variable) keeps working.
POOL_REMOVED = "has no effect since 0.2: the process pool was removed"
REMOVED_KEYS = {"limits.pool_from": POOL_REMOVED}
REMOVED_ENV = {"ORGROUTER_WORKERS": POOL_REMOVED, "ORGROUTER_LIMITS_POOL_FROM": POOL_REMOVED}
# Keys holding paths: a relative path in a file is relative to that file's directory.
PATH_KEYS = frozenset({"state.path", "rules.dir", "refine.golden"})
PATH_LIST_KEYS = frozenset({"skills.paths", "tangle.allow"})
CHOICES: dict[str, tuple[str, ...]] = {
    "neuro.backend": BACKENDS,
    "refine.mode": ("report", "propose", "auto_apply"),
}
_AGENT_NAME_RE = re.compile(r"^[^\W\d][\w-]*$")


class Source(NamedTuple):
    """Where one value came from: ``default``, ``file``, ``env`` or ``cli``."""

    kind: str
    detail: str = ""  # "path:line", the variable's name, or the option

    def __str__(self) -> str:
        return self.kind if not self.detail else f"{self.kind} {self.detail}"


@record
class LoadedConfig:
    """The effective configuration and, per dotted key, where its value came from."""

    config: Config
    sources: dict[str, Source] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)  # read, lowest precedence first
    ignored_env: list[str] = field(default_factory=list)  # ORGROUTER_* that are not keys
    warnings: list[str] = field(default_factory=list)  # "path:line: key has no effect ..."

    @property
    def directory(self) -> Path | None:
        """Return the directory the last file read is in (relative paths start there)."""
        return self.files[-1].parent if self.files else None

    def source(self, key: str) -> Source:
        """Return where ``key`` (dotted, e.g. ``neuro.backend``) got its value."""
        return self.sources.get(key, Source("default"))


# -- the schema, read from the records' annotations --------------------------------


def _sections() -> dict[str, type]:
    """Return section name -> record class, in declaration order (``agents`` excluded)."""
    hints = typing.get_type_hints(Config)
    return {k: hints[k] for k in fields(Config) if hasattr(hints[k], "_record_fields")}


def section_keys(section: type) -> dict[str, Any]:
    """Return key -> type annotation for one section's record class."""
    hints = typing.get_type_hints(section)
    return {k: hints[k] for k in fields(section)}


@functools.cache  # get_type_hints evaluates every annotation anew: ~8 ms of each run
def _schema() -> dict[str, Any]:
    """Return dotted key -> type annotation (``agents.NAME.neuro.*`` excluded)."""
    return {f"{s}.{k}": t for s, cls in _sections().items() for k, t in section_keys(cls).items()}


def all_keys() -> list[str]:
    """Return every dotted key of the schema (``agents.NAME.neuro.*`` excluded)."""
    return list(_schema())


# -- type checking and conversion --------------------------------------------------


def _type_name(annotation: Any) -> str:
    """Return a user-facing name for a type annotation."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        names = [_type_name(a) for a in typing.get_args(annotation) if a is not type(None)]
        return " or ".join(names)
    if origin is list:
        return "a list of strings"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(
        annotation, str(annotation)
    )


def _check_type(value: Any, annotation: Any) -> Any:
    """Return ``value`` as ``annotation`` (int widened to float), or raise ValueError."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _check_type(value, inner[0])
    if origin is list:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise ValueError
    accepted = _ACCEPTED.get(annotation)
    # bool is an int to Python, but true is no number in a configuration file.
    if accepted is None or not isinstance(value, accepted):
        raise ValueError
    if isinstance(value, bool) and annotation is not bool:
        raise ValueError
    return float(value) if annotation is float else value


_ACCEPTED: dict[Any, Any] = {bool: bool, int: int, float: (int, float), str: str}


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _from_text(text: str, annotation: Any) -> Any:
    """Convert an environment or option string to ``annotation``, or raise ValueError."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return None if text == "" else _from_text(text, inner[0])
    if origin is list:
        return [part.strip() for part in text.split(",") if part.strip()]
    if annotation is bool:
        lowered = text.strip().lower()
        if lowered in _TRUE | _FALSE:
            return lowered in _TRUE
        raise ValueError
    if annotation is int:
        return int(text)
    if annotation is float:
        return float(text)
    return text


# -- reading one file ----------------------------------------------------------------


@record
class _Layer:
    """Values from one source, keyed by dotted key, with where each came from."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _read_config_file(path: Path) -> _Layer:
    """Read and validate one TOML file into a layer, raising ConfigError on any fault."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", path=path) from error
    import tomllib  # only a run with a configuration file parses TOML

    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise ConfigError("not UTF-8: TOML files must be UTF-8", path=path) from error
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = re.search(r"\(at line (\d+), column (\d+)\)$", message)
        line = int(match.group(1)) if match else None
        column = int(match.group(2)) if match else None
        reason = message[: match.start()].strip() if match else message
        raise ConfigError(f"invalid TOML: {reason}", path=path, line=line, column=column) from None
    layer = _Layer()
    sections = _sections()
    file = _File(path, text)
    for name, value in data.items():
        if name == "agents":
            _read_agents(value, layer, file)
            continue
        if name not in sections:
            options = [*sections, "agents"]
            raise file.fail(f"unknown section [{name}]{did_you_mean(name, options)}", [name], None)
        if not isinstance(value, dict):
            raise file.fail(f"[{name}] must be a table, not a value", [], name)
        for key in [key for key in value if f"{name}.{key}" in REMOVED_KEYS]:
            where = f"{path}:{key_line(text, [name], key) or 1}"
            layer.warnings.append(f"{where}: {name}.{key} {REMOVED_KEYS[f'{name}.{key}']}")
        kept = {key: item for key, item in value.items() if f"{name}.{key}" not in REMOVED_KEYS}
        for key, item, source in file.table(kept, [name], section_keys(sections[name]), name):
            layer.values[f"{name}.{key}"] = item
            layer.sources[f"{name}.{key}"] = source
    return layer


class _File(typing.NamedTuple):
    """One configuration file being read: its errors name the line they are about."""

    path: Path
    text: str

    def fail(self, message: str, table: list[str], key: str | None) -> ConfigError:
        """Return the error ``message`` at the line of ``key`` in ``table``."""
        return ConfigError(message, path=self.path, line=key_line(self.text, table, key))

    def table(
        self, values: dict[str, Any], table: list[str], keys: dict[str, Any], section: str
    ) -> Iterator[tuple[str, Any, Source]]:
        """Yield each key of ``table`` with its value (checked as ``section``'s) and source."""
        for key, value in values.items():
            if key not in keys:
                shown = ".".join([*table, key])
                raise self.fail(f"unknown key {shown}{did_you_mean(key, keys)}", table, key)
            dotted = f"{section}.{key}"
            try:
                checked = _check_type(value, keys[key])
            except ValueError:
                shown = repr(value) if not isinstance(value, dict) else "a table"
                must = f"{dotted} must be {_type_name(keys[key])}, not {shown}"
                raise self.fail(must, table, key) from None
            problem = _value_problem(dotted, checked)
            if problem:
                raise self.fail(problem, table, key)
            source = Source("file", f"{self.path}:{key_line(self.text, table, key) or 1}")
            yield key, _absolute(dotted, checked, self.path.parent), source


# What a well-typed number must also be: its test, and what the message says it must be.
_BOUNDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "sensor_gate.min_confidence": (lambda v: 0.0 <= v <= 1.0, "between 0 and 1"),
    "sensor_gate.max_personas": (lambda v: v >= 0, "0 or more"),
    "sensor_gate.rate_limit_spawns": (lambda v: v >= 0, "0 or more"),
    "sensor_gate.rate_limit_window_s": (lambda v: v > 0, "positive"),
    "neuro.run_timeout_s": (lambda v: v > 0, "positive"),
    "limits.result_bytes": (lambda v: v >= 1024, "at least 1024"),
    "limits.instruction_chars": (lambda v: v >= 100, "at least 100"),
    "limits.echo_chars": (lambda v: v >= 20, "at least 20"),
}


def _value_problem(dotted: str, value: Any) -> str | None:
    """Return what is wrong with a well-typed value, or None."""
    choices = CHOICES.get(dotted)
    if choices is not None and value not in choices:
        hint = did_you_mean(value, choices, cutoff=0.5, listing=0)
        return f"{dotted} must be one of {', '.join(choices)}, not {value!r}{hint}"
    test, must = _BOUNDS.get(dotted, (None, ""))
    if test is not None and not test(value):
        return f"{dotted} must be {must}, not {f'{value:g}' if isinstance(value, float) else value}"
    if dotted in ("agent.name", "agent.sub_agents"):
        for name in [value] if isinstance(value, str) else value or []:
            if not _AGENT_NAME_RE.match(name.lstrip("@")):
                return (
                    f"{dotted}: {name!r} is not a name an address can use (letters, digits, -, _)"
                )
    return None


def _absolute(dotted: str, value: Any, base: Path | None) -> Any:
    """Resolve a path key against ``base`` (the file's directory, or the cwd)."""
    if dotted in PATH_KEYS and isinstance(value, str) and value:
        return os.path.abspath((base or Path.cwd()) / Path(value).expanduser())
    if dotted in PATH_LIST_KEYS and isinstance(value, list):
        return [os.path.abspath((base or Path.cwd()) / Path(v).expanduser()) for v in value]
    return value


def _read_agents(value: Any, layer: _Layer, file: _File) -> None:
    """Read ``[agents.NAME.neuro]`` tables: per-agent model settings."""
    if not isinstance(value, dict):
        raise file.fail("[agents] must hold tables like [agents.NAME.neuro]", [], "agents")
    keys = section_keys(NeuroConfig)
    for agent, table in value.items():
        if not isinstance(table, dict):
            raise file.fail(f"agents.{agent} must be a table", ["agents"], agent)
        for section, settings in table.items():
            if section != "neuro" or not isinstance(settings, dict):
                raise file.fail(
                    f"unknown key agents.{agent}.{section}{did_you_mean(section, ['neuro'])}",
                    ["agents", agent],
                    section,
                )
            name = agent.lower()
            collected = layer.agents.setdefault(name, {})
            where = ["agents", agent, "neuro"]
            for key, item, source in file.table(settings, where, keys, "neuro"):
                collected[key] = item
                layer.sources[f"agents.{name}.neuro.{key}"] = source


# -- environment and CLI -------------------------------------------------------------


def env_names() -> dict[str, str]:
    """Return variable name -> dotted key, for every key of the schema."""
    names = {f"{ENV_PREFIX}{k.replace('.', '_').upper()}": k for k in all_keys()}
    names.update(ENV_ALIASES)
    return names


def _typed_layer(items: Iterable[tuple[str, str, Any]], kind: str, *, strings_only: bool) -> _Layer:
    """Build a layer from (dotted key, label, value) triples (env or CLI)."""
    layer = _Layer()
    for dotted, label, value in items:
        annotation = _schema().get(dotted)
        if annotation is None:
            raise ConfigError(f"{label}: unknown key {dotted}{did_you_mean(dotted, _schema())}")
        try:
            if isinstance(value, str) and (strings_only or annotation is not str):
                converted = _from_text(value, annotation)
            else:
                converted = value if value is None else _check_type(value, annotation)
        except ValueError:
            raise ConfigError(
                f"{label}: {dotted} must be {_type_name(annotation)}, not {value!r}"
            ) from None
        problem = None if converted is None else _value_problem(dotted, converted)
        if problem:
            raise ConfigError(f"{label}: {problem}")
        layer.values[dotted] = _absolute(dotted, converted, None)
        layer.sources[dotted] = Source(kind, label)
    return layer


def env_warnings(env: Mapping[str, str], config: Config | None = None) -> list[str]:
    """Return a warning for each ``ORGROUTER_*`` variable orgrouter does not read.

    A variable that ``config`` names as a model's API key (``neuro.api_key_env``) is read.
    """
    known = [*env_names(), *sorted(ENV_NOT_KEYS)]
    keys = set()
    if config is not None:
        keys = {n.api_key_env for n in (config.neuro, *config.agents.values()) if n.api_key_env}
    warnings = []
    for name in sorted(env):
        if name in REMOVED_ENV:
            warnings.append(f"{name} {REMOVED_ENV[name]}; ignored")
        elif name.startswith(ENV_PREFIX) and name not in known and name not in keys:
            # Compared without the prefix every name shares, which would make any two
            # look alike.
            tails = {k[len(ENV_PREFIX) :]: k for k in known}
            close = nearest(name[len(ENV_PREFIX) :], tails)
            hint = f" (did you mean {tails[close]!r}?)" if close is not None else ""
            warnings.append(f"{name} is not a variable orgrouter reads; ignored{hint}")
    return warnings


# -- putting it together -------------------------------------------------------------


def find_project_file(start: str | os.PathLike[str]) -> Path | None:
    """Return the nearest ``orgrouter.toml`` in ``start`` or a directory above it."""
    here = Path(start).expanduser().resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def load_config(
    start: str | os.PathLike[str],
    *,
    cli_file: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] = os.environ,
    overrides: Mapping[str, Any] | None = None,
) -> LoadedConfig:
    """Load the effective configuration for a run starting at ``start`` (a notes root)."""
    explicit = cli_file if cli_file is not None else env.get("ORGROUTER_CONFIG") or None
    files: list[Path] = []
    if explicit is not None:
        files.append(Path(explicit).expanduser())
        if not files[0].is_file():
            label = "--config" if cli_file is not None else "ORGROUTER_CONFIG"
            raise ConfigError(f"{label}: no such configuration file", path=files[0])
    else:
        user = user_config_path(env)
        if user.is_file():
            files.append(user)
        project = find_project_file(start)
        if project is not None and project.resolve() != user.resolve():
            files.append(project)
    layers = [_read_config_file(path) for path in files]
    ours = [n for n in sorted(env) if n.startswith(ENV_PREFIX) and n not in ENV_NOT_KEYS]
    names = env_names() if ours else {}
    env_items = [(names[n], n, env[n]) for n in ours if n in names]
    ignored = [n for n in ours if n not in names]
    layers.append(_typed_layer(env_items, "env", strings_only=True))
    cli_items = [
        (k, "--" + k.split(".")[-1].replace("_", "-"), v) for k, v in (overrides or {}).items()
    ]
    layers.append(_typed_layer(cli_items, "cli", strings_only=False))
    return _merge(layers, files, ignored)


def _merge(layers: list[_Layer], files: list[Path], ignored: list[str]) -> LoadedConfig:
    """Apply layers in order onto the defaults; agents inherit the effective [neuro]."""
    config = Config()
    loaded = LoadedConfig(config, files=files, ignored_env=ignored)
    agents: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for dotted, value in layer.values.items():
            section, key = dotted.split(".")
            setattr(getattr(config, section), key, value)
        for agent, settings in layer.agents.items():
            agents.setdefault(agent, {}).update(settings)
        loaded.sources.update(layer.sources)
        loaded.warnings.extend(layer.warnings)
    # An agent's own keys are more specific than any [neuro] value, env and CLI included.
    config.agents = {
        agent: replace(config.neuro, **settings) for agent, settings in agents.items()
    }
    _check_keywords(loaded)
    return loaded


def _check_keywords(loaded: LoadedConfig) -> None:
    """Refuse approval keywords that cannot be told apart from each other or from WAITING.

    The guardian writes ``WAITING`` and reads the user's decision from the keyword
    they put in its place: an approve keyword equal to either would approve what was
    never decided, or decide both ways at once.
    """
    agent = loaded.config.agent
    approve, reject = "agent.approve_keyword", "agent.reject_keyword"
    for key, value in ((approve, agent.approve_keyword), (reject, agent.reject_keyword)):
        if value == "WAITING":
            raise _keyword_error(
                loaded, key, f"{key} = 'WAITING' is the keyword orgrouter writes while it "
                "waits for a decision; choose another"
            )  # fmt: skip
    if agent.approve_keyword == agent.reject_keyword:
        # Name the one the user set (the other is then the default).
        key = reject if loaded.source(approve).kind == "default" else approve
        raise _keyword_error(
            loaded, key, f"{approve} and {reject} are both {agent.approve_keyword!r}: "
            "a decision must say which it is; choose two keywords"
        )  # fmt: skip


def _keyword_error(loaded: LoadedConfig, key: str, message: str) -> ConfigError:
    """Return a ConfigError at the file and line ``key`` came from (or naming its variable)."""
    source = loaded.source(key)
    if source.kind == "file":
        path, _, line = source.detail.rpartition(":")
        return ConfigError(message, path=path, line=int(line))
    return ConfigError(f"{source.detail}: {message}" if source.detail else message)


# -- per-file agent ------------------------------------------------------------------

def agent_keyword_in_bytes(data: bytes, path: str | os.PathLike[str] | None = None) -> str | None:
    """Return the last ``#+ORGROUTER_AGENT:`` name in an Org file's bytes (no parse)."""
    return _agent_in(data, file_agent_lines(data), path)


def keywords_in_bytes(
    data: bytes, path: str | os.PathLike[str] | None = None
) -> tuple[str | None, bool]:
    """Return ``agent_keyword_in_bytes``'s answer, and whether a routing setting line is
    in ``data`` (``pipeline.requests_in`` reads the settings then), from one pass."""
    agents, setting = keyword_lines(data)
    return _agent_in(data, agents, path), setting


def _agent_in(
    data: bytes, lines: Iterable[tuple[int, bytes]], path: str | os.PathLike[str] | None
) -> str | None:
    """Return the last valid name of the keyword ``lines`` of ``data``; raise on a bad one."""
    found: str | None = None
    for offset, value in lines:
        line = data.count(b"\n", 0, offset) + 1
        found = _agent_name(value.decode("utf-8", "replace"), path, line)
    return found


def _agent_name(value: str, path: str | os.PathLike[str] | None, line: int | None) -> str:
    """Validate one keyword value as an agent name (lower-cased, without ``@``)."""
    name = value.strip().lstrip("@")
    if not _AGENT_NAME_RE.match(name):
        raise ConfigError(
            f"#+ORGROUTER_AGENT: {value.strip()!r} is not an agent name "
            "(one word: letters, digits, -, _)",
            path=path,
            line=line,
        )
    return name.lower()
