"""Helpers for route tests: the CLI in-process (isolated from the user's setup), and
the check that routing only ever inserted bytes."""

from __future__ import annotations

import os
from pathlib import Path

import click
from click.testing import CliRunner

from orgrouter.cli import cli
from orgrouter.errors import OrgRouterError


def run_cli(
    args: list[str], tmp: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[int, bytes, str]:
    """Run ``orgrouter ARGS`` in-process with a clean environment under ``tmp``."""
    env = {
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
        "XDG_STATE_HOME": str(tmp / "xdg-state"),
        **{name: "" for name in os.environ if name.startswith("ORGROUTER_")},
        **(env or {}),
    }
    result = CliRunner().invoke(cli, args, input=stdin, env=env, standalone_mode=False)
    if isinstance(result.exception, OrgRouterError):
        # What orgrouter.cli.main prints for it, as the user would see it.
        message = f"orgrouter: error: {result.exception}\n"
        return result.exception.exit_code, result.stdout_bytes, result.stderr + message
    if isinstance(result.exception, click.UsageError):  # click's own checks: exit 2
        message = f"orgrouter: error: {result.exception.format_message()}\n"
        return 2, result.stdout_bytes, result.stderr + message
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    code = result.return_value if isinstance(result.return_value, int) else 0
    return code, result.stdout_bytes, result.stderr


def only_insertions(old: bytes, new: bytes) -> bool:
    """Return whether every byte of ``old`` survives in ``new``, in order.

    That is: ``new`` is ``old`` with bytes inserted and none removed or changed.
    Greedy leftmost matching decides it exactly; whole lines that match where the
    scan stands are taken at once, so a large file costs little.
    """
    position = 0
    index = 0
    while index < len(old):
        line_end = old.find(b"\n", index)
        line_end = len(old) if line_end < 0 else line_end + 1
        if new.startswith(old[index:line_end], position):
            position += line_end - index
            index = line_end
            continue
        found = new.find(old[index : index + 1], position)
        if found < 0:
            return False
        position = found + 1
        index += 1
    return True
