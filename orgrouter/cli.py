"""The command-line interface: declares commands and maps errors to exit codes.

Each command lives in its own module under ``orgrouter.commands`` and is imported only
when it runs, so ``orgrouter --version`` and cheap commands stay fast. The commonest
``route`` forms (a cron job's, an editor's filter) do not even import click: see
:func:`_fast_route`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import Any

from orgrouter.commands import echo
from orgrouter.errors import EXIT_FAILED, EXIT_USAGE, OrgRouterError


def __getattr__(name: str) -> Any:
    """``from orgrouter.cli import cli``: the click group, imported when asked for."""
    if name == "cli":
        from orgrouter.commands.group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI and exit with the code the outcome calls for."""
    args = sys.argv[1:] if argv is None else argv
    verbose = "-v" in args or "--verbose" in args
    try:
        code = _fast_route(args)
        if code is None:
            code = _click_main(args)
    except OrgRouterError as error:
        echo(f"orgrouter: error: {error}", err=True)
        if verbose and error.exit_code != EXIT_USAGE:  # a usage error is no one's bug
            _print_traceback()
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        echo("orgrouter: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as error:  # the last line of defence, see STYLE.md 3
        echo(
            f"orgrouter: internal error: {type(error).__name__}: {error}"
            + ("" if verbose else " (run with -v for the traceback)"),
            err=True,
        )
        if verbose:
            _print_traceback()
        sys.exit(EXIT_FAILED)
    sys.exit(code)


def _click_main(args: list[str]) -> int:
    """Run ``args`` through click; exit as its errors call for (ours propagate)."""
    import click

    from orgrouter.commands.group import cli

    try:
        code = cli.main(args=args, prog_name="orgrouter", standalone_mode=False)
    except OrgRouterError:
        raise
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.UsageError as error:
        # click's usage and hint, then the one error prefix every message uses.
        if error.ctx is not None:
            click.echo(error.ctx.get_usage(), err=True)
            click.echo(f"Try '{error.ctx.command_path} --help' for help.", err=True)
        click.echo(f"orgrouter: error: {error.format_message()}", err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as error:
        click.echo(f"orgrouter: error: {error.format_message()}", err=True)
        sys.exit(error.exit_code)
    except click.Abort:
        click.echo("orgrouter: aborted", err=True)
        sys.exit(EXIT_FAILED)
    return code if isinstance(code, int) else 0


_FLAGS = {
    "-q": "quiet",
    "--quiet": "quiet",
    "--stdin": "use_stdin",
    # The write modes: the benchmark's and a user's first look (--dry-run) also start fast.
    "--dry-run": "dry_run",
    "--check": "check",
    "--diff": "show_diff",
    "--json": "as_json",
    "--force": "force",
}
_VALUED = {"--state": "state_path", "--file-name": "file_name"}


def _fast_route(args: list[str]) -> int | None:
    """Run ``route`` with only -q, the write modes, --force, --stdin, --state, --file-name
    and PATHs, without click.

    These are the forms run most often (cron, an editor's filter), and click's import
    is a sixth of such a run. Anything else, or any argument click would question (a
    repeated option, a missing or unreadable path), returns None: click handles it
    and says what is wrong as it always has.
    """
    if not args or args[0] != "route":
        return None
    params: dict[str, Any] = {}
    paths: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        name = _FLAGS.get(arg) or _VALUED.get(arg, "")
        if name in params:
            return None
        if arg in _FLAGS:
            params[name] = True
        elif name:
            value = next(rest, "")
            if not value or value.startswith("-"):
                return None
            params[name] = value
        elif arg.startswith("-") or not _readable(arg, dir_okay=True):
            return None
        else:
            paths.append(arg)
    state = params.get("state_path")
    if state is not None and os.path.exists(state) and not _readable(state, dir_okay=False):
        return None
    try:
        if params.keys() <= {"quiet", "state_path"}:  # a cron run: is anything changed?
            from orgrouter.warm import route_unchanged

            if route_unchanged(paths, quiet="quiet" in params, state_path=state):
                return 0
        if "use_stdin" in params:  # an editor's filter: one document, then exit
            gc.disable()  # collecting while the route path loads was 1.6% of its run
        # The patterns the last such route compiled (diskcache), beside the tables' cache;
        # not before the cron run's check above, which compiles few of them.
        from orgrouter.diskcache import kept_patterns, regex_file
        from orgrouter.xdg import cache_dir

        kind = "route-stdin" if "use_stdin" in params else "route"
        with kept_patterns(regex_file(cache_dir(os.environ), kind)):
            from orgrouter.commands.route_run import run

            return run(tuple(paths), **params)
    except (EOFError, KeyboardInterrupt):  # as click's main has them: a blank line, aborted
        echo("", err=True)
        echo("orgrouter: aborted", err=True)
        sys.exit(EXIT_FAILED)
    except BrokenPipeError:  # as click's main has it (`route --json | head -1`): exit 1, quietly
        with contextlib.suppress(OSError, ValueError):  # what is still buffered goes nowhere
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)  # click's code for it, whatever the mode


def _readable(path: str, *, dir_okay: bool) -> bool:
    """Return whether click.Path(exists=True, dir_okay=...) would take ``path``."""
    return (dir_okay or not os.path.isdir(path)) and os.access(path, os.R_OK)


def _print_traceback() -> None:
    """Print the exception being handled (traceback is imported only for -v)."""
    import traceback

    traceback.print_exc()
