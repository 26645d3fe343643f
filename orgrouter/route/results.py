"""Recognise the results orgrouter already wrote, and whether the user edited them.

A result is a child headline whose property drawer holds ``ORGROUTER_RESULT``
(``HASH/N``: the request's instruction hash and the result's number). Its
``ORGROUTER_CHECK`` is a hash of its text as written (headline line, planning line
and body, the drawer's ``ORGROUTER_*`` lines left out): when the text no longer
matches, the user edited it, and it is theirs from then on. Results are found from
their drawer upwards, so looking for them never re-indexes a large file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from orgrouter.io.text import sha256
from orgrouter.marks import MARK, RESULT_KEY, find_mark
from orgrouter.org.document import Document
from orgrouter.org.drawer import PLANNING_RE, Head, line_span, locate_head
from orgrouter.org.outline import OutlineEntry, content_end, subtree_end
from orgrouter.org.scan import HeadlineLine, headline_at
from orgrouter.records import record
from orgrouter.route.request import FoundRequest

KIND_KEY = "ORGROUTER_KIND"
INTENT_KEY = "ORGROUTER_INTENT"
RUN_KEY = "ORGROUTER_RUN"
CHECK_KEY = "ORGROUTER_CHECK"
APPROVAL_KEY = "ORGROUTER_APPROVAL"  # on approval results: the held intent, as JSON


@record(frozen=True)
class Written:
    """A result headline already in the file (its line and parts are the document's)."""

    document: Document
    index: int  # the headline's index in document.entries
    identity: str  # the ORGROUTER_RESULT value
    head: Head
    edited: bool  # the text no longer matches ORGROUTER_CHECK

    @property
    def begin(self) -> int:
        """Return the offset of the first star."""
        return self.document.entries[self.index].begin

    @property
    def line(self) -> int:
        """Return the headline's 1-based line."""
        return self.document.entries[self.index].line

    @property
    def title(self) -> str:
        """Return the title as parsed (without keyword and tags)."""
        return self.document.headline(self.index).raw

    @property
    def tags(self) -> tuple[str, ...]:
        """Return the result's own tags."""
        return tuple(self.document.headline(self.index).tags)

    @property
    def keyword(self) -> str:
        """Return the first word of the title as written (WAITING, APPROVED...)."""
        words = self.document.line_text(self.index)[self.document.entries[self.index].level :]
        return next(iter(words.split(None, 1)), "")

    def get(self, key: str) -> str | None:
        """Return one of the result's properties, or None."""
        return self.head.value(key)


def written_results(document: Document, request: FoundRequest) -> list[Written]:
    """Return the result headlines that are direct children of ``request``."""
    entries, entry, end = document.entries, request.entry, request.entry.subtree_end
    found: list[Written] = []
    # A request's subtree is indexed whole: step from child to child over their subtrees
    # (a search of the whole subtree for marks read each of 1,000 nested requests' below).
    child = entries[entry.index + 1] if entry.index + 1 < len(entries) else None
    while child is not None and child.begin < end:
        following = child.index + 1
        section = min(entries[following].begin, end) if following < len(entries) else end
        marked = find_mark(document.data, child.begin, section) >= 0
        written = _written(document, child.index) if marked else None
        if written is not None:
            found.append(written)
        child = document.outline.starting(child.subtree_end)
    return found


def marked_headlines(document: Document, begin: int = 0, end: int | None = None) -> Iterator[int]:
    """Yield once, in file order, each headline holding a result mark in ``begin:end``."""
    seen: set[int] = set()
    position = find_mark(document.data, begin, end)
    while position >= 0:
        index = document.find(position)
        position = find_mark(document.data, position + len(MARK), end)
        if index is not None and index not in seen:
            seen.add(index)
            yield index


def _written(document: Document, index: int) -> Written | None:
    """Return headline ``index`` as a result, or None when it is not one."""
    head = document.head(index)
    identity = head.value(RESULT_KEY)
    if identity is None:
        return None
    edited = head.value(CHECK_KEY) != result_check(document.data, head)
    return Written(document, index, identity, head, edited)


def result_check(data: bytes, head: Head) -> str:
    """Return the hash of a result's text as written, its property drawer left out."""
    return check_with(data, head, b"")


def locate_results(
    data: bytes,
    newline: bytes,
    identities: Iterable[str],
    *,
    within: OutlineEntry | None = None,
    level: int | None = None,
) -> dict[str, Head]:
    """Return the head of each result headline named by ``identities``.

    ``within`` (a request's subtree) and ``level`` (one below the request) keep two
    requests with the same instruction, hence the same result identities, apart.
    Each ``:ORGROUTER_RESULT:`` is traced up to the headline whose own property drawer
    holds it (through the drawer's lines and an optional planning line), never by
    re-indexing the outline: this runs after every step of a write-back, on files of
    any size. Each line is walked over once, however many marks there are.
    """
    wanted = set(identities)
    found: dict[str, Head] = {}
    walked = _Walk()
    begin, end = 0, len(data)
    if within is not None:  # lines counted from its own: from the file's start, quadratic
        begin, end = within.begin, within.subtree_end
        walked.counted = (begin, within.line)
    position = find_mark(data, begin, end)
    while position >= 0 and len(found) < len(wanted):
        mark = position
        headline = walked.owner(data, mark)
        position = find_mark(data, mark + len(MARK), end)
        if headline is None or headline.begin < begin:
            continue
        if level is not None and headline.level != level:
            continue
        head = locate_head(data, headline, newline=newline)
        drawer = head.drawer
        if drawer is None or not drawer.begin <= mark < drawer.end:
            continue  # a drawer-like stretch, but not this headline's properties
        prop = drawer.get(RESULT_KEY)
        if prop is not None and prop.value in wanted:
            found.setdefault(prop.value, head)
    return found


_DRAWER_OPEN = re.compile(rb"[ \t]*:PROPERTIES:[ \t]*\r?$", re.IGNORECASE)
_DRAWER_CLOSE = re.compile(rb"[ \t]*:END:", re.IGNORECASE)
_DRAWER_LINE = re.compile(rb"[ \t]*:[^\s:]")  # a :KEY: line could be (a cheap test)


class _Walk:
    """Trace marks up to their headline; remember the last walk for the next mark."""

    def __init__(self) -> None:
        self.line = -1  # start of the last mark's line
        self.headline: HeadlineLine | None = None
        self.counted = (0, 1)  # (offset, its 1-based line): lines are counted once

    def owner(self, data: bytes, position: int) -> HeadlineLine | None:
        """Return the headline whose property drawer may hold the mark at ``position``.

        Up from the mark's line over drawer-shaped lines to ``:PROPERTIES:``, then an
        optional planning line, then the headline: the only place Org reads a
        headline's properties (``locate_head`` then checks the drawer in full).
        Marks come in file order: reaching the last mark's line means the same drawer.
        """
        start = data.rfind(b"\n", 0, position) + 1
        mark_line = start
        while True:
            if start == self.line:
                break  # the last walk went on from here
            if _DRAWER_OPEN.match(data, start, line_span(data, start)[0]):
                self.headline = self._headline_over(data, start)
                break
            if (
                start == 0
                or not _DRAWER_LINE.match(data, start)
                or _DRAWER_CLOSE.match(data, start)
            ):
                self.headline = None
                break
            start = data.rfind(b"\n", 0, start - 1) + 1
        self.line = mark_line
        return self.headline

    def _headline_over(self, data: bytes, drawer: int) -> HeadlineLine | None:
        """Return the headline right above the drawer at ``drawer``, past a planning line."""
        if drawer == 0:
            return None
        start = data.rfind(b"\n", 0, drawer - 1) + 1
        if headline_at(data, start) is None:
            if start == 0 or PLANNING_RE.match(data, start) is None:
                return None
            start = data.rfind(b"\n", 0, start - 1) + 1
        found = headline_at(data, start)
        if found is None:
            return None
        offset, line = self.counted
        if found.begin < offset:
            offset, line = 0, 1
        line += data.count(b"\n", offset, found.begin)
        self.counted = (found.begin, line)
        return HeadlineLine(found.begin, found.end, found.level, line)


def check_with(data: bytes, head: Head, planning: bytes) -> str:
    """Return the check of the result at ``head`` once ``planning`` is inserted below it.

    orgrouter writes only ``ORGROUTER_*`` properties, which the check leaves out; any
    other property line is the user's (org-id's ``:ID:``, say) and is checked as text,
    so a result given one is edited, and kept, while results without keep their check.
    """
    drawer = head.drawer
    assert drawer is not None
    begin = head.headline.begin
    end = content_end(data, begin, subtree_end(data, head.headline))
    text = data[begin : head.headline.end] + planning + data[head.headline.end : drawer.begin]
    theirs = b"".join(
        data[p.begin : p.end]
        for p in drawer.properties
        if not p.key.upper().startswith("ORGROUTER_")
    )
    return text_check(text + data[drawer.end : end] + (b"\n" + theirs if theirs else b""))


def text_check(text: bytes) -> str:
    """Return the check of a result's text (headline, planning line, body: no drawer)."""
    return sha256(text.replace(b"\r\n", b"\n").rstrip()).hexdigest()[:16]
