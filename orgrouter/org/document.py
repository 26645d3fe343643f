"""One Org file as the rest of orgrouter sees it: its outline, settings and lazy AST.

Building a ``Document`` costs one bytes-regex scan for headline lines; the in-buffer
settings, each headline's parsed parts, inherited tags and the full AST are computed
only when asked for, and the AST can be built for one subtree alone. orgparse is not
used: its ``tags`` and ``parent`` walk the tree per node (quadratic on large files), and
its line splitting treats ``\\x0c`` and ``\\u2028`` as line breaks, which Org does not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.errors import InputError
from orgrouter.io.text import detect_newline
from orgrouter.org.headline import Headline, parse_headline
from orgrouter.org.scan import HeadlineLine, iter_headline_lines
from orgrouter.org.settings import InBufferSettings, read_settings

if TYPE_CHECKING:
    from orgrouter.org.ast import Node

__all__ = ["Document", "OutlineEntry", "headline_records"]

CRLF = b"\r\n"


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
    ) -> None:
        """Index ``data`` (the file's bytes); ``newline`` b"\\r\\n" strips CRs as Emacs does."""
        self.data = data
        self.path = None if path is None else Path(path)
        # When None, decide as Emacs does when visiting the file. Emacs reading the
        # file as utf-8-unix (as the conformance oracle does) corresponds to b"\n".
        self.newline = detect_newline(data) if newline is None else newline
        self.lines = list(iter_headline_lines(data))
        self.entries = _outline(self.lines, len(data))
        self.label = "<buffer>"  # names a document without a path in messages
        self._headlines: dict[int, Headline] = {}
        self._tags: list[tuple[str, ...]] | None = None

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

    def tags(self, index: int) -> tuple[str, ...]:
        """Return headline ``index``'s tags with inheritance, in Org's order."""
        if self._tags is None:
            self._tags = self._inherit_tags()
        return self._tags[index]

    def _inherit_tags(self) -> list[tuple[str, ...]]:
        # Org's `org-get-tags': file tags, then each ancestor's from the top, then the
        # headline's own; a repeated tag keeps only its most local place. Each entry
        # extends its parent's finished list, so no ancestor is walked twice.
        filetags = _dedupe_keep_last(self.settings.filetags)
        result: list[tuple[str, ...]] = []
        for entry in self.entries:
            inherited = filetags if entry.parent is None else result[entry.parent]
            own = self.headline(entry.index).tags
            result.append(_dedupe_keep_last((*inherited, *own)) if own else inherited)
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


def _dedupe_keep_last(tags: tuple[str, ...]) -> tuple[str, ...]:
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
