"""``orgrouter state``: where the state database is, what it holds, and rebuilding it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from orgrouter.configload import load_config
from orgrouter.discover import find_notes_root
from orgrouter.errors import OrgRouterError
from orgrouter.runlock import RunLock
from orgrouter.state import StateDB, describe, reset_state, resolve_state_path

_ROOT = click.argument("notes_root", required=False, type=click.Path(file_okay=False), default=".")
_STATE = click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    help="The state database (default: ORGROUTER_STATE, state.path, else XDG per root).",
)
_CONFIG = click.option(
    "--config", "config_file", type=click.Path(dir_okay=False), help="Use this config file."
)


def _root(notes_root: str) -> Path:
    """Return the notes root a path belongs to, by the rule route and tangle use."""
    return find_notes_root([notes_root])


def _path(notes_root: str, state_path: str | None, config_file: str | None) -> Path:
    """Return the state database path for ``notes_root``: the one route uses there."""
    root = _root(notes_root)
    loaded = load_config(root, cli_file=config_file, env=os.environ)
    return resolve_state_path(state_path, os.environ, loaded.config, root)


def _contents(target: Path) -> str:
    """Return what a reset would delete, table by table, for the confirmation prompt."""
    if not target.exists():
        return "nothing (no database yet)"
    try:
        with StateDB.open(target) as db:
            tables = describe(db)["tables"]
    except OrgRouterError as error:
        return f"nothing readable ({error.message.split(';')[0]})"
    assert isinstance(tables, dict)
    rows = [f"{name} ({count} rows)" for name, count in tables.items() if name != "schema_versions"]
    return ", ".join(rows) or "no rows"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def state() -> None:
    """Inspect or reset the state database (never your notes).

    It holds the scan cache, spawn rate windows, tangle hashes, the event history
    and refine runs.
    Losing it costs time (one cold scan), never a duplicate result: the notes carry
    ORGROUTER_HASH properties. Refine candidates awaiting approval are lost with it.
    """


@state.command("path")
@_ROOT
@_STATE
@_CONFIG
def path_command(notes_root: str, state_path: str | None, config_file: str | None) -> None:
    """Print the path of the state database for NOTES_ROOT (default: .)."""
    click.echo(str(_path(notes_root, state_path, config_file)))


@state.command("info")
@_ROOT
@_STATE
@_CONFIG
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def info_command(
    notes_root: str, state_path: str | None, config_file: str | None, as_json: bool
) -> None:
    """Print the state database's path, size, and the rows in each table."""
    target = _path(notes_root, state_path, config_file)
    if not target.exists():
        if as_json:
            click.echo(json.dumps({"path": str(target), "exists": False}))
        else:
            click.echo(f"{target}: no state database yet (the first run creates it)")
        return
    with StateDB.open(target) as db:
        facts = describe(db)
    if as_json:
        click.echo(json.dumps({**facts, "exists": True}, indent=2))
        return
    tables = facts["tables"]
    assert isinstance(tables, dict)
    click.echo(f"path: {facts['path']}")
    click.echo(f"size: {facts['size_bytes']} bytes")
    for name, count in tables.items():
        click.echo(f"table {name}: {count} rows")


@state.command("reset")
@_ROOT
@_STATE
@_CONFIG
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def reset_command(
    notes_root: str, state_path: str | None, config_file: str | None, yes: bool
) -> None:
    """Delete and rebuild the state database for NOTES_ROOT (it may be corrupt).

    Takes the run lock first, so a cron run in progress is never pulled out from
    under; the next run rescans every file once.
    """
    target = _path(notes_root, state_path, config_file)
    if not yes and not click.confirm(
        f"Delete and rebuild {target}?\nIt holds: {_contents(target)}", default=False, err=True
    ):
        click.echo("nothing changed", err=True)
        return
    with RunLock(_root(notes_root), os.environ):
        reset_state(target).close()
    click.echo(f"rebuilt {target}", err=True)
