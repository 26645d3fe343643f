"""``orgrouter config``: print the effective configuration and where each value came from."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from orgrouter.commands.options import CONFIG, verbosity, warn_environment
from orgrouter.config import NeuroConfig
from orgrouter.configload import LoadedConfig, Source, all_keys, load_config, section_keys


def effective_items(loaded: LoadedConfig) -> list[tuple[str, Any, Source]]:
    """Return (dotted key, value, source) for every key, agents' overrides last."""
    config = loaded.config
    items = []
    for key in all_keys():
        section, name = key.split(".")
        items.append((key, getattr(getattr(config, section), name), loaded.source(key)))
    for agent in sorted(config.agents):
        settings = config.agents[agent]
        for name in section_keys(NeuroConfig):
            dotted = f"agents.{agent}.neuro.{name}"
            source = loaded.sources.get(dotted) or loaded.source(f"neuro.{name}")
            items.append((dotted, getattr(settings, name), source))
    return items


def _toml_value(value: Any) -> str:
    """Return ``value`` written as TOML (strings as JSON strings, which TOML accepts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def render_text(loaded: LoadedConfig) -> str:
    """Return the configuration as TOML-style ``key = value  # source`` lines."""
    lines = [
        "# files read (lowest precedence first): "
        + (", ".join(str(p) for p in loaded.files) or "none")
    ]
    rows = []
    for key, value, source in effective_items(loaded):
        left = f"# {key} is unset" if value is None else f"{key} = {_toml_value(value)}"
        rows.append((left, str(source)))
    width = max(len(left) for left, _ in rows)
    lines += [f"{left.ljust(width)}  # {source}" for left, source in rows]
    if loaded.ignored_env:
        lines.append("# ignored (not configuration keys): " + ", ".join(loaded.ignored_env))
    return "\n".join(lines)


def render_json(loaded: LoadedConfig) -> str:
    """Return the configuration, its sources and the files read as JSON."""
    items = effective_items(loaded)
    data = {
        "files": [str(p) for p in loaded.files],
        "values": {key: value for key, value, _ in items},
        "sources": {
            key: {"kind": source.kind, "detail": source.detail} for key, _, source in items
        },
        "ignored_env": loaded.ignored_env,
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", required=False, type=click.Path(exists=True), default=None)
@CONFIG
@click.option("--json", "as_json", is_flag=True, help="Print JSON: values, sources, files.")
@verbosity
def config(path: str | None, config_file: str | None, as_json: bool) -> None:
    """Print the effective configuration and where each value came from.

    PATH is the notes root the search for orgrouter.toml starts at (default: the
    current directory). Precedence: options > ORGROUTER_* > orgrouter.toml >
    $XDG_CONFIG_HOME/orgrouter/config.toml > defaults.
    """
    loaded = load_config(Path(path or "."), cli_file=config_file, env=os.environ)
    warn_environment(loaded)
    click.echo(render_json(loaded) if as_json else render_text(loaded))
