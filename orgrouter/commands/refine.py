"""``orgrouter refine``: improve the routing rules only through a golden-set gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def _common(func: F) -> F:
    """Add the options every refine subcommand shares."""
    for option in reversed(
        [
            click.option(
                "--config",
                "config_file",
                type=click.Path(dir_okay=False),
                help="Use this orgrouter.toml instead of searching from the cwd.",
            ),
            click.option(
                "--state",
                "state_path",
                type=click.Path(dir_okay=False),
                help="The state database (default: per notes root, XDG).",
            ),
            click.option(
                "--log",
                "log_path",
                type=click.Path(dir_okay=False),
                help="Append JSON-lines events (ids and counts only) to FILE.",
            ),
            click.option("--json", "as_json", is_flag=True, help="Print JSON."),
        ]
    ):
        func = option(func)
    return _quiet_verbose(func)


def _quiet_verbose(func: F) -> F:
    """Add -q/-v (checked by ``verbosity``) without passing them to the subcommand.

    refine prints only reports the user asked for and errors, which -q leaves.
    """
    import functools

    @functools.wraps(func)
    def run(*args: Any, quiet: bool, verbose: bool, **kwargs: Any) -> Any:
        from orgrouter.commands.options import warn_environment
        from orgrouter.configload import load_config

        warn_environment(load_config(Path.cwd(), cli_file=kwargs.get("config_file")).config)
        return func(*args, **kwargs)

    from orgrouter.commands.options import verbosity

    return verbosity(run)  # type: ignore[return-value]


def _open(config_file: str | None, state_path: str | None, log_path: str | None) -> Any:
    from orgrouter.refine.workspace import open_workspace

    return open_workspace(
        Path.cwd(),
        config_file=None if config_file is None else Path(config_file),
        state_path=state_path,
        log_path=None if log_path is None else Path(log_path),
    )


def _print_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


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
def run_command(
    full: bool,
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
) -> None:
    """Replay the golden set and record a run with its new findings."""
    from orgrouter.refine.render import render_run
    from orgrouter.refine.run import run_refinement

    with _open(config_file, state_path, log_path) as ws:
        result = run_refinement(ws, full=full)
    if as_json:
        _print_json(result.to_json())
    else:
        click.echo(render_run(result))


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
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
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
    with _open(config_file, state_path, log_path) as ws:
        if candidate_file is not None:
            candidates = [read_candidate(Path(candidate_file))]
        else:
            candidates = propose_candidates(ws, run_id)
        result = gate_run(ws, run_id, candidates, tolerance=tolerance)
    if as_json:
        _print_json(result.to_json())
    else:
        click.echo(render_gate(result))
    if result.status == "rejected":
        raise click.exceptions.Exit(1)


@refine.command("approve")
@click.argument("run_id", type=int)
@_common
def approve_command(
    run_id: int,
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
) -> None:
    """Apply RUN_ID's gated change to the live rules, keeping the old version."""
    from orgrouter.refine.apply import approve_run

    with _open(config_file, state_path, log_path) as ws:
        version = approve_run(ws, run_id)
    if as_json:
        _print_json({"run": run_id, "status": "applied", "version": version})
    else:
        click.echo(
            f"run {run_id}: applied as version {version} "
            f"(undo with `orgrouter refine rollback {version}`)"
        )


@refine.command("reject")
@click.argument("run_id", type=int)
@_common
def reject_command(
    run_id: int,
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
) -> None:
    """Close RUN_ID's gated change without applying it."""
    from orgrouter.refine.apply import reject_run

    with _open(config_file, state_path, log_path) as ws:
        reject_run(ws, run_id)
    if as_json:
        _print_json({"run": run_id, "status": "rejected"})
    else:
        click.echo(f"run {run_id}: rejected")


@refine.command("rollback")
@click.argument("version", type=int, required=False)
@_common
def rollback_command(
    version: int | None,
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
) -> None:
    """Restore the rules exactly as they were before VERSION (default: the latest)."""
    from orgrouter.refine.apply import rollback

    with _open(config_file, state_path, log_path) as ws:
        done = rollback(ws, version)
    if as_json:
        _print_json(
            {"version": done.version, "undone": list(done.undone), "files": list(done.files)}
        )
    else:
        undone = ", ".join(str(v) for v in done.undone)
        click.echo(f"rolled back version {undone}: restored {', '.join(done.files)}")


@refine.command("status")
@click.argument("run_id", type=int, required=False)
@_common
def status_command(
    run_id: int | None,
    config_file: str | None,
    state_path: str | None,
    log_path: str | None,
    as_json: bool,
) -> None:
    """Show the recent runs and versions, or one run in detail."""
    from orgrouter.refine.render import render_status, status_json

    with _open(config_file, state_path, log_path) as ws:
        data = status_json(ws, run_id)
    if as_json:
        _print_json(data)
    else:
        click.echo(render_status(data))
