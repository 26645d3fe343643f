"""The lines of a region being parsed, with the helpers every element parser shares."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from orgrouter.org.lines import Lines
from orgrouter.org.node import Node
from orgrouter.org.syntax import BLANK, ClosingLines, skippable

if TYPE_CHECKING:
    from orgrouter.org.drawer import PropertyDrawer
    from orgrouter.org.lists import Item

# (target list, first line, limit line, mode, character offset where the first line's
# parsing starts when it is not the line's start: an item's text after its bullet).
Pending = tuple[list[Node], int, int, str | None, int | None]


class Region:
    """The lines of one document region and what every element parser needs."""

    def __init__(
        self, lines: Lines, drawer_at: Callable[[int], PropertyDrawer | None] | None = None
    ) -> None:
        """Prepare to parse ``lines``; ``drawer_at`` finds a file-level property drawer."""
        self.lines = lines
        self.contents = lines.contents
        self.drawer_at = drawer_at
        self.items: dict[int, Item] = {}  # list structures computed so far, by line
        self._hits: dict[tuple[str, int], list[int]] = {}

    def _node(self, type_: str, begin: int, end: int, **properties: object) -> Node:
        """Make a node from character offsets (converted to bytes and a line number)."""
        lines = self.lines
        props: dict[str, object] = {}
        for key, value in properties.items():
            props[key.replace("_", "-")] = value
        return Node(type_, lines.byte(begin), lines.byte(end), lines.line(begin), props)

    def _span(self, type_: str, first: int, following: int, **properties: object) -> Node:
        """Make a node for lines [first, following) (indices, so no offset search)."""
        lines = self.lines
        props = {key.replace("_", "-"): value for key, value in properties.items()}
        return Node(
            type_, lines.byte_at(first), lines.byte_at(following), lines.line_at(first), props
        )

    def skip_blank(self, index: int, limit: int) -> int:
        """Return the first line index from ``index`` that is not blank (or ``limit``)."""
        contents = self.contents
        while index < limit and skippable(contents[index]):
            index += 1
        return index

    def trim(self, start: int, limit: int) -> int:
        """Return the line index just past the last non-blank line in [start, limit)."""
        while limit > start and skippable(self.contents[limit - 1]):
            limit -= 1
        return limit

    def _find(self, pattern: re.Pattern[str], index: int, limit: int) -> int | None:
        """Return the first line index in [index, limit) matching ``pattern``.

        Only closing lines are looked for (``#+END...``, ``:END:``, ``\\end{...}``), so
        the lines that could match are indexed once and each pattern's hits cached:
        a file full of unclosed openers stays linear instead of rescanning to the end.
        """
        key = (pattern.pattern, pattern.flags)
        hits = self._hits.get(key)
        if hits is None:
            contents = self.contents
            hits = [position for position in self._candidates if pattern.match(contents[position])]
            self._hits[key] = hits
        found = bisect_left(hits, index)
        return hits[found] if found < len(hits) and hits[found] < limit else None

    @cached_property
    def _candidates(self) -> list[int]:
        """Return the indexes of the lines that could close something."""
        return [
            position
            for position, line in enumerate(self.contents)
            if line.lstrip(BLANK).startswith(("#", ":")) or "\\end{" in line
        ]

    @cached_property
    def _closing(self) -> ClosingLines:
        return ClosingLines((i, self.contents[i]) for i in self._candidates)

    def block_close(self, name: str, index: int, limit: int, *, latex: bool = False) -> int | None:
        """Return the first line in [index, limit) closing block (or LaTeX) ``name``."""
        return self._closing.first(name, index, limit, latex=latex)

    def end_after(self, stop: int, limit: int) -> tuple[int, int]:
        """Return (line index after the blank lines from ``stop``, their count)."""
        following = self.skip_blank(stop, limit)
        return following, following - stop
