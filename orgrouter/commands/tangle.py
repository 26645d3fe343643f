"""``orgrouter tangle`` and ``orgrouter detangle``: literate notes to files and back."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from orgrouter.commands.options import CONFIG, STATE, ExistingPath, verbosity, warn_environment
from orgrouter.errors import UsageError
from orgrouter.report import plural

if TYPE_CHECKING:
    from orgrouter.babel.record import TargetRecord
    from orgrouter.babel.run import Tangler, TangleReport
    from orgrouter.config import Config
    from orgrouter.configload import LoadedConfig
    from orgrouter.writemode import WriteMode


def _open_record(state_path: str | None, root: Path, config: Config) -> TargetRecord:
    """Open the state database's table of what tangle last wrote."""
    from orgrouter.babel.record import TargetRecord
    from orgrouter.state import StateDB, resolve_state_path

    path = resolve_state_path(state_path, os.environ, config, root)
    return TargetRecord(StateDB.open(path))


@click.command()
@click.argument("paths", nargs=-1, type=ExistingPath(path_type=Path))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any target would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print unified diffs.")
@click.option("--dry-run", is_flag=True, help="Write nothing; list what would be written.")
@click.option("--force", is_flag=True, help="Overwrite targets edited since the last tangle.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The notes root targets must stay in (default: found from PATH).")
@CONFIG
@STATE
@verbosity
def tangle(
    paths: tuple[Path, ...],
    check: bool,
    show_diff: bool,
    dry_run: bool,
    force: bool,
    as_json: bool,
    root: Path | None,
    config_file: str | None,
    state_path: str | None,
    quiet: bool,
    verbose: bool,
) -> int:
    """Write the src blocks of Org files to their :tangle targets (org-babel-tangle).

    -v also lists unchanged targets; -q prints only errors (and --diff, --json).
    """
    from orgrouter.babel.run import TangleReport
    from orgrouter.discover import discover
    from orgrouter.writemode import WriteMode

    if sum([check, show_diff, dry_run]) > 1:
        raise UsageError("choose one of --check, --diff and --dry-run")
    if show_diff and as_json:
        raise UsageError("--diff and --json both print on stdout: choose one")
    mode = (
        WriteMode.CHECK if check else WriteMode.DIFF if show_diff
        else WriteMode.DRY_RUN if dry_run else WriteMode.WRITE
    )  # fmt: skip
    report = TangleReport.for_mode(mode)
    tanglers: dict[Path, tuple[Tangler, Config]] = {}

    def tangler_for(notes_root: Path) -> tuple[Tangler, Config]:
        if notes_root not in tanglers:
            tangler, loaded = _tangler(notes_root, mode, force, config_file, state_path)
            tanglers[notes_root] = tangler, loaded.config
            if len(tanglers) == 1:
                warn_environment(loaded)
        return tanglers[notes_root]

    for notes_root, given in _by_root(paths or (Path("."),), root).items():
        # Route's discovery under the [scan] of the root the paths were given in: hidden
        # paths and Emacs's backup, autosave and lock files left out, each file once.
        found = discover(given, tangler_for(notes_root)[1].scan)
        for error in found.errors:
            report.fail(error)
        for odd, reason in found.odd:  # named like a note, but no file to tangle
            report.skip(odd, reason, retry=False)
        # Each note's targets are bounded by its own root (a nested orgrouter.toml).
        for file_root, files in _by_root(found.files, root).items():
            tangler_for(file_root)[0].run(files, report)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    else:
        _print_text(report, mode, verbose, quiet)
    return report.exit_code


def _by_root(paths: Iterable[str | Path], root: Path | None) -> dict[Path, list[Path]]:
    """Group ``paths`` by their notes root (--root, else the nearest config root)."""
    from orgrouter.discover import find_notes_root

    groups: dict[Path, list[Path]] = {}
    for path in paths:
        groups.setdefault((root or find_notes_root([path])).resolve(), []).append(Path(path))
    return groups


def _tangler(
    notes_root: Path, mode: WriteMode, force: bool, config_file: str | None, state: str | None
) -> tuple[Tangler, LoadedConfig]:
    """Return a Tangler confined to ``notes_root`` and its tangle.allow, and the config."""
    from orgrouter.babel.run import Tangler
    from orgrouter.babel.safety import allowed_dirs
    from orgrouter.configload import load_config

    loaded = load_config(notes_root, cli_file=config_file)
    # configload made file entries absolute, relative to their file: base only serves the rest.
    allowed = [notes_root, *allowed_dirs(loaded.config.tangle.allow, notes_root)]
    record = _open_record(state, notes_root, loaded.config)
    return Tangler(allowed, mode, force, record), loaded


def _print_text(report: TangleReport, mode: WriteMode, verbose: bool, quiet: bool) -> None:
    from orgrouter.writemode import WriteMode

    for result in report.targets:
        if result.action == "unchanged" and not verbose:
            continue
        if result.diff:
            click.echo(result.diff, nl=False)
            continue
        line = f"{result.action}: {result.target} (from {result.source})"
        if result.reason:
            line += f": {result.reason}"
        if result.action in ("conflict", "refused", "failed"):
            click.echo(f"orgrouter: error: {line}", err=True)
        elif not quiet:
            click.echo(line)
        if result.overwrote and not quiet:
            verb = "overwrote" if result.action == "written" else "would overwrite"
            click.echo(f"{verb}: {result.target} ({result.overwrote})")
    if not quiet:
        for path, reason in report.skipped:
            click.echo(f"orgrouter: skipped {path}: {reason}", err=True)
        for source, warning in report.warnings:
            click.echo(f"orgrouter: warning: {source}:{warning.line}: {warning.detail}", err=True)
        for source, block in report.blocks_skipped:
            detail = f"block skipped ({block.reason}): {block.detail}"
            click.echo(f"orgrouter: {source}:{block.line}: {detail}", err=True)
    for _path, message in report.failed:
        click.echo(f"orgrouter: error: {message}", err=True)
    if quiet:
        return
    counts = ", ".join(
        f"{report.count(action)} {action}"
        for action in ("written", "would-write", "unchanged", "conflict", "refused", "failed")
        if report.count(action)
    )
    if mode is not WriteMode.DIFF:
        skipped = plural(len(report.blocks_skipped), "block")
        click.echo(f"{counts or 'nothing to tangle'}; {skipped} skipped", err=True)


@click.command()
@click.argument("files", nargs=-1, required=True, type=ExistingPath(path_type=Path))
@STATE
@verbosity
def detangle(files: tuple[Path, ...], state_path: str | None, quiet: bool) -> int:
    """Carry edits in tangled files (with :comments link) back into their Org blocks."""
    from orgrouter.babel.detangle import detangle_file
    from orgrouter.configload import load_config
    from orgrouter.discover import find_notes_root
    from orgrouter.errors import EXIT_FAILED, OrgRouterError

    code = 0
    warned = False
    for path in files:
        root = find_notes_root([path])
        try:
            loaded = load_config(root)
            config = loaded.config
            if not warned:
                warn_environment(loaded)
                warned = True
            record = _open_record(state_path, root, config)
            for message in detangle_file(path, record):
                if not quiet:
                    click.echo(message)
        except OrgRouterError as error:
            click.echo(f"orgrouter: error: {error}", err=True)
            code = EXIT_FAILED
    return code
