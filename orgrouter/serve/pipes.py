"""Widen the server's pipes so a large note crosses them in a few writes.

Emacs's ``send_process`` waits 20 ms each time a pipe it writes is full (a Linux
pipe holds 64 KiB by default), so sending a 1 MB buffer through a default pipe costs
about 300 ms of waiting however fast the server reads. Linux lets a process grow a
pipe up to ``/proc/sys/fs/pipe-max-size`` (1 MiB by default) with ``F_SETPIPE_SZ``;
elsewhere, or when it is not a pipe, nothing changes.
"""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path
from typing import BinaryIO

_MAX_SIZE = Path("/proc/sys/fs/pipe-max-size")
_WANTED = 8 * 1024 * 1024


def widen_pipes(*streams: BinaryIO) -> None:
    """Grow each stream's pipe to the largest size allowed (best effort)."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is None:
        return
    try:
        size = min(int(_MAX_SIZE.read_text().strip()), _WANTED)
    except (OSError, ValueError):
        size = 1024 * 1024
    for stream in streams:
        with contextlib.suppress(OSError, ValueError):
            fcntl.fcntl(stream.fileno(), setter, size)
