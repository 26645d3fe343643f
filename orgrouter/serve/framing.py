"""The LSP base framing: ``Content-Length: N`` headers, a blank line, then N bytes.

This is what Emacs's ``jsonrpc.el`` (the library eglot uses) speaks over a process's
pipes. Headers other than ``Content-Length`` (``Content-Type``) are read and ignored.
"""

from __future__ import annotations

from typing import BinaryIO

MAX_MESSAGE = 512 * 1024 * 1024  # a note is capped far below this; a bad length is not
_MAX_HEADER_LINE = 4096


class FramingError(Exception):
    """A message's headers are malformed; the bytes up to the next blank line are gone."""


def read_message(stream: BinaryIO) -> bytes | None:
    """Return the next message's body, or None at the end of the stream.

    Raises FramingError when the headers name no usable length; the stream is then
    just past that header block, so the next message can still be read.
    """
    length: int | None = None
    problem: str | None = None
    seen = False
    while True:
        line = stream.readline(_MAX_HEADER_LINE)
        if not line:
            if seen:
                raise FramingError("the stream ended inside a message's headers")
            return None
        if line in (b"\r\n", b"\n"):
            if not seen:
                continue  # stray blank lines between messages
            break
        seen = True
        if not line.endswith(b"\n"):
            problem = "a header line is too long"
            continue
        name, colon, value = line.decode("ascii", "replace").partition(":")
        if not colon:
            problem = f"not a header: {line[:60]!r}"
        elif name.strip().lower() == "content-length":
            text = value.strip()
            length = int(text) if text.isdigit() else None
            if length is None:
                problem = f"Content-Length is not a number: {text[:40]!r}"
    if problem is not None:
        raise FramingError(problem)
    if length is None:
        raise FramingError("the message has no Content-Length header")
    if length > MAX_MESSAGE:
        _discard(stream, length)  # so the next message is read from its headers
        raise FramingError(f"Content-Length {length} is over the {MAX_MESSAGE}-byte limit")
    body = _read_exactly(stream, length)
    if body is None:
        raise FramingError(f"the stream ended inside a {length}-byte message")
    return body


def _read_exactly(stream: BinaryIO, length: int) -> bytes | None:
    """Return exactly ``length`` bytes, or None if the stream ends first."""
    chunks: list[bytes] = []
    left = length
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _discard(stream: BinaryIO, length: int) -> None:
    """Read and drop ``length`` bytes (fewer if the stream ends first)."""
    while length > 0:
        chunk = stream.read(min(length, 1 << 20))
        if not chunk:
            return
        length -= len(chunk)


def write_message(stream: BinaryIO, body: bytes) -> None:
    """Write ``body`` framed, and flush."""
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body))
    stream.write(body)
    stream.flush()
