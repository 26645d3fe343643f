"""Where tangled files may go: inside the notes root or a configured allowed directory."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def refusal(target: Path, roots: Sequence[Path]) -> str | None:
    """Return why ``target`` may not be written, or None when it may.

    The target must lie inside one of ``roots`` both as written and once symlinks
    are resolved, so a link inside the root cannot lead a write outside it.
    """
    written = os.path.normpath(os.path.abspath(target))
    real = os.path.realpath(written)
    for root in roots:
        root_text = os.path.normpath(os.path.abspath(root))
        if _inside(written, root_text) and _inside(real, os.path.realpath(root_text)):
            return None
    allowed = ", ".join(str(root) for root in roots)
    if any(_inside(written, os.path.normpath(os.path.abspath(r))) for r in roots):
        return f"a symlink leads outside the allowed directories ({allowed}) to {real}"
    return f"outside the allowed directories ({allowed}); add it to tangle.allow to permit it"


def allowed_dirs(allow: Iterable[str], base: Path) -> list[Path]:
    """Return the ``tangle.allow`` directories resolved, a relative one against ``base``.

    The CLI's tangle and the routed tangle skill both confine writes with this list.
    """
    return [(base / Path(p).expanduser()).resolve() for p in allow]
