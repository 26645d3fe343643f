"""One Org file as the rest of orgrouter sees it: its outline, settings and lazy AST.

Building a ``Document`` costs one bytes-regex scan for headline lines; the in-buffer
settings, each headline's parsed parts, inherited tags and the full AST are computed
only when asked for, and the AST can be built for one section alone. orgparse is not
used: its ``tags`` and ``parent`` walk the tree per node (quadratic on large files), and
its line splitting treats ``\\x0c`` and ``\\u2028`` as line breaks, which Org does not.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.errors import InputError
from orgrouter.io.text import CR, detect_newline
from orgrouter.org.drawer import Head, line_span, locate_head
from orgrouter.org.headline import Headline, line_tags, parse_headline
from orgrouter.org.outline import Inherited, Outline, OutlineEntry, dedupe_keep_last
from orgrouter.org.scan import headline_at
from orgrouter.org.settings import InBufferSettings, read_settings

if TYPE_CHECKING:
    from orgrouter.org.node import Node

__all__ = ["Document", "OutlineEntry", "headline_records"]


class Document:
    """An Org file's bytes with its outline; settings, tags and AST on demand."""

    def __init__(
        self,
        data: bytes,
        path: str | os.PathLike[str] | None = None,
        *,
        newline: bytes | None = None,
        outline: Outline | None = None,
        settings: InBufferSettings | None = None,
    ) -> None:
        """Index ``data`` (the file's bytes); ``newline`` b"\\r\\n" strips CRs as Emacs does.

        ``outline`` (see ``Document.around``) is an outline of ``data`` already made;
        ``settings`` are the file's in-buffer settings when the caller knows them
        already (else they are read from the text when first asked for).
        """
        self.path = None if path is None else Path(path)
        # When None, decide as Emacs does when visiting the file. Emacs reading the
        # file as utf-8-unix (as the conformance oracle does) corresponds to b"\n".
        self.newline = detect_newline(data) if newline is None else newline
        # A CR-only file, visited with mac EOL: each CR ends a line. CR and LF are one
        # byte each, so this LF view keeps every offset (a route works on it too).
        self.data = data = data.replace(CR, b"\n") if self.newline == CR else data
        self.outline = Outline(data) if outline is None else outline
        self.label = "<buffer>"  # names a document without a path in messages
        self._settings = settings
        self._headlines: dict[int, Headline] = {}
        self._heads: dict[int, Head] = {}
        self._line_begins: dict[int, int] | None = None
        # The folds reach the document through a weak proxy: a strong reference would
        # be a cycle, so a dropped document (and the note's bytes) would wait for the
        # cyclic collector, and a cold run's scan would hold a big note twice.
        me = weakref.proxy(self)
        # `org-get-tags': file tags, then each ancestor's from the top, then the
        # headline's own; a repeated tag keeps only its most local place.
        self.tags: Inherited[tuple[str, ...]] = Inherited(
            self.outline,
            lambda: dedupe_keep_last(me.settings.filetags),
            lambda up, i: me._own_tags_after(up, i),
        )
        # COMMENT on a headline comments out its whole subtree.
        self.commented: Inherited[bool] = Inherited(
            self.outline, lambda: False, lambda up, i: up or me.headline(i).commented
        )

    @classmethod
    def around(
        cls,
        data: bytes,
        offsets: Iterable[int],
        path: str | os.PathLike[str] | None = None,
        *,
        newline: bytes | None = None,
        settings: InBufferSettings | None = None,
    ) -> Document:
        """Index only the headlines whose lines hold ``offsets`` (see ``Outline.around``).

        A route uses this on a large note with a few requests: it finds them with one
        bytes search and need not index thousands of headlines.
        """
        outline = Outline.around(data, offsets)
        return cls(data, path, newline=newline, outline=outline, settings=settings)

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

    @property
    def settings(self) -> InBufferSettings:
        """Return the in-buffer settings (#+TODO, #+STARTUP, #+FILETAGS, #+PROPERTY...)."""
        if self._settings is None:
            self._settings = read_settings(self.text, self.path)
        return self._settings

    @property
    def entries(self) -> list[OutlineEntry]:
        """Return the indexed headlines, in file order (all unless ``Document.around``)."""
        return self.outline.entries

    @property
    def complete(self) -> bool:
        """Return whether every headline of the file is indexed."""
        return self.outline.complete

    def find(self, offset: int) -> int | None:
        """Return the index of the headline whose line or section holds ``offset``."""
        return self.outline.find(offset)

    def head(self, index: int) -> Head:
        """Return headline ``index``'s planning line and property drawer, as Org sees them."""
        found = self._heads.get(index)
        if found is None:
            entry = self.entries[index]
            found = self._heads[index] = locate_head(self.data, entry, newline=self.newline)
        return found

    def line_text(self, index: int) -> str:
        """Return headline ``index``'s line without its line end."""
        begin = self.entries[index].begin
        return self.decode(begin, line_span(self.data, begin, self.newline)[0])

    def headline(self, index: int) -> Headline:
        """Return the parsed parts of headline ``index`` (TODO keywords per settings)."""
        found = self._headlines.get(index)
        if found is None:
            found = parse_headline(self.line_text(index), self.settings.todo)
            self._headlines[index] = found
        return found

    def own_tags(self, index: int) -> list[str]:
        """Return headline ``index``'s own tags as `org-get-tags' reads them (see line_tags)."""
        return line_tags(self.line_text(index), self.settings.todo)

    def _own_tags_after(self, inherited: tuple[str, ...], index: int) -> tuple[str, ...]:
        own = self.own_tags(index)
        return dedupe_keep_last((*inherited, *own)) if own else inherited

    def line_begins(self) -> dict[int, int]:
        """Return the indexed headlines' offsets by 1-based line (built once)."""
        if self._line_begins is None:
            self._line_begins = {entry.line: entry.begin for entry in self.entries}
        return self._line_begins

    def headline_begin(self, line: int) -> int | None:
        """Return the offset of the headline on 1-based ``line`` (indexed or not), or None."""
        begin = self.line_begins().get(line)
        if begin is not None:
            return begin
        if line < 1:
            return None
        start = 0
        for _ in range(line - 1):
            start = self.data.find(b"\n", start) + 1
            if start == 0:
                return None  # the file has fewer lines
        found = headline_at(self.data, start)
        return None if found is None else found.begin

    def section_ast(self, index: int) -> Node | None:
        """Return headline ``index``'s own section (planning, drawer, body), or None."""
        from orgrouter.org.ast import build_section

        return build_section(self, index)

    def ast(self) -> Node:
        """Return the full AST of the whole file (an ``org-data`` node)."""
        from orgrouter.org.ast import build_document

        return build_document(self)


def headline_records(document: Document, file: str) -> list[dict[str, object]]:
    """Return one dict per headline with the keys and order of the Emacs oracle."""
    records: list[dict[str, object]] = []
    for entry in document.entries:
        # The oracle's keys between file and byte are the Headline's fields, in order.
        fields = document.headline(entry.index)._asdict()
        records.append({"file": file, **fields, "byte": entry.begin, "line": entry.line})
    return records
