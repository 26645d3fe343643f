"""Helpers for route tests: the CLI in-process (isolated from the user's setup), and
the check that routing only ever inserted bytes."""

from __future__ import annotations

import difflib
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


def only_insertions(old: bytes, new: bytes) -> bool:
    """Return whether ``new`` is ``old`` with bytes inserted and none removed or changed."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            return False
        if tag == "replace" and not subsequence(b"".join(a[i1:i2]), b"".join(b[j1:j2])):
            return False  # e.g. a tag appended to a headline: the old line survives in it
    return True


def subsequence(small: bytes, big: bytes) -> bool:
    """Return whether every byte of ``small`` appears in ``big``, in order."""
    position = 0
    for byte in small:
        position = big.find(bytes([byte]), position) + 1
        if position == 0:
            return False
    return True
