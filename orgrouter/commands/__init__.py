"""The commands, one module each; here the output helpers they share, free of click.

``orgrouter route`` answers its common forms without importing click (see
``orgrouter.cli``), so what it prints goes through :func:`echo`.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orgrouter.configload import LoadedConfig


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print as ``click.echo`` does, importing click only for text it could treat apart
    (anything but plain ASCII; escape sequences, which it strips off a terminal)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None or not text.isascii() or "\x1b" in text:
        import click

        click.echo(text, err=err, nl=nl)
        return
    stream.write(text + "\n" if nl else text)
    stream.flush()


def warn_environment(loaded: LoadedConfig) -> None:
    """Print the configuration's warnings (a removed key, with its file and line), then one
    for each ``ORGROUTER_*`` variable no one reads, on stderr."""
    from orgrouter.configload import env_warnings

    for warning in [*loaded.warnings, *env_warnings(os.environ, loaded.config)]:
        echo(f"orgrouter: warning: {warning}", err=True)
