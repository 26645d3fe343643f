"""Helpers for the adversarial tests: a real notes tree, the real CLI, and a file-system
snapshot to prove that nothing outside what was allowed changed."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from orgrouter.cli import cli
from orgrouter.errors import OrgRouterError

NOW = "2026-11-30T09:00"


def environment(tmp: Path) -> dict[str, str]:
    """Return an environment with HOME and the XDG dirs under ``tmp``."""
    return {
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "home" / ".config"),
        "XDG_STATE_HOME": str(tmp / "home" / ".local" / "state"),
        **{name: "" for name in os.environ if name.startswith("ORGROUTER_")},
    }


def run(args: list[str], tmp: Path, stdin: bytes = b"") -> tuple[int, bytes, str]:
    """Run ``orgrouter ARGS`` in-process as a user whose HOME is ``tmp/home``."""
    result = CliRunner().invoke(
        cli, args, input=stdin, env=environment(tmp), standalone_mode=False
    )
    if isinstance(result.exception, OrgRouterError):
        return result.exception.exit_code, result.stdout_bytes, result.stderr + str(
            result.exception
        )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    code = result.return_value if isinstance(result.return_value, int) else 0
    return code, result.stdout_bytes, result.stderr


def snapshot(top: Path) -> dict[str, bytes]:
    """Return every file under ``top`` (hidden ones too) by relative path, with its bytes."""
    files: dict[str, bytes] = {}
    for directory, _dirs, names in os.walk(top):
        for name in names:
            path = Path(directory) / name
            if not path.is_symlink():
                files[path.relative_to(top).as_posix()] = path.read_bytes()
    return files


STATE = ".local/state/"  # orgrouter's own state and locks, under the test HOME


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """Return the files created, removed or changed between two snapshots of HOME.

    orgrouter's own state directory is left out: the run writes its database there.
    """
    names = before.keys() | after.keys()
    return {n for n in names if before.get(n) != after.get(n) and not n.startswith(STATE)}


def approve(note: Path, nth: int = 1) -> None:
    """Change the ``nth`` WAITING approval headline of ``note`` to APPROVED, as a user does."""
    text = note.read_text()
    at = -1
    for _ in range(nth):
        at = text.index("WAITING Approve:", at + 1)
    note.write_text(text[:at] + "APPROVED" + text[at + len("WAITING") :])
