"""``orgrouter refine``: improve the routing rules only through a golden-set gate."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from orgrouter.commands.options import CONFIG, STATE, verbosity, warn_environment

F = TypeVar("F", bound=Callable[..., Any])


_LOG = click.option("--log", "log_path", type=click.Path(dir_okay=False),
                    help="Append JSON-lines events (ids and counts only) to FILE.")  # fmt: skip
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _common(func: F) -> F:
    """Add the options every refine subcommand shares, handed over as a ``_Call``.

    refine prints only reports the user asked for and errors, which -q leaves.
    """

    @functools.wraps(func)
    def run(
        *args: Any,
        config_file: str | None,
        state_path: str | None,
        log_path: str | None,
        as_json: bool,
        **kwargs: Any,
    ) -> Any:
        from orgrouter.configload import load_config

        warn_environment(load_config(Path.cwd(), cli_file=config_file))
        return func(*args, call=_Call(config_file, state_path, log_path, as_json), **kwargs)

    return verbosity(CONFIG(STATE(_LOG(_JSON(run)))))  # type: ignore[return-value]


@dataclass(frozen=True)
class _Call:
    """The options every refine subcommand shares: its workspace, and how to print."""

    config_file: str | None
    state_path: str | None
    log_path: str | None
    as_json: bool

    def workspace(self) -> Any:
        """Open the workspace (a context manager) these options name."""
        from orgrouter.refine.workspace import open_workspace

        return open_workspace(
            Path.cwd(),
            config_file=None if self.config_file is None else Path(self.config_file),
            state_path=self.state_path,
            log_path=None if self.log_path is None else Path(self.log_path),
        )

    def show(self, data: object, text: str) -> None:
        """Print ``data`` as JSON under --json, else ``text``."""
        click.echo(json.dumps(data, indent=2, ensure_ascii=False) if self.as_json else text)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def refine() -> None:
    """Improve the routing rules through a golden-set gate.

    \b
    A cycle: `refine run` replays the golden set (and reads what was routed since),
    `refine gate RUN --candidate FILE` (or --propose) scores a change on a clone,
    `refine approve RUN` writes it, `refine rollback` restores the exact bytes.
    Writing needs [refine] mode = "propose" or "auto_apply" and files = [...].
    """


@refine.command("run")
@click.option("--full", is_flag=True, help="Report every finding, not only new ones.")
@_common
def run_command(full: bool, call: _Call) -> None:
    """Replay the golden set and record a run with its new findings."""
    from orgrouter.refine.render import render_run
    from orgrouter.refine.run import run_refinement

    with call.workspace() as ws:
        result = run_refinement(ws, full=full)
    call.show(result.to_json(), render_run(result))


@refine.command("gate")
@click.argument("run_id", type=int)
@click.option(
    "--candidate",
    "candidate_file",
    type=click.Path(exists=True, dir_okay=False),
    help="The candidate JSON: {proposer?, rationale?, edits: [...]}.",
)
@click.option(
    "--propose",
    is_flag=True,
    help="Have the offline proposer (and the model panel, if configured) write one.",
)
@click.option("--tolerance", type=float, help="Allowed score drop below the baseline.")
@_common
def gate_command(
    run_id: int,
    candidate_file: str | None,
    propose: bool,
    tolerance: float | None,
    call: _Call,
) -> None:
    """Score a candidate for RUN_ID on a clone against the accepted baseline."""
    from orgrouter.errors import UsageError
    from orgrouter.refine.candidate import read_candidate
    from orgrouter.refine.gate import gate_run
    from orgrouter.refine.propose import propose_candidates
    from orgrouter.refine.render import render_gate

    if candidate_file is not None and propose:
        raise UsageError("give either --candidate FILE or --propose, not both")
    if candidate_file is None and not propose:
        raise UsageError(
            "a candidate is required: --candidate FILE, or --propose to have one written"
        )
    with call.workspace() as ws:
        if candidate_file is not None:
            candidates = [read_candidate(Path(candidate_file))]
        else:
            candidates = propose_candidates(ws, run_id)
        result = gate_run(ws, run_id, candidates, tolerance=tolerance)
    call.show(result.to_json(), render_gate(result))
    if result.status == "rejected":
        raise click.exceptions.Exit(1)


@refine.command("approve")
@click.argument("run_id", type=int)
@_common
def approve_command(run_id: int, call: _Call) -> None:
    """Apply RUN_ID's gated change to the live rules, keeping the old version."""
    from orgrouter.refine.apply import approve_run

    with call.workspace() as ws:
        version = approve_run(ws, run_id)
    call.show(
        {"run": run_id, "status": "applied", "version": version},
        f"run {run_id}: applied as version {version} "
        f"(undo with `orgrouter refine rollback {version}`)",
    )


@refine.command("reject")
@click.argument("run_id", type=int)
@_common
def reject_command(run_id: int, call: _Call) -> None:
    """Close RUN_ID's gated change without applying it."""
    from orgrouter.refine.apply import reject_run

    with call.workspace() as ws:
        reject_run(ws, run_id)
    call.show({"run": run_id, "status": "rejected"}, f"run {run_id}: rejected")


@refine.command("rollback")
@click.argument("version", type=int, required=False)
@_common
def rollback_command(version: int | None, call: _Call) -> None:
    """Restore the rules exactly as they were before VERSION (default: the latest)."""
    from orgrouter.refine.apply import rollback

    with call.workspace() as ws:
        done = rollback(ws, version)
    undone = ", ".join(str(v) for v in done.undone)
    call.show(
        {"version": done.version, "undone": list(done.undone), "files": list(done.files)},
        f"rolled back version {undone}: restored {', '.join(done.files)}",
    )


@refine.command("status")
@click.argument("run_id", type=int, required=False)
@_common
def status_command(run_id: int | None, call: _Call) -> None:
    """Show the recent runs and versions, or one run in detail."""
    from orgrouter.refine.render import render_status, status_json

    with call.workspace() as ws:
        data = status_json(ws, run_id)
    call.show(data, render_status(data))
