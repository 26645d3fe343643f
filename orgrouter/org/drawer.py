"""Find a headline's planning line and property drawer exactly where Org accepts them.

Org 9.5.5 (``org-element--get-node-properties`` and ``org-element--current-element``
in mode ``planning``) looks in one place only: the line right after the headline may be
a planning line (``org-planning-line-re``: optional blanks, then ``CLOSED:``,
``DEADLINE:`` or ``SCHEDULED:``); the line after that (or right after the headline when
there is no planning line) may open a property drawer, which counts only when the whole
drawer matches ``org-property-drawer-re``: every line between ``:PROPERTIES:`` and the
first ``:END:`` is a ``:KEY:`` line, a key followed by nothing or by a space. A drawer
anywhere else, one with a blank line in it, or one after a blank line is an ordinary
drawer to Org, not the headline's properties. Org parses with ``case-fold-search`` on,
so ``scheduled:`` and ``:properties:`` count too.

Positions are byte offsets into the file's bytes. Emacs counts a ``\\r`` before ``\\n``
as text when it reads a file as ``utf-8-unix`` (the conformance oracle does) and as part
of the line end when it visits a CRLF file; ``newline=b"\\r\\n"`` chooses the latter.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from orgrouter.org.scan import HeadlineLine
from orgrouter.records import NamedTuple

if TYPE_CHECKING:
    from orgrouter.org.outline import OutlineEntry

# Characters with whitespace syntax in org-mode's syntax table (Emacs 28.2), as UTF-8:
# Emacs's \S- excludes exactly these, so a key may not contain them.
_WS_MULTIBYTE = rb"\xc2\xa0|\xe2\x80[\x80-\x8b\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
_NOT_WS = rb"(?:(?!" + _WS_MULTIBYTE + rb")[^\t\n\x0c\r ])"

PLANNING_RE = re.compile(rb"[ \t]*(CLOSED:|DEADLINE:|SCHEDULED:)", re.IGNORECASE)
# One keyword and its timestamp (org-keyword-time-not-clock-regexp), plus a range's
# second half, so an edit can replace the whole entry. Case-sensitive, as in
# org-element-planning-parser: a lower-case ``scheduled:`` makes the line a planning
# line but carries no entry.
_PLANNING_ENTRY_RE = re.compile(
    rb"(?<![0-9A-Za-z_])(CLOSED:|DEADLINE:|SCHEDULED:) *"
    rb"([\[<][^\]>\n]+[\]>](?:--?-?[\[<][^\]>\n]+[\]>])?)"
)


# The drawer is matched line by line rather than with org-property-drawer-re itself:
# Python's backtracking makes that regexp exponential on an unclosed drawer whose lines
# end in blanks (2**n tries for n lines), and quadratic on a long blank tail.
_OPEN_RE = re.compile(rb"[ \t]*:PROPERTIES:[ \t]*", re.IGNORECASE)
_CLOSE_RE = re.compile(rb"[ \t]*:END:[ \t]*", re.IGNORECASE)
_KEY_RUN_RE = re.compile(rb"([ \t]*):(" + _NOT_WS + rb"+)")


def _split_property(data: bytes, pos: int, end: int) -> tuple[bytes, int, int, int] | None:
    """Split the line ``data[pos:end]`` as org-property-re does.

    Return the key, where the rest after ``:KEY:`` starts, and the value's span (empty,
    just past the key's colon, when there is no value). ``:\\S-+:`` is greedy and a key
    holds no blank, so the key is the whole run of non-blanks after the first colon,
    less its final colon; the rest must be empty or start with a blank, and the value is
    the rest without the blanks around it.
    """
    match = _KEY_RUN_RE.match(data, pos, end)
    if match is None:
        return None
    run = match.group(2)
    rest = match.end()
    if len(run) < 2 or not run.endswith(b":") or (rest < end and data[rest] not in b" \t"):
        return None
    after = data[rest:end]
    value = after.strip(b" \t")
    value_begin = rest + len(after) - len(after.lstrip(b" \t")) if value else rest
    return run[:-1], rest, value_begin, value_begin + len(value)


def _indent(data: bytes, pos: int, end: int) -> bytes:
    """Return the blanks that start the line ``data[pos:end]``."""
    line = data[pos:end]
    return line[: len(line) - len(line.lstrip(b" \t"))]


class Planning(NamedTuple):
    """The planning line of a headline and the keyword entries on it."""

    begin: int  # start of the line
    end: int  # just past its line end (or end of data)
    line: int
    entries: tuple[PlanningEntry, ...]


class PlanningEntry(NamedTuple):
    """One ``KEYWORD: <timestamp>`` on a planning line."""

    keyword: str  # upper-cased, without the colon: SCHEDULED, DEADLINE, CLOSED
    timestamp: str  # as written, brackets included
    begin: int  # the keyword's first byte
    end: int  # just past the timestamp


class Property(NamedTuple):
    """One ``:KEY: value`` line of a property drawer."""

    key: str  # as written (Org compares keys case-insensitively)
    value: str  # trimmed; '' when the line has no value
    begin: int  # start of the line
    end: int  # just past its line end
    line: int
    value_begin: int  # where the value's bytes start (== value_end when empty)
    value_end: int


class PropertyDrawer(NamedTuple):
    """A headline's property drawer."""

    begin: int  # start of the :PROPERTIES: line
    end: int  # just past the :END: line's line end (or end of data)
    end_line_begin: int  # start of the :END: line: where new properties go
    line: int  # of the :PROPERTIES: line
    indent: bytes  # the :END: line's indentation, reused for inserted lines
    properties: tuple[Property, ...]

    def get(self, key: str) -> Property | None:
        """Return the first property named ``key`` (case-insensitive), or None."""
        folded = key.casefold()
        return next((prop for prop in self.properties if prop.key.casefold() == folded), None)


class Head(NamedTuple):
    """What sits between a headline line and its body."""

    headline: HeadlineLine | OutlineEntry
    planning: Planning | None
    drawer: PropertyDrawer | None
    body_begin: int  # first byte after the headline, planning line and drawer
    newline: bytes

    def value(self, key: str) -> str | None:
        """Return the value of the drawer's property ``key`` (case-insensitive), or None."""
        found = None if self.drawer is None else self.drawer.get(key)
        return None if found is None else found.value


def line_span(data: bytes, pos: int, newline: bytes = b"\n") -> tuple[int, int]:
    """Return (end of content, start of next line) of the line at ``pos``.

    A CRLF file's (``newline``) ``\\r`` is left out of the content.
    """
    found = data.find(b"\n", pos)
    content_end, next_line = (len(data), len(data)) if found < 0 else (found, found + 1)
    if newline == b"\r\n" and content_end > pos and data[content_end - 1] == 0x0D:
        content_end -= 1
    return content_end, next_line


def _planning(data: bytes, begin: int, line: int, newline: bytes) -> Planning | None:
    """Return the planning line starting at ``begin``, if the line is one."""
    if PLANNING_RE.match(data, begin) is None:
        return None
    content_end, end = line_span(data, begin, newline)
    entries = tuple(
        PlanningEntry(
            keyword=m.group(1)[:-1].decode("ascii").upper(),
            timestamp=m.group(2).decode("utf-8", "replace"),
            begin=m.start(),
            end=m.end(),
        )
        for m in _PLANNING_ENTRY_RE.finditer(data, begin, content_end)
    )
    return Planning(begin, end, line, entries)


def property_drawer(data: bytes, begin: int, line: int, newline: bytes) -> PropertyDrawer | None:
    """Return the property drawer starting at ``begin`` (1-based ``line``), if Org accepts one."""
    content_end, pos = line_span(data, begin, newline)
    if _OPEN_RE.fullmatch(data, begin, content_end) is None or pos == content_end:
        return None  # not an opening line, or one with no line end after it
    props: list[Property] = []
    line_no = line + 1
    while pos < len(data):
        content_end, next_line = line_span(data, pos, newline)
        if _CLOSE_RE.fullmatch(data, pos, content_end) is not None:
            # The first :END: closes the drawer (org-property-drawer-re is non-greedy).
            indent = _indent(data, pos, content_end)
            return PropertyDrawer(begin, next_line, pos, line, indent, tuple(props))
        split = _split_property(data, pos, content_end)
        if split is None or next_line == content_end:
            return None  # a line Org does not allow in a drawer, or the end of the file
        key, rest, value_begin, value_end = split
        # The drawer's ``:KEY:( .*)?[ \t]*`` is stricter than org-property-re: after the
        # key comes nothing, a space and anything, or blanks only.
        if not (rest == content_end or data[rest] == 0x20 or value_begin == value_end):
            return None
        name, value = key.decode("utf-8", "replace"), data[value_begin:value_end]
        text = value.decode("utf-8", "replace")
        props.append(Property(name, text, pos, next_line, line_no, value_begin, value_end))
        pos = next_line
        line_no += 1
    return None


def locate_head(
    data: bytes, headline: HeadlineLine | OutlineEntry, *, newline: bytes = b"\n"
) -> Head:
    """Find the planning line, property drawer and body start of ``headline``."""
    pos = headline.end
    line = headline.line + 1
    planning = _planning(data, pos, line, newline)
    if planning is not None:
        pos = planning.end
        line += 1
    drawer = property_drawer(data, pos, line, newline)
    if drawer is not None:
        pos = drawer.end
    return Head(headline, planning, drawer, pos, newline)
