"""What ``orgrouter route`` does once its arguments are read, free of click.

``orgrouter.commands.route`` declares the options for click; ``orgrouter.cli`` calls
:func:`run` itself for the common forms, so a run that changes nothing starts fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.clock import NOW_ENV, parse_now
from orgrouter.commands import echo, warn_environment
from orgrouter.errors import UsageError
from orgrouter.report import plural
from orgrouter.route.router import RunOptions
from orgrouter.writemode import WriteMode
from orgrouter.xdg import cache_dir

if TYPE_CHECKING:
    from orgrouter.config import Config
    from orgrouter.route.pipeline import RequestReport


def run(
    paths: tuple[str, ...] = (),
    show_diff: bool = False,
    check: bool = False,
    dry_run: bool = False,
    as_json: bool = False,
    agent: str | None = None,
    config_file: str | None = None,
    state_path: str | None = None,
    force: bool = False,
    quiet: bool = False,
    verbose: bool = False,
    now_text: str | None = None,
    log_path: str | None = None,
    use_stdin: bool = False,
    file_name: str | None = None,
) -> int:
    """Route PATHS (or stdin) as ``orgrouter route`` documents; return the exit code."""
    from orgrouter.configload import load_config

    mode = _mode(show_diff, check, dry_run, as_json)
    if use_stdin and paths:
        raise UsageError("--stdin reads one document from stdin: give no PATHs")
    if file_name is not None and not use_stdin:
        raise UsageError("--file-name goes with --stdin")
    if use_stdin and as_json:
        raise UsageError("--stdin prints the document on stdout: --json does not apply")
    if use_stdin and (show_diff or dry_run):
        raise UsageError("--stdin writes to stdout: --diff and --dry-run do not apply")
    start = Path(file_name).parent if use_stdin and file_name else Path(paths[0] if paths else ".")
    overrides = {"agent.name": agent} if agent else None
    warm_key = _warm_key(paths, mode, agent or config_file or use_stdin)
    loaded = load_config(start, cli_file=config_file, env=os.environ, overrides=overrides)
    config = loaded.config
    warn_environment(loaded)
    printer = _printer(as_json)
    options = RunOptions(
        mode=mode,
        now=parse_now(now_text or os.environ.get(NOW_ENV)),
        force=force,
        log_path=Path(log_path) if log_path else None,
        on_request=printer,
        on_diff=lambda text: echo(text, nl=False),
        config_dir=loaded.directory,
        rules_cache=cache_dir(os.environ),
        # User skills and a rules dir's tables are files the proof cannot see (not named
        # by the configuration's bytes): a warm run must load and check them.
        warm_key=None if config.skills.paths or config.rules.dir else warm_key,
    )
    if use_stdin:
        return _stdin(file_name, config, options, state_path, quiet)
    from orgrouter.discover import find_notes_root
    from orgrouter.report import Report
    from orgrouter.route.runner import run_route
    from orgrouter.state import resolve_state_path

    report = Report(
        check=check,
        dry_run=mode in (WriteMode.DIFF, WriteMode.DRY_RUN),
        quiet=quiet,
        verbose=verbose,
        emit=lambda line: echo(line, err=True),
    )

    targets = list(paths) or ["."]
    root = find_notes_root(targets)
    options.state_path = resolve_state_path(state_path, os.environ, config, root)
    run_route(targets, config, report, options)
    summary = report.summary()
    if summary:
        echo(summary, err=True)
    return report.exit_code


def _stdin(
    file_name: str | None, config: Config, options: RunOptions, state_path: str | None,
    quiet: bool,
) -> int:
    """Route stdin to stdout; --check exits 1 (and prints nothing) when work is found.

    A skill that writes a file besides stdout (a tangle target) first takes the notes
    root's run lock, as a directory run does: exit 75 if another run holds it.
    """
    from orgrouter.route.filter import route_stdin, stdin_root

    def locate_state() -> Path:
        # Only when a skill needs the database: most filter runs never open it.
        from orgrouter.state import resolve_state_path

        return resolve_state_path(state_path, os.environ, config, stdin_root(file_name))

    data = sys.stdin.buffer.read()
    outcome, warnings = route_stdin(data, file_name, config, options, locate_state=locate_state)
    for warning in warnings:
        echo(warning, err=True)
    if options.mode is WriteMode.CHECK:
        return 1 if outcome.data != data else 0
    sys.stdout.buffer.write(outcome.data)
    sys.stdout.buffer.flush()
    if outcome.routed and not quiet:
        echo(
            f"routed {plural(outcome.routed, 'request')}, {plural(outcome.results, 'result')}",
            err=True,
        )
    return 0


def _warm_key(paths: tuple[str, ...], mode: WriteMode, other: object) -> str | None:
    """Return ``warm.proof_key`` for a write run with no --config, --agent or --stdin."""
    if mode is not WriteMode.WRITE or other:
        return None
    from orgrouter.warm import proof_key

    return proof_key(list(paths), os.environ)


def _mode(show_diff: bool, check: bool, dry_run: bool, as_json: bool) -> WriteMode:
    """Return the write mode the flags ask for, refusing combinations that clash (exit 2).

    ``--check --diff`` shows the diff and exits 1 when there is work, as black does:
    the mode is DIFF and the report counts work as a check.
    """
    if dry_run and (check or show_diff):
        raise UsageError("--dry-run reports what would change: it goes with neither --check "
                         "nor --diff")  # fmt: skip
    if show_diff and as_json:
        raise UsageError("--diff and --json both print on stdout: choose one")
    if show_diff:
        return WriteMode.DIFF
    if check:
        return WriteMode.CHECK
    return WriteMode.DRY_RUN if dry_run else WriteMode.WRITE


def _printer(as_json: bool) -> Callable[[RequestReport], None]:
    """Return the per-request callback: a JSON line with --json, else nothing."""

    def emit(request: RequestReport) -> None:
        import json  # only --json needs it

        echo(json.dumps(request.to_json(), ensure_ascii=False, sort_keys=False))

    return emit if as_json else (lambda _request: None)
