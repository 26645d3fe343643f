"""The outline of an Org file: its headlines' places, subtrees and what they inherit.

Org's rules, each in one place: a subtree runs from its first star to the next
headline of its level or above (``org-end-of-subtree t t``); a headline's parent is the
last headline above with fewer stars; what passes down the tree (inherited tags,
``COMMENT``) is a memoised walk up the ancestors, so asking about a few headlines of a
large file costs their ancestors, not the file. Headline lines are found in bytes by
``org.scan``; offsets here are byte offsets.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Generic, TypeVar

from orgrouter.org.scan import HeadlineLine, headline_at, iter_headline_lines
from orgrouter.records import NamedTuple, field, record

T = TypeVar("T")
# A headline line below the first line: literal "\n" first, so a search jumps from
# line end to line end instead of trying "^" at every byte.
_NEXT_HEADLINE = re.compile(rb"\n(\*+) ")


class OutlineEntry(NamedTuple):
    """A headline line (``HeadlineLine``'s fields) with its place in the outline."""

    begin: int
    end: int
    level: int
    line: int
    index: int  # type: ignore[assignment]  # position in Outline.entries (not tuple.index)
    subtree_end: int  # first byte after the subtree (next headline of level <= this)
    parent: int | None  # index of the parent headline, None at top level


def subtree_end(data: bytes, headline: HeadlineLine | OutlineEntry) -> int:
    """Return where ``headline``'s subtree ends: the next headline of its level or above."""
    if headline.end >= len(data) or data[headline.end - 1] != 0x0A:
        return len(data)
    return subtree_end_after(data, headline.end - 1, headline.level)


def subtree_end_after(data: bytes, position: int, level: int) -> int:
    """Return the first headline of ``level`` stars or fewer after ``position`` (or the end).

    ``position`` is on the subtree's headline line, at or before its line end.
    """
    match = _at_most(level).search(data, position)
    return len(data) if match is None else match.start() + 1


def content_end(data: bytes, begin: int, end: int) -> int:
    """Return the end of the last non-blank line in ``data[begin:end]``, newline included.

    This is where a child appended to a subtree goes, and where a result's text ends.
    """
    last = end  # not data[begin:end].rstrip(): a copy of each nested request's subtree
    while last > begin and data[last - 1] in b" \t\r\n":
        last -= 1
    newline = data.find(b"\n", last, end)
    return end if newline < 0 else newline + 1


def dedupe_keep_last(tags: tuple[str, ...]) -> tuple[str, ...]:
    """Return ``tags`` with each repeated tag kept at its last place (`org-get-tags')."""
    if len(set(tags)) == len(tags):
        return tags
    last = {tag: at for at, tag in enumerate(tags)}
    return tuple(tag for at, tag in enumerate(tags) if last[tag] == at)


class Outline:
    """The headlines of a file's bytes with their parents and subtree ends."""

    def __init__(self, data: bytes, lines: list[HeadlineLine] | None = None) -> None:
        """Index every headline of ``data``, or only ``lines`` (see ``Outline.around``)."""
        self.data = data
        self.complete = lines is None  # False: only some headlines are indexed
        found = list(iter_headline_lines(data)) if lines is None else lines
        self.entries = _entries(found, len(data))
        self._starts: list[int] | None = None

    @classmethod
    def around(cls, data: bytes, offsets: Iterable[int]) -> Outline:
        """Index only the headlines whose lines hold ``offsets``, with what they need.

        That is each such headline's whole subtree and its ancestors, the headline
        right after each of them (where a section ends), and the file's first
        headline (where the text before it ends). Their parents, subtree ends and
        lines are those of the whole file, so everything asked about them answers as
        on a full outline; the other headlines are not there (``complete`` is False).
        """
        lines, subtrees = _lines_around(data, offsets)
        outline = cls(data, lines)
        # Entries whose subtree is not indexed whole: their ends come from the bytes.
        partial = [e for e in outline.entries if not inside(e.begin, subtrees)]
        ends = _subtree_ends(data, partial)
        outline.entries = [
            entry._replace(subtree_end=ends[entry.begin])
            if entry.begin in ends
            else entry
            for entry in outline.entries
        ]
        return outline

    def find(self, offset: int) -> int | None:
        """Return the index of the headline whose line or section holds ``offset``."""
        if self._starts is None:
            self._starts = [entry.begin for entry in self.entries]
        index = bisect_right(self._starts, offset) - 1
        return None if index < 0 else index

    def starting(self, begin: int) -> OutlineEntry | None:
        """Return the indexed headline whose first star is at byte ``begin``, or None."""
        index = self.find(begin)
        entry = None if index is None else self.entries[index]
        return entry if entry is not None and entry.begin == begin else None

    def at(self, begin: int) -> OutlineEntry:
        """Return the headline whose first star is at byte ``begin``, or raise ValueError."""
        entry = self.starting(begin)
        if entry is None:
            raise ValueError(f"no headline starts at byte {begin}")
        return entry

    def ancestors(self, index: int) -> list[int]:
        """Return the indexes of headline ``index``'s ancestors, nearest first."""
        chain: list[int] = []
        at = self.entries[index].parent
        while at is not None:
            chain.append(at)
            at = self.entries[at].parent
        return chain


@record
class Inherited(Generic[T]):
    """What passes from each headline down to its subtree, by memoised ancestor walks.

    ``step(value, index)`` folds headline ``index`` into what its parent passes down
    (what ``top()`` returns at the top level, such as the file's tags). Each headline
    is folded once, however many of its descendants are asked about, and only
    headlines asked about (and their ancestors) are folded at all; nothing is computed
    until asked.
    """

    outline: Outline
    top: Callable[[], T]
    step: Callable[[T, int], T]
    memo: dict[int, T] = field(default_factory=dict)

    def __call__(self, index: int) -> T:
        """Return the value headline ``index`` has, its ancestors folded in."""
        entries = self.outline.entries
        chain: list[int] = []
        at: int | None = index
        while at is not None and at not in self.memo:
            chain.append(at)
            at = entries[at].parent
        value = self.top() if at is None else self.memo[at]
        for pending in reversed(chain):
            value = self.memo[pending] = self.step(value, pending)
        return value


def _entries(lines: list[HeadlineLine], size: int) -> list[OutlineEntry]:
    """Compute parents and subtree ends in one pass with a stack (no recursion)."""
    parents: list[int | None] = []
    ends = [size] * len(lines)
    stack: list[int] = []
    for index, hl in enumerate(lines):
        while stack and lines[stack[-1]].level >= hl.level:
            ends[stack.pop()] = hl.begin
        parents.append(stack[-1] if stack else None)
        stack.append(index)
    return [
        OutlineEntry(hl.begin, hl.end, hl.level, hl.line, i, ends[i], parents[i])
        for i, hl in enumerate(lines)
    ]


def _next_headline(data: bytes, position: int) -> HeadlineLine | None:
    """Return the first headline starting at or after ``position`` (a line start)."""
    if position == 0:
        first = headline_at(data, 0)
        if first is not None:
            return first
    match = _NEXT_HEADLINE.search(data, max(position - 1, 0))
    return None if match is None else headline_at(data, match.start() + 1)


@lru_cache(maxsize=128)
def _at_most(level: int) -> re.Pattern[bytes]:
    """Return the pattern of a line end then a headline of ``level`` stars or fewer.

    Literal "\\n" first, so a search jumps from line end to line end; the bounded
    star count fails a deeper line after at most ``level`` stars, so one search costs
    at most the bytes it passes over, however deep the lines are.
    """
    return re.compile(rb"\n(\*{1,%d}) " % level)


def _ancestors(
    data: bytes, headline: HeadlineLine, known: set[int] | frozenset[int] = frozenset()
) -> list[HeadlineLine]:
    """Return the headlines ``headline`` sits under, nearest first, up to a ``known`` one.

    A headline in ``known`` (by its begin) and its own ancestors are left out, and the
    walk stops there: a caller that already has them does not pay for them again.

    The parent is the last headline above with fewer stars. Windows of doubling size
    are read backwards from the headline; in each, only headlines shallower than every
    one already passed can be ancestors, so only those are matched (one regex over the
    window), and a stack keeps the ones no later headline closes. Each byte above is
    read once at most: 3,000 levels cost what 3,000 lines do, not a search per level.
    """
    chain: list[HeadlineLine] = []
    below = headline.level
    high = headline.begin  # the window ends here (a line start)
    width = 4096
    while below > 1 and high > 0:
        low = max(high - width, 0)
        low = data.rfind(b"\n", 0, low) + 1 if low else 0  # back to a line start
        width *= 2
        stack: list[HeadlineLine] = []
        first = headline_at(data, 0) if low == 0 else None
        if first is not None and first.level < below and first.begin < high:
            stack.append(first)
        for match in _at_most(below - 1).finditer(data, max(low - 1, 0), high - 1):
            level = len(match.group(1))
            while stack and stack[-1].level >= level:
                stack.pop()
            begin = match.start() + 1
            newline = data.find(b"\n", begin)
            stack.append(HeadlineLine(begin, len(data) if newline < 0 else newline + 1, level, 0))
        for ancestor in reversed(stack):
            if ancestor.begin in known:
                return chain
            chain.append(ancestor)
        if stack:
            below = stack[0].level
        high = low
    return chain


def _subtree_ends(data: bytes, lines: list[OutlineEntry]) -> dict[int, int]:
    """Return the subtree end of each of ``lines`` (in file order), keyed by its begin.

    One forward pass: headlines still open wait on a stack (levels increasing), and
    each search, for the next headline that closes the innermost, starts where the
    last one stopped; a headline found closes every open one as deep or deeper. So
    the bytes are read once, however many ``lines`` there are and however they nest.
    """
    ends: dict[int, int] = {}
    stack: list[OutlineEntry] = []
    scanned = 0  # no headline starting in data[:scanned] closes one on the stack

    def close(limit: int) -> None:
        """Close what the headlines before the line start ``limit`` close."""
        nonlocal scanned
        while stack:
            scanned = max(scanned, stack[-1].end)
            if scanned >= limit or data[scanned - 1] != 0x0A:
                return  # nothing between, or a last line with no line end
            match = _at_most(stack[-1].level).search(data, scanned - 1, limit - 1)
            if match is None:
                scanned = limit
                return
            begin = match.start() + 1
            level = len(match.group(1))
            while stack and stack[-1].level >= level:
                ends[stack.pop().begin] = begin
            scanned = begin  # it closes none of the rest: they are all shallower

    for line in lines:
        close(line.begin)
        while stack and stack[-1].level >= line.level:
            ends[stack.pop().begin] = line.begin
        stack.append(line)
    close(len(data) + 1)
    for left in stack:
        ends[left.begin] = len(data)
    return ends


def inside(offset: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Return whether ``offset`` lies in one of ``spans`` (sorted by start, disjoint)."""
    index = bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]


def _lines_around(
    data: bytes, offsets: Iterable[int]
) -> tuple[list[HeadlineLine], list[tuple[int, int]]]:
    """Return the headline lines ``Outline.around`` indexes, and the whole subtrees."""
    chosen: dict[int, HeadlineLine] = {}
    subtrees: list[tuple[int, int]] = []
    expanded: set[int] = set()  # ancestors added with their sections' ends and ancestors

    def add(headline: HeadlineLine | None) -> None:
        if headline is not None:
            chosen.setdefault(headline.begin, headline)

    for offset in sorted(set(offsets)):
        if inside(offset, subtrees):
            continue  # inside a subtree already indexed whole
        headline = headline_at(data, data.rfind(b"\n", 0, offset) + 1)
        if headline is None or offset >= headline.end:
            continue  # not on a headline line: it addresses nothing
        add(headline)
        for ancestor in _ancestors(data, headline, expanded):
            add(ancestor)
            add(_next_headline(data, ancestor.end))  # where the ancestor's section ends
            expanded.add(ancestor.begin)
        position = headline.end
        while True:
            below = _next_headline(data, position)
            add(below)  # in the subtree, or the headline that ends it
            if below is None or below.level <= headline.level:
                break
            position = below.end
        subtrees.append((headline.begin, len(data) if below is None else below.begin))
    add(_next_headline(data, 0))  # the text before it is the top level's section
    lines = sorted(chosen.values(), key=lambda headline: headline.begin)
    numbered: list[HeadlineLine] = []
    line, counted_to = 1, 0
    for headline in lines:
        line += data.count(b"\n", counted_to, headline.begin)
        counted_to = headline.begin
        numbered.append(HeadlineLine(headline.begin, headline.end, headline.level, line))
    return numbered, subtrees
