"""Run the orgrouter CLI in-process for route tests, isolated from the user's setup."""

from __future__ import annotations

import os
from pathlib import Path

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
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    code = result.return_value if isinstance(result.return_value, int) else 0
    return code, result.stdout_bytes, result.stderr
