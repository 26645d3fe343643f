"""Read the prose of an Org section: paragraphs, list items and sentences.

Skills that work offline (summarize, todo) and the request finder (an empty headline
takes its instruction from the body) need the readable text of a section, without
blocks, drawers, planning lines, keywords, comments or sub-headlines. This is not
an Org parser: it only sorts the lines of one section into prose and not-prose; which
lines lie in a block or a drawer is the element parser's answer (org/elements), so a
line that opens nothing to Org (a stray ``:END:``, an unclosed ``#+begin_quote``) hides
nothing here either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from orgrouter.org.document import Document
from orgrouter.records import NamedTuple

_DRAWER_LINE = re.compile(r"^[ \t]*:[\w-]+:[ \t]*$")
_SKIP_LINE = re.compile(
    r"^(?:[ \t]*#\+|[ \t]*#(?:[ \t]|$)|[ \t]*(?:SCHEDULED|DEADLINE|CLOSED):|[ \t]*\|)"
)
_ITEM = re.compile(r"^([ \t]*)(?:[-+]|\d+[.)])[ \t]+(?:\[[ X-]\][ \t]+)?(.*)$")
_CHECKBOX = re.compile(r"^[ \t]*(?:[-+]|\d+[.)])[ \t]+\[([ X-])\]")
_HEADLINE = re.compile(r"^\*+ ")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
# "Action: call Bob", "TODO: add a test": a short label, a colon, then text.
_LABELLED = re.compile(r"^[ \t]*([^\W\d_][\w -]{0,20}?)[ \t]?:[ \t]+(\S.*?)[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|[-+|: \t]*$")
_BLOCK_BEGIN = re.compile(r"^[ \t]*#\+BEGIN_", re.IGNORECASE | re.MULTILINE)
_DRAWER_END = re.compile(r"^[ \t]*:END:", re.IGNORECASE | re.MULTILINE)
_HEADLINES = re.compile(r"^\*+ ", re.MULTILINE)


class Item(NamedTuple):
    """One list item: its text (continuation lines joined) and checkbox."""

    text: str
    checkbox: str | None  # " ", "X", "-" or None
    after: str  # the last prose line before the list (e.g. "Action items:")


class Prose(NamedTuple):
    """The readable parts of a section."""

    paragraphs: tuple[str, ...]
    items: tuple[Item, ...]
    # Paragraph lines that start with a short label: ("Action", "call Bob").
    labelled: tuple[tuple[str, str], ...] = ()


def _lines(section: str, *, drawers: bool) -> Iterator[tuple[str, bool]]:
    """Yield each line of ``section`` and whether Org reads it inside a ``#+begin_`` block
    (or, with ``drawers``, a drawer), up to the first headline."""
    pieces = [line.encode("utf-8", "replace") for line in section.splitlines(keepends=True)]
    hidden: list[tuple[int, int]] = []
    # The element parser only where a block or drawer may hide a line read here: Org
    # opens none without a #+BEGIN_ line, closes none without an :END: line (syntax.py's
    # BLOCK_BEGIN_RE, DRAWER_END_RE) and ends each at a headline. A #+TITLE or a block
    # in a sub-headline made every call parse the whole text with the AST.
    first = _HEADLINES.search(section)
    head = section if first is None else section[: first.start()]
    if _BLOCK_BEGIN.search(head) or (drawers and _DRAWER_END.search(head)):
        data = b"".join(pieces)
        stack = [Document(data).ast()]
        while stack:
            node = stack.pop()
            kind = node.type
            if (kind.endswith("-block") and kind != "dynamic-block") or (
                drawers and kind in ("drawer", "property-drawer")
            ):
                # Up to the end of its closing line: the blank lines after it are prose's.
                hidden.append((node.begin, node.begin + len(data[node.begin : node.end].rstrip())))
            else:
                stack.extend(node.contents)
    hidden.sort(reverse=True)
    at = 0
    for piece in pieces:
        line = piece.decode("utf-8").splitlines()[0] if piece.strip(b"\r\n") else ""
        if _HEADLINE.match(line):
            return
        while hidden and hidden[-1][1] <= at:
            hidden.pop()
        yield line, bool(hidden) and hidden[-1][0] <= at
        at += len(piece)


def prose_lines(section: str) -> Iterator[str]:
    """Yield the lines of ``section`` that are prose or list items (stop at a headline)."""
    for line, hidden in _lines(section, drawers=True):
        if not hidden and not _DRAWER_LINE.match(line) and not _SKIP_LINE.match(line):
            yield line


def read_prose(section: str) -> Prose:
    """Return the paragraphs and list items of ``section``."""
    paragraphs: list[str] = []
    items: list[Item] = []
    labelled: list[tuple[str, str]] = []
    current: list[str] = []
    item: list[str] | None = None
    item_meta: tuple[int, str | None, str] = (0, None, "")
    last_prose = ""

    def close_item() -> None:
        nonlocal item
        if item is not None:
            items.append(Item(" ".join(item), item_meta[1], item_meta[2]))
            item = None

    def close_paragraph() -> None:
        nonlocal last_prose
        if current:
            paragraphs.append(" ".join(current))
            last_prose = current[-1]
            current.clear()

    for line in prose_lines(section):
        stripped = line.strip()
        match = _ITEM.match(line)
        if match:
            close_paragraph()
            close_item()
            box = _CHECKBOX.match(line)
            indent = len(match.group(1).expandtabs(8))
            item = [match.group(2).strip()]
            item_meta = (indent, box.group(1) if box else None, last_prose)
        elif not stripped:
            close_item()
            close_paragraph()
        elif item is not None and len(line) - len(line.lstrip()) > item_meta[0]:
            item.append(stripped)
        else:
            close_item()
            current.append(stripped)
            label = _LABELLED.match(line)
            if label:
                labelled.append((label.group(1).strip(), label.group(2)))
    close_item()
    close_paragraph()
    return Prose(tuple(paragraphs), tuple(items), tuple(labelled))


class Table(NamedTuple):
    """One Org table: its header cells (when a rule line follows them) and rows."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def tables(section: str) -> list[Table]:
    """Return the tables of ``section`` (up to its first headline), outside blocks."""
    found: list[Table] = []
    lines: list[str] = []

    def close() -> None:
        if lines:
            found.append(_table(lines))
            lines.clear()

    for line, hidden in _lines(section, drawers=False):
        if not hidden and line.lstrip().startswith("|"):
            lines.append(line)
        else:
            close()
    close()
    return [table for table in found if table.rows]


def _table(lines: list[str]) -> Table:
    """Return the table written in ``lines`` (each starting with ``|``)."""
    rows: list[tuple[str, ...]] = []
    header: tuple[str, ...] = ()
    for number, line in enumerate(lines):
        if _TABLE_RULE.match(line):
            if number == 1 and rows:
                header = rows.pop()
            continue
        cells = line.strip().strip("|").split("|")
        rows.append(tuple(cell.strip() for cell in cells))
    return Table(header, tuple(rows))


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences at ``.``, ``!`` or ``?`` followed by a capital."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]
