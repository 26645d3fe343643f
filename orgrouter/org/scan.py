"""Find headline lines in raw bytes without parsing the document.

Org treats exactly the lines matching ``^\\*+ `` as headlines (src blocks included: an
unescaped ``* x`` inside a block is a headline to Org). This regex finds the same byte
offsets as Emacs on every file of the shared corpus.

A UTF-8 BOM is not text to Emacs: it drops the BOM when it visits the file, so a first
line after one is a headline to the user. The corpus oracle reads files with the BOM
kept (utf-8-unix) and has no file that starts with one, so both agree there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from orgrouter.records import NamedTuple

HEADLINE_RE = re.compile(rb"^(\*+) ", re.MULTILINE)
# The same rule for decoded text, where offsets count characters.
HEADLINE_TEXT_RE = re.compile(r"^\*+ ", re.MULTILINE)
BOM = b"\xef\xbb\xbf"
_STARS = re.compile(rb"(\*+) ")  # a headline's stars, matched at a line start


class HeadlineLine(NamedTuple):
    """Where one headline line sits in the file's bytes."""

    begin: int  # byte offset of the first star
    end: int  # byte offset just past the line's newline (or end of data)
    level: int  # number of stars
    line: int  # 1-based line number (only LF ends a line, as in Emacs)


def iter_headline_lines(data: bytes) -> Iterator[HeadlineLine]:
    """Yield every headline line of ``data`` in order."""
    line = 1
    counted_to = 0
    first = headline_at(data, 0) if data.startswith(BOM) else None
    if first is not None:  # HEADLINE_RE cannot see it: the BOM is before its stars
        yield HeadlineLine(first.begin, first.end, first.level, 1)
    for match in HEADLINE_RE.finditer(data):
        begin = match.start()
        line += data.count(b"\n", counted_to, begin)
        counted_to = begin
        newline = data.find(b"\n", begin)
        end = len(data) if newline < 0 else newline + 1
        yield HeadlineLine(begin, end, len(match.group(1)), line)


def headline_at(data: bytes, line_start: int) -> HeadlineLine | None:
    """Return the headline on the line starting at ``line_start`` (line number 0), or None."""
    begin = line_start
    if line_start == 0 and data.startswith(BOM):
        begin = len(BOM)  # Emacs drops a BOM, so a headline may follow it
    match = _STARS.match(data, begin)
    if match is None:
        return None
    newline = data.find(b"\n", begin)
    end = len(data) if newline < 0 else newline + 1
    return HeadlineLine(begin, end, len(match.group(1)), 0)
