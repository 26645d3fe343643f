"""The effective rules files: the user's live directory over the package defaults.

``load_rules`` takes each table from the user's rules directory when it is there and
from the package otherwise (an overlay). Refine sees the same overlay: an edit to a
table the user has not copied applies to the package's text and, when approved,
creates the user's copy. Nothing here writes.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import orgrouter.rules


def package_rules_dir() -> Path:
    """Return the directory of the package's default rules tables."""
    return Path(orgrouter.rules.__file__).resolve().parent


def normalize_rel(name: str) -> str | None:
    """Return ``name`` as a clean relative POSIX path, or None if it leaves its dir."""
    if not name or "\\" in name or "\x00" in name:
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or any(part in ("..", "") for part in path.parts):
        return None
    parts = [part for part in path.parts if part != "."]
    return "/".join(parts) if parts else None


@dataclass(frozen=True)
class RulesTree:
    """The live rules directory (may be None: none configured) over the defaults."""

    live: Path | None
    default: Path

    def inside_live(self, rel: str) -> bool:
        """Say whether ``rel`` resolves inside the live directory (no symlink escape)."""
        if self.live is None:
            return False
        root = self.live.resolve()
        return (root / rel).resolve().is_relative_to(root)

    def read(self, rel: str) -> bytes | None:
        """Return the effective bytes of ``rel``: the user's copy, else the package's."""
        for base in (self.live, self.default):
            if base is not None and (base / rel).is_file():
                return (base / rel).read_bytes()
        return None

    def read_live(self, rel: str) -> bytes | None:
        """Return the bytes of the user's own copy of ``rel``, or None if absent."""
        path = None if self.live is None else self.live / rel
        return path.read_bytes() if path is not None and path.is_file() else None

    def clone(self, target: Path) -> Path:
        """Copy the user's rules into ``target`` (a fresh dir) and return it."""
        if self.live is not None and self.live.is_dir():
            shutil.copytree(self.live, target, symlinks=False, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
        return target


def fingerprint(*dirs: Path | None) -> str:
    """Return a hash of every regular file under ``dirs`` (names and bytes)."""
    digest = hashlib.sha256()
    for index, base in enumerate(dirs):
        digest.update(f"\x00dir{index}\x00".encode())
        if base is None or not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            rel = path.relative_to(base).as_posix()
            if rel.startswith(".") or "/." in rel or "__pycache__" in rel:
                continue
            digest.update(rel.encode() + b"\x00")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
