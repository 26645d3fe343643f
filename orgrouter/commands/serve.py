"""``orgrouter serve``: answer JSON-RPC 2.0 calls on stdin/stdout (for Emacs)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from orgrouter.commands.options import CONFIG, STATE


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--agent", help="Answer to @NAME as well as @agent (agent.name).")
@CONFIG
@STATE
def serve(agent: str | None, config_file: str | None, state_path: str | None) -> int:
    """Answer JSON-RPC 2.0 calls on stdin with the LSP framing (Content-Length).

    Methods: route, classify, decompose, tangle, pending, shutdown, exit. A call
    that fails gets an error reply and the server goes on. Exit status: 0 after
    shutdown then exit (or end of input), else 1.
    """
    from orgrouter.serve.methods import Settings
    from orgrouter.serve.server import Server

    settings = Settings(
        config_file=config_file,
        state_path=state_path,
        agent=agent,
        environ=dict(os.environ),
        cwd=Path.cwd(),
    )
    from orgrouter.serve.pipes import private_channel, widen_pipes

    # The channel gets descriptors of its own, so a skill (or a program it runs)
    # writing to stdout cannot corrupt the framing; a library's print goes to stderr.
    reader, writer = private_channel(sys.stdin.buffer, sys.stdout.buffer)
    widen_pipes(reader, writer)
    sys.stdout = sys.stderr
    return Server(settings).serve(reader, writer)
