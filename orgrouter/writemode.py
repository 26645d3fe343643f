"""How a run treats the bytes it would write (black's ``WriteBack``), and the diff it prints.

One enum and one diff for ``route`` and ``tangle`` alike: ``--diff`` output looks the
same whichever command prints it.
"""

from __future__ import annotations

import enum
from pathlib import Path


class WriteMode(enum.Enum):
    """What a run does with changed bytes: write them, or only say so."""

    WRITE = "write"
    DIFF = "diff"  # print a unified diff, write nothing
    CHECK = "check"  # write nothing; exit 1 when something would change
    DRY_RUN = "dry-run"  # write nothing; report what would change

    @property
    def writes(self) -> bool:
        """Return whether this mode writes files."""
        return self is WriteMode.WRITE


def unified_diff(old: bytes | None, new: bytes, path: str) -> str:
    """Return the diff from ``old`` (None: no file yet) to ``new`` as ``diff -u`` prints it."""
    import difflib  # only --diff needs it; every route (Emacs's --stdin too) imports this

    label = Path(path).as_posix()
    lines = difflib.unified_diff(
        [] if old is None else old.decode("utf-8", "replace").splitlines(keepends=True),
        new.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"a/{label}",
        tofile=f"b/{label}",
    )
    # GNU diff marks a last line without its newline; patch(1) needs the marker.
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in lines
    )
