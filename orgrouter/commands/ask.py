"""``orgrouter ask TEXT``: answer a free-form question as Org on stdout."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orgrouter.commands.options import CONFIG, complete_agents, verbosity, warn_environment
from orgrouter.errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("text")
@CONFIG
@click.option(
    "--agent",
    shell_complete=complete_agents,
    help="Use this agent's model settings ([agents.NAME.neuro]).",
)
@verbosity
def ask(text: str, config_file: str | None, agent: str | None) -> int:
    """Answer TEXT (or stdin when TEXT is -) with the configured model, as Org.

    The message goes through the router like a request in a note. Without a model
    (neuro.backend = "rules") the answer says how to configure one. A model failure
    is reported on stderr and the exit status is 3.
    """
    from orgrouter.configload import load_config
    from orgrouter.route.chat import answer_chat

    if text == "-":
        text = sys.stdin.read()
    loaded = load_config(Path.cwd(), cli_file=config_file)
    warn_environment(loaded)
    answer = answer_chat(text, loaded.config, agent=agent)
    org = answer.org()
    if org:
        click.echo(org, nl=False)
    for error in answer.errors():
        click.echo(f"orgrouter: error: {error.title}: {error.body}", err=True)
    return EXIT_FAILED if answer.errors() else EXIT_OK
