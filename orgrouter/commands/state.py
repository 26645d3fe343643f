"""``orgrouter state``: where the state database is, what it holds, and rebuilding it."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from orgrouter.commands.options import CONFIG, STATE, verbosity, warn_environment
from orgrouter.configload import load_config
from orgrouter.discover import find_notes_root
from orgrouter.errors import OrgRouterError, UsageError
from orgrouter.report import plural
from orgrouter.runlock import RunLock
from orgrouter.state import StateDB, describe, reset_state, resolve_state_path

F = TypeVar("F", bound=Callable[..., Any])


def _located(func: F) -> F:
    """Add NOTES_ROOT, --state, --config; call with the root and the database route uses."""

    @functools.wraps(func)
    def run(notes_root: str, state_path: str | None, config_file: str | None, **kwargs: Any) -> Any:
        root = find_notes_root([notes_root])
        loaded = load_config(root, cli_file=config_file, env=os.environ)
        warn_environment(loaded)
        return func(root, resolve_state_path(state_path, os.environ, loaded.config, root), **kwargs)

    root = click.argument(
        "notes_root", required=False, type=click.Path(exists=True, file_okay=False), default="."
    )
    return root(STATE(CONFIG(run)))  # type: ignore[return-value]


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
    rows = [
        f"{name} ({plural(count, 'row')})"
        for name, count in tables.items()
        if name != "schema_versions"
    ]
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
@_located
@verbosity
def path_command(root: Path, target: Path) -> None:
    """Print the path of the state database for NOTES_ROOT (default: .)."""
    click.echo(str(target))


@state.command("info")
@_located
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@verbosity
def info_command(root: Path, target: Path, as_json: bool) -> None:
    """Print the state database's path, size, and the rows in each table."""
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
    click.echo(f"size: {plural(int(str(facts['size_bytes'])), 'byte')}")
    for name, count in tables.items():
        click.echo(f"table {name}: {plural(count, 'row')}")


@state.command("reset")
@_located
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@verbosity
def reset_command(root: Path, target: Path, yes: bool, quiet: bool) -> None:
    """Delete and rebuild the state database for NOTES_ROOT (it may be corrupt).

    Asks first on a terminal; without one (a script, cron) it needs --yes. Takes the
    run lock first, so a cron run in progress is never pulled out from under; the
    next run rescans every file once.
    """
    if not yes and not sys.stdin.isatty():
        # click.confirm would read the answer from a pipe, or abort at its end.
        raise UsageError("state reset asks for confirmation on a terminal; "
                         "with no terminal, pass --yes to reset")  # fmt: skip
    if not yes and not click.confirm(
        f"Delete and rebuild {target}?\nIt holds: {_contents(target)}", default=False, err=True
    ):
        if not quiet:
            click.echo("nothing changed", err=True)
        return
    with RunLock(root, os.environ):
        reset_state(target).close()
    if not quiet:
        click.echo(f"rebuilt {target}", err=True)
