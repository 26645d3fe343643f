"""Cut, shift and paste whole subtrees as Org 9.5 does, on bytes.

The facts followed (checked against Emacs 28.2 / Org 9.5.5 in tests/executors):

- a subtree runs from its first star to the next headline of its level or above, or
  the end of the buffer, blank lines included (``org-end-of-subtree t t``); that is
  what ``org-copy-subtree`` copies and ``org-cut-subtree`` removes;
- ``org-paste-subtree`` with a forced level shifts every headline of the text by the
  difference between that level and the text's first headline; each shifted headline
  is promoted or demoted one star at a time, and with ``org-auto-align-tags`` (the
  default) its tags are re-aligned to ``org-tags-column`` (-77) each time;
- pasting at a line start that is a headline inserts before it; text without a final
  newline gets one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from orgrouter.org.outline import subtree_end
from orgrouter.org.scan import BOM, headline_at, iter_headline_lines

TAGS_COLUMN = 77  # -77, `org-tags-column': tags end at this column
TAB_WIDTH = 8
# `org-tag-line-re': the tags are the last group of the line, after a blank or the stars.
_TAG_LINE = re.compile(r"^(\*+ (?:.*[ \t])?)(:[\w@#%:]+:)([ \t]*)$")


@dataclass(frozen=True, slots=True)
class Span:
    """One subtree's bytes: ``data[begin:end]``, with its top headline's level."""

    begin: int
    end: int
    level: int


def subtree_span(data: bytes, begin: int) -> Span:
    """Return the subtree whose headline starts at byte ``begin``."""
    at_line_start = begin == 0 or data[begin - 1 : begin] == b"\n" or data[:begin] == BOM
    line = headline_at(data, 0 if data[:begin] == BOM else begin) if at_line_start else None
    if line is None or line.begin != begin:
        raise ValueError(f"no headline starts at byte {begin}")
    # One search, not a scan of every headline: a move of many subtrees asks often.
    return Span(begin, subtree_end(data, line), line.level)


def columns(text: str) -> int:
    """Return the column Emacs reaches after ``text`` (tabs to 8, wide and control 2)."""
    column = 0
    for char in text:
        if char == "\t":
            column += TAB_WIDTH - column % TAB_WIDTH
        elif char < " " or char == "\x7f":  # shown as ^M, ^?
            column += 2
        elif "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, shown as \377
            column += 4
        elif unicodedata.east_asian_width(char) in "WF":
            column += 2
        else:
            column += 1
    return column


def align_tags(line: str) -> str:
    """Return a headline line (no line end) with its tags aligned as `org-align-tags` does."""
    match = _TAG_LINE.match(line)
    if match is None:
        return line
    head, tags, trailing = match.groups()
    before = head.rstrip(" \t")
    width = columns(tags)
    column = max(TAGS_COLUMN - width, columns(before) + 1)
    return before + " " * (column - columns(before)) + tags + trailing


def _split_line(text: bytes) -> tuple[bytes, bytes]:
    """Return a line's content and its line end (b"\\r\\n", b"\\n" or b"")."""
    if text.endswith(b"\r\n"):
        return text[:-2], b"\r\n"
    if text.endswith(b"\n"):
        return text[:-1], b"\n"
    return text, b""


def shift(text: bytes, delta: int) -> bytes:
    """Return subtree ``text`` with every headline ``delta`` stars deeper (or shallower).

    As ``org-map-region`` with ``org-demote``/``org-promote``: each headline changes
    its stars and, having tags, gets them re-aligned.
    """
    if delta == 0:
        return text
    out: list[bytes] = []
    position = 0
    for line in iter_headline_lines(text):
        out.append(text[position : line.begin])
        content, ending = _split_line(text[line.begin : line.end])
        level = max(1, line.level + delta)
        decoded = content.decode("utf-8", "surrogateescape")
        moved = "*" * level + decoded[line.level :]
        out.append(align_tags(moved).encode("utf-8", "surrogateescape") + ending)
        position = line.end
    out.append(text[position:])
    return b"".join(out)


def realign_first(text: bytes) -> bytes:
    """Return ``text`` with its first line's tags aligned (``org-refile``'s final step)."""
    newline = text.find(b"\n")
    end = len(text) if newline < 0 else newline + 1
    content, ending = _split_line(text[:end])
    aligned = align_tags(content.decode("utf-8", "surrogateescape"))
    return aligned.encode("utf-8", "surrogateescape") + ending + text[end:]


def at_level(text: bytes, level: int, newline: bytes = b"\n") -> bytes:
    """Return subtree ``text`` shifted so its first headline has ``level`` stars.

    A text without a final line end gets one, as ``org-paste-subtree`` adds it.
    """
    first = next(iter_headline_lines(text), None)
    if first is None:
        raise ValueError("the text holds no headline")
    shifted = shift(text, level - first.level)
    return shifted if shifted.endswith(b"\n") else shifted + newline


_LOCAL_VARIABLES = re.compile(
    rb"^[ \t]*# Local Variables:[ \t]*\r?\n(?:.*\r?\n)*?[ \t]*# End:[ \t]*(?:\r?\n)?[ \t\r\n]*\Z",
    re.MULTILINE,
)


def without_local_variables(data: bytes, span: Span) -> Span:
    """Return ``span`` less a file-final local variables block (``org-preserve-local-variables``).

    Org keeps the block at the end of the buffer when it copies or cuts the last
    subtree: the subtree ends where the block begins.
    """
    if span.end != len(data):
        return span
    found = _LOCAL_VARIABLES.search(data, span.begin)
    if found is None or found.start() <= span.begin:
        return span
    return Span(span.begin, found.start(), span.level)


def add_tags(data: bytes, begin: int, tags: tuple[str, ...]) -> bytes:
    """Return ``data`` with ``tags`` added to the headline at ``begin`` (aligned as Org does)."""
    end = data.find(b"\n", begin)
    end = len(data) if end < 0 else end
    if data[end - 1 : end] == b"\r":
        end -= 1
    line = data[begin:end].decode("utf-8", "surrogateescape")
    match = _TAG_LINE.match(line)
    have = [t for t in match.group(2).split(":") if t] if match else []
    missing = [t for t in tags if t not in have]
    if not missing:
        return data
    head = match.group(1).rstrip(" \t") if match else line.rstrip(" \t")
    new = align_tags(f"{head} :{':'.join([*have, *missing])}:")
    return data[:begin] + new.encode("utf-8", "surrogateescape") + data[end:]
