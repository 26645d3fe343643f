"""The click group of ``orgrouter``: subcommands imported on first use.

Kept apart from ``orgrouter.cli`` so that a run ``orgrouter.cli`` answers itself never
imports click.
"""

from __future__ import annotations

import importlib
import sys

import click

from orgrouter import __version__

# name -> its --help summary; the registry is explicit (STYLE.md 8). Each command is
# the attribute of its name in ``orgrouter.commands.<module>``, the module of its name
# unless _MODULES says another.
_MODULES = {"detangle": "tangle"}
COMMANDS: dict[str, str] = {
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
        if cmd_name not in COMMANDS:
            return None
        if "--help" in sys.argv and len(sys.argv) <= 2:
            # `orgrouter --help` lists commands without importing them. Shell completion
            # (ctx.resilient_parsing) needs the real command: its options and their values.
            return click.Command(cmd_name, help=COMMANDS[cmd_name])
        module = importlib.import_module(f"orgrouter.commands.{_MODULES.get(cmd_name, cmd_name)}")
        command = getattr(module, cmd_name)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orgrouter")
@click.option("-q", "--quiet", is_flag=True, help="As the command's own -q (orgrouter -q route).")
@click.option("-v", "--verbose", is_flag=True, help="As the command's own -v.")
def cli(quiet: bool, verbose: bool) -> None:
    """Route @agent requests in Org notes to skills and write the results back."""
