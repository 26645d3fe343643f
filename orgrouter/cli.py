"""The command-line interface: declares commands and maps errors to exit codes.

Each command lives in its own module under ``orgrouter.commands`` and is imported only
when it runs, so ``orgrouter --version`` and cheap commands stay fast.
"""

from __future__ import annotations

import importlib
import sys

import click

from orgrouter import __version__
from orgrouter.errors import EXIT_FAILED, EXIT_USAGE, OrgRouterError

# name -> "module:attribute"; the registry is explicit (STYLE.md 8).
COMMANDS: dict[str, str] = {
    "parse": "orgrouter.commands.parse:parse",
    "classify": "orgrouter.commands.classify:classify",
    "decompose": "orgrouter.commands.decompose:decompose",
    "route": "orgrouter.commands.route:route",
    "ask": "orgrouter.commands.ask:ask",
    "tangle": "orgrouter.commands.tangle:tangle",
    "detangle": "orgrouter.commands.tangle:detangle",
    "config": "orgrouter.commands.config:config",
    "state": "orgrouter.commands.state:state",
    "refine": "orgrouter.commands.refine:refine",
    "serve": "orgrouter.commands.serve:serve",
}

SUMMARIES: dict[str, str] = {
    "parse": "Parse Org files and print their AST or headlines.",
    "classify": "Run the sensor gate on a request and print its JSON.",
    "decompose": "Split an instruction into atomic intents.",
    "route": "Find @agent requests, run them, and write results back.",
    "ask": "Answer a free-form question as Org text.",
    "tangle": "Write the source blocks of literate notes to their target files.",
    "detangle": "Carry edits in tangled files back into their Org source blocks.",
    "config": "Print the effective configuration and where each value came from.",
    "state": "Inspect or reset the state database.",
    "refine": "Improve the routing rules through a golden-set gate.",
    "serve": "Answer JSON-RPC calls on stdin for editors (Emacs).",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        if "--help" in sys.argv and len(sys.argv) <= 2:
            # `orgrouter --help` lists commands without importing them. Shell completion
            # (ctx.resilient_parsing) needs the real command: its options and their values.
            return click.Command(cmd_name, help=SUMMARIES[cmd_name])
        module = importlib.import_module(module_name)
        command = getattr(module, attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orgrouter")
@click.option("-q", "--quiet", is_flag=True, help="As the command's own -q (orgrouter -q route).")
@click.option("-v", "--verbose", is_flag=True, help="As the command's own -v.")
def cli(quiet: bool, verbose: bool) -> None:
    """Route @agent requests in Org notes to skills and write the results back."""


def main(argv: list[str] | None = None) -> None:
    """Run the CLI and exit with the code the outcome calls for."""
    args = sys.argv[1:] if argv is None else argv
    verbose = "-v" in args or "--verbose" in args
    try:
        code = cli.main(args=args, prog_name="orgrouter", standalone_mode=False)
    except OrgRouterError as error:
        click.echo(f"orgrouter: error: {error}", err=True)
        if verbose and error.exit_code != EXIT_USAGE:  # a usage error is no one's bug
            _print_traceback()
        sys.exit(error.exit_code)
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
    except KeyboardInterrupt:
        click.echo("orgrouter: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as error:  # the last line of defence, see STYLE.md 3
        click.echo(
            f"orgrouter: internal error: {type(error).__name__}: {error}"
            + ("" if verbose else " (run with -v for the traceback)"),
            err=True,
        )
        if verbose:
            _print_traceback()
        sys.exit(EXIT_FAILED)
    sys.exit(code if isinstance(code, int) else 0)


def _print_traceback() -> None:
    """Print the exception being handled (traceback is imported only for -v)."""
    import traceback

    traceback.print_exc()
