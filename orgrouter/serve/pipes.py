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
import os
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


def private_channel(stdin: BinaryIO, stdout: BinaryIO) -> tuple[BinaryIO, BinaryIO]:
    """Return the JSON-RPC reader and writer, moved off file descriptors 0 and 1.

    Anything else in the process that writes to descriptor 1 (a user skill's
    ``os.write``, or a program it runs, which inherits descriptor 1) would land
    inside the reply stream and break its framing; anything that reads descriptor 0
    would eat the next call. So the channel moves to descriptors of its own, 1
    becomes a copy of stderr and 0 reads ``/dev/null``. Streams that are not the
    process's descriptors 0 and 1 (a test's in-memory ones) are returned as they are.
    """
    try:
        real = stdin.fileno() == 0 and stdout.fileno() == 1
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        real = False
    if not real:
        return stdin, stdout
    stdout.flush()
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    return reader, writer
