"""Helpers for tangle tests: tangle one Org file alone in a sandbox directory."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from orgrouter.babel.run import Tangler, TangleReport, WriteMode


def tangle_alone(source: Path, sandbox: Path, mkdirs: tuple[str, ...] = ()) -> TangleReport:
    """Copy ``source`` alone into ``sandbox`` (the root) and tangle it there."""
    sandbox.mkdir(parents=True, exist_ok=True)
    copy = sandbox / source.name
    shutil.copyfile(source, copy)
    os.chmod(copy, 0o644)
    for directory in mkdirs:
        (sandbox / directory).mkdir(parents=True, exist_ok=True)
    return Tangler([sandbox], WriteMode.WRITE, display_base=sandbox).run([copy])


def outputs(sandbox: Path, source_name: str) -> dict[str, tuple[str, str]]:
    """Return {relative path: (sha256, mode)} of every file in ``sandbox`` but the source."""
    found: dict[str, tuple[str, str]] = {}
    for directory, _, files in os.walk(sandbox):
        for name in files:
            path = Path(directory) / name
            rel = path.relative_to(sandbox).as_posix()
            if rel == source_name:
                continue
            data = path.read_bytes()
            mode = os.stat(path).st_mode & 0o7777
            found[rel] = (hashlib.sha256(data).hexdigest(), f"{mode:04o}")
    return found
