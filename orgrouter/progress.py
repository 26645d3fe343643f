"""A one-line progress bar on a terminal's stderr, for runs over many files.

Shown only when the stream is a TTY, the run is not quiet, and there are at least
``MIN_FILES`` files: cron, pipes and Emacs's ``shell-command`` see nothing. Redraws
are throttled, and the line is erased when the run ends so the summary that follows
starts on a clean line.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import TextIO

MIN_FILES = 200  # below this a run is over before a bar helps
REDRAW_S = 0.1


class Progress:
    """A progress bar over ``total`` steps; a no-op when disabled."""

    def __init__(
        self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self.verb = "scanning"
        self.enabled = total >= MIN_FILES and _is_tty(self.stream) if enabled is None else enabled
        self._last_draw = 0.0
        self._drawn = False

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more done, redrawing at most every ``REDRAW_S`` seconds."""
        self.done += steps
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last_draw >= REDRAW_S or self.done >= self.total:
            self._last_draw = now
            self._draw()

    def restart(self, total: int, verb: str) -> None:
        """Count ``total`` steps of a run's next phase from 0, shown as ``verb``."""
        self.close()
        self.total, self.done, self.verb = total, 0, verb

    def render(self, width: int) -> str:
        """Return the bar as one line of at most ``width`` characters."""
        total = max(self.total, 1)
        fraction = min(self.done / total, 1.0)
        counts = f" {self.done}/{self.total} {self.verb}"
        room = max(width - len(counts) - 2, 0)
        filled = int(room * fraction)
        bar = "[" + "#" * filled + "-" * (room - filled) + "]"
        return (bar + counts)[:width]

    def _draw(self) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self.stream.write("\r" + self.render(width))
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Erase the bar, if one was drawn."""
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    """Return whether ``stream`` is an interactive terminal (and TERM is not dumb)."""
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def progress_for(total: int, *, quiet: bool, stream: TextIO | None = None) -> Progress:
    """Return the bar a run over ``total`` files should show (disabled with ``-q``)."""
    return Progress(total, stream=stream, enabled=False if quiet else None)
