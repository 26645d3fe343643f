"""The click group of ``orgrouter``: subcommands imported on first use.

Kept apart from ``orgrouter.cli`` so that a run ``orgrouter.cli`` answers itself never
imports click.
"""

from __future__ import annotations

import importlib
import sys

import click

from orgrouter import __version__

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
