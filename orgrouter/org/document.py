"""One Org file as the rest of orgrouter sees it: its outline, settings and lazy AST.

Building a ``Document`` costs one bytes-regex scan for headline lines; the in-buffer
settings, each headline's parsed parts, inherited tags and the full AST are computed
only when asked for, and the AST can be built for one subtree alone. orgparse is not
used: its ``tags`` and ``parent`` walk the tree per node (quadratic on large files), and
its line splitting treats ``\\x0c`` and ``\\u2028`` as line breaks, which Org does not.
"""

from __future__ import annotations

import dataclasses
import os
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.errors import InputError
from orgrouter.io.text import detect_newline
from orgrouter.org.headline import Headline, line_tags, parse_headline
from orgrouter.org.scan import BOM, HeadlineLine, iter_headline_lines
from orgrouter.org.settings import InBufferSettings, read_settings

if TYPE_CHECKING:
    from orgrouter.org.ast import Node

__all__ = ["Document", "OutlineEntry", "headline_records"]

CRLF = b"\r\n"
_STARS = re.compile(rb"(\*+) ")  # a headline's stars, matched at a line start
# A headline line below the first line: literal "\n" first, so a search jumps from
# line end to line end instead of trying "^" at every byte.
_NEXT_HEADLINE = re.compile(rb"\n(\*+) ")


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """Where one headline sits: its line, its subtree and its parent."""

    index: int  # position in Document.entries
    begin: int  # byte offset of the first star
    end: int  # just past the headline line's newline (or end of data)
    subtree_end: int  # first byte after the subtree (next headline of level <= this)
    parent: int | None  # index of the parent headline, None at top level
    level: int  # star count
    line: int  # 1-based

    @property
    def scan_line(self) -> HeadlineLine:
        """Return this headline as the scan module describes it."""
        return HeadlineLine(self.begin, self.end, self.level, self.line)


def _outline(lines: list[HeadlineLine], size: int) -> list[OutlineEntry]:
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
        OutlineEntry(i, hl.begin, hl.end, ends[i], parents[i], hl.level, hl.line)
        for i, hl in enumerate(lines)
    ]


class Document:
    """An Org file's bytes with its outline; settings, tags and AST on demand."""

    def __init__(
        self,
        data: bytes,
        path: str | os.PathLike[str] | None = None,
        *,
        newline: bytes | None = None,
        lines: list[HeadlineLine] | None = None,
    ) -> None:
        """Index ``data`` (the file's bytes); ``newline`` b"\\r\\n" strips CRs as Emacs does.

        ``lines`` (for ``Document.around``) indexes those headlines instead of all.
        """
        self.data = data
        self.path = None if path is None else Path(path)
        # When None, decide as Emacs does when visiting the file. Emacs reading the
        # file as utf-8-unix (as the conformance oracle does) corresponds to b"\n".
        self.newline = detect_newline(data) if newline is None else newline
        self.complete = lines is None  # False: only some headlines are indexed
        self.lines = list(iter_headline_lines(data)) if lines is None else lines
        self.entries = _outline(self.lines, len(data))
        self.label = "<buffer>"  # names a document without a path in messages
        self._headlines: dict[int, Headline] = {}
        self._tags: list[tuple[str, ...]] | None = None

    @classmethod
    def around(
        cls,
        data: bytes,
        offsets: Iterable[int],
        path: str | os.PathLike[str] | None = None,
        *,
        newline: bytes | None = None,
    ) -> Document:
        """Index only the headlines whose lines hold ``offsets``, with what they need.

        That is each such headline's whole subtree and its ancestors, the headline
        right after each of them (where a section ends), and the file's first
        headline (where the text before it ends). Their parents, subtree ends and
        lines are those of the whole file, so everything asked about them answers as
        on a full ``Document``; the other headlines are not there (``complete`` is
        False). A route uses this on a large note with a few requests: it finds them
        with one bytes search and need not index thousands of headlines.
        """
        lines, subtrees = _lines_around(data, offsets)
        document = cls(data, path, newline=newline, lines=lines)
        # Entries whose subtree is not indexed whole: their ends come from the bytes.
        partial = [e.scan_line for e in document.entries if not _inside(e.begin, subtrees)]
        ends = _subtree_ends(data, partial)
        document.entries = [
            dataclasses.replace(entry, subtree_end=ends[entry.begin])
            if entry.begin in ends
            else entry
            for entry in document.entries
        ]
        return document

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, newline: bytes | None = None) -> Document:
        """Read ``path`` (strictly: UTF-8, no NUL bytes) and index it."""
        from orgrouter.io.text import read_org_file

        snapshot = read_org_file(path)
        return cls(snapshot.data, path, newline=newline)

    @classmethod
    def from_input(
        cls, data: bytes, name: str = "<stdin>", *, newline: bytes | None = None
    ) -> Document:
        """Check ``data`` as read_org_file does (UTF-8, no NUL bytes) and index it."""
        from orgrouter.io.text import decode_org

        decode_org(data, name)
        document = cls(data, None, newline=newline)
        document.label = name
        return document

    @property
    def name(self) -> str:
        """Return the path for messages, or a label such as ``<stdin>`` without one."""
        return self.label if self.path is None else os.fspath(self.path)

    def decode(self, begin: int, end: int) -> str:
        """Decode a byte range, raising InputError naming the file and line."""
        try:
            return self.data[begin:end].decode("utf-8")
        except UnicodeDecodeError as error:
            offset = begin + error.start
            line = self.data.count(b"\n", 0, offset) + 1
            raise InputError(
                f"invalid UTF-8 at byte {offset}: Org files must be UTF-8",
                path=self.name,
                line=line,
            ) from None

    @cached_property
    def text(self) -> str:
        """Return the whole file decoded (a leading BOM kept, as the offsets count it)."""
        return self.decode(0, len(self.data))

    @cached_property
    def settings(self) -> InBufferSettings:
        """Return the in-buffer settings (#+TODO, #+STARTUP, #+FILETAGS, #+PROPERTY...)."""
        return read_settings(self.text, self.path)

    def line_text(self, index: int) -> str:
        """Return headline ``index``'s line without its line end."""
        entry = self.entries[index]
        end = entry.end
        if end > entry.begin and self.data[end - 1 : end] == b"\n":
            end -= 1
            if self.newline == CRLF and self.data[end - 1 : end] == b"\r":
                end -= 1
        return self.decode(entry.begin, end)

    def headline(self, index: int) -> Headline:
        """Return the parsed parts of headline ``index`` (TODO keywords per settings)."""
        found = self._headlines.get(index)
        if found is None:
            found = parse_headline(self.line_text(index), self.settings.todo)
            self._headlines[index] = found
        return found

    def headlines(self) -> list[Headline]:
        """Return every headline's parsed parts, in order."""
        return [self.headline(index) for index in range(len(self.entries))]

    def own_tags(self, index: int) -> list[str]:
        """Return headline ``index``'s own tags as `org-get-tags' reads them (see line_tags)."""
        return line_tags(self.line_text(index), self.settings.todo)

    def tags(self, index: int) -> tuple[str, ...]:
        """Return headline ``index``'s tags with inheritance, in Org's order."""
        if self._tags is None:
            self._tags = self._inherit_tags()
        return self._tags[index]

    def _inherit_tags(self) -> list[tuple[str, ...]]:
        # Org's `org-get-tags': file tags, then each ancestor's from the top, then the
        # headline's own; a repeated tag keeps only its most local place. Each entry
        # extends its parent's finished list, so no ancestor is walked twice.
        filetags = dedupe_keep_last(self.settings.filetags)
        result: list[tuple[str, ...]] = []
        for entry in self.entries:
            inherited = filetags if entry.parent is None else result[entry.parent]
            own = self.own_tags(entry.index)
            result.append(dedupe_keep_last((*inherited, *own)) if own else inherited)
        return result

    def find(self, offset: int) -> int | None:
        """Return the index of the headline whose line or section holds ``offset``."""
        low, high = 0, len(self.entries)
        while low < high:
            middle = (low + high) // 2
            if self.entries[middle].begin <= offset:
                low = middle + 1
            else:
                high = middle
        return low - 1 if low > 0 else None

    def headline_begin(self, line: int) -> int | None:
        """Return the offset of the headline on 1-based ``line`` (indexed or not), or None."""
        for entry in self.entries:
            if entry.line == line:
                return entry.begin
        if line < 1:
            return None
        start = 0
        for _ in range(line - 1):
            start = self.data.find(b"\n", start) + 1
            if start == 0:
                return None  # the file has fewer lines
        found = _headline_at(self.data, start)
        return None if found is None else found.begin

    def subtree_ast(self, index: int) -> Node:
        """Return the full AST of headline ``index``'s subtree."""
        from orgrouter.org.ast import build_subtree

        return build_subtree(self, index)

    def section_ast(self, index: int) -> Node | None:
        """Return headline ``index``'s own section (planning, drawer, body), or None."""
        from orgrouter.org.ast import build_section

        return build_section(self, index)

    def ast(self) -> Node:
        """Return the full AST of the whole file (an ``org-data`` node)."""
        from orgrouter.org.ast import build_document

        return build_document(self)


def _headline_at(data: bytes, line_start: int) -> HeadlineLine | None:
    """Return the headline on the line starting at ``line_start`` (line number 0), or None."""
    begin = line_start
    if line_start == 0 and data.startswith(BOM):
        begin = len(BOM)  # Emacs drops a BOM, so a headline may follow it (see scan)
    match = _STARS.match(data, begin)
    if match is None:
        return None
    newline = data.find(b"\n", begin)
    end = len(data) if newline < 0 else newline + 1
    return HeadlineLine(begin, end, len(match.group(1)), 0)


def _next_headline(data: bytes, position: int) -> HeadlineLine | None:
    """Return the first headline starting at or after ``position`` (a line start)."""
    if position == 0:
        first = _headline_at(data, 0)
        if first is not None:
            return first
    match = _NEXT_HEADLINE.search(data, max(position - 1, 0))
    return None if match is None else _headline_at(data, match.start() + 1)


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
        first = _headline_at(data, 0) if low == 0 else None
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


def subtree_end(data: bytes, headline: HeadlineLine) -> int:
    """Return where ``headline``'s subtree ends: the next headline of its level or above."""
    if headline.end >= len(data) or data[headline.end - 1] != 0x0A:
        return len(data)
    match = _at_most(headline.level).search(data, headline.end - 1)
    return len(data) if match is None else match.start() + 1


def _subtree_ends(data: bytes, lines: list[HeadlineLine]) -> dict[int, int]:
    """Return the subtree end of each of ``lines`` (in file order), keyed by its begin.

    One forward pass: headlines still open wait on a stack (levels increasing), and
    each search, for the next headline that closes the innermost, starts where the
    last one stopped; a headline found closes every open one as deep or deeper. So
    the bytes are read once, however many ``lines`` there are and however they nest.
    """
    ends: dict[int, int] = {}
    stack: list[HeadlineLine] = []
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
    for line in stack:
        ends[line.begin] = len(data)
    return ends


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    """Return whether ``offset`` lies in one of ``spans`` (sorted by start, disjoint)."""
    index = bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]


def _lines_around(
    data: bytes, offsets: Iterable[int]
) -> tuple[list[HeadlineLine], list[tuple[int, int]]]:
    """Return the headline lines ``Document.around`` indexes, and the whole subtrees."""
    chosen: dict[int, HeadlineLine] = {}
    subtrees: list[tuple[int, int]] = []
    expanded: set[int] = set()  # ancestors added with their sections' ends and ancestors

    def add(headline: HeadlineLine | None) -> None:
        if headline is not None:
            chosen.setdefault(headline.begin, headline)

    for offset in sorted(set(offsets)):
        if _inside(offset, subtrees):
            continue  # inside a subtree already indexed whole
        headline = _headline_at(data, data.rfind(b"\n", 0, offset) + 1)
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
        numbered.append(dataclasses.replace(headline, line=line))
    return numbered, subtrees


def dedupe_keep_last(tags: tuple[str, ...]) -> tuple[str, ...]:
    """Return ``tags`` with each repeated tag kept only at its last place (Org's order)."""
    if len(set(tags)) == len(tags):
        return tags
    seen: set[str] = set()
    kept: list[str] = []
    for tag in reversed(tags):
        if tag not in seen:
            seen.add(tag)
            kept.append(tag)
    kept.reverse()
    return tuple(kept)


def headline_records(document: Document, file: str) -> list[dict[str, object]]:
    """Return one dict per headline with the keys and order of the Emacs oracle."""
    records: list[dict[str, object]] = []
    for entry in document.entries:
        headline = document.headline(entry.index)
        records.append(
            {
                "file": file,
                "level": headline.level,
                "raw": headline.raw,
                "todo": headline.todo,
                "priority": headline.priority,
                "commented": headline.commented,
                "archived": headline.archived,
                "tags": list(headline.tags),
                "byte": entry.begin,
                "line": entry.line,
            }
        )
    return records
