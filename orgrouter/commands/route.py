"""``orgrouter route``: find @agent requests, run them, and write the results back."""

from __future__ import annotations

from typing import Any

import click

from orgrouter.clock import NOW_ENV
from orgrouter.commands.options import CONFIG, STATE, ExistingPath, complete_agents, verbosity


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=ExistingPath())
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if anything would change (--diff too)."
)
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per request.")
@click.option(
    "--agent",
    metavar="NAME",
    shell_complete=complete_agents,
    help="Answer to @NAME as well as @agent (agent.name).",
)
@CONFIG
@STATE
@click.option("--force", is_flag=True, help="Route requests again even if already answered.")
@verbosity
@click.option(
    "--now",
    "now_text",
    metavar="TIMESTAMP",
    help=f"Fix the clock (ISO 8601, e.g. 2026-11-30T09:00; also {NOW_ENV}).",
)
@click.option("--log", "log_path", type=click.Path(dir_okay=False), help="Append JSON-line events.")
@click.option("--stdin", "use_stdin", is_flag=True, help="Route one document from stdin to stdout.")
@click.option(
    "--file-name", metavar="PATH", help="With --stdin: the buffer's file (for messages, links)."
)
def route(**params: Any) -> int:
    """Find @agent requests in PATHS (files or directories) and write results back.

    Exit codes: 0 done, 1 --check found work, 2 usage or configuration error,
    3 some files failed, 75 another run holds the lock for these notes.
    """
    from orgrouter.commands.route_run import run

    return run(**params)
