"""Build the full AST of a document or of one subtree, and write it as JSON or Lisp.

The tree is shaped like org-element's: ``org-data`` holds an optional first section and
the top-level headlines; a ``headline`` holds its ``section`` (planning, property
drawer, then body elements) and its child headlines. Every node has ``begin``/``end``
byte offsets and a 1-based ``line``. Trees are built and written without recursion, so
500 levels of headlines are fine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from orgrouter.org.drawer import Head, PropertyDrawer, property_drawer
from orgrouter.org.elements import ElementParser
from orgrouter.org.lines import Lines
from orgrouter.org.node import Node
from orgrouter.sexp import Keyword, dumps

if TYPE_CHECKING:
    from orgrouter.org.document import Document

CRLF = b"\r\n"


class _Builder:
    """Build headline and section nodes for the headlines of one region."""

    def __init__(self, document: Document, lines: Lines) -> None:
        self.document = document
        self.lines = lines
        self.parser = ElementParser(lines, self._top_drawer)

    def _top_drawer(self, index: int) -> PropertyDrawer | None:
        """Return a file-level property drawer at line ``index`` (Org: before any text)."""
        begin, line = self.lines.byte_starts[index], self.lines.first_line + index
        return property_drawer(self.document.data, begin, line, self.document.newline)

    def _section(self, start: int, limit: int, head: Head | None) -> Node:
        """Return the section of lines [start, limit); its elements stop before blanks."""
        lines = self.lines
        last = self.parser.trim(start, limit)
        if head is None:
            contents = self.parser.parse(start, last, "top-comment")
        else:
            contents = self._body(head, start, last)
        return Node(
            "section",
            lines.byte_at(start),
            lines.byte_at(limit),
            lines.line(lines.start(start)),
            {
                "contents-begin": lines.byte_at(start),
                "contents-end": lines.byte_at(last),
                "post-blank": limit - last,
            },
            contents,
        )

    def headline(self, index: int, limit: int) -> tuple[Node, int]:
        """Return headline ``index``'s node (children added later) and its contents limit.

        ``limit`` is the parent's contents end (a line index): as in org-element, blank
        lines that end a parent's contents are not part of a child headline.
        """
        document = self.document
        entry = document.entries[index]
        parsed = document.headline(index)
        lines = self.lines
        line_index = self.lines.index_of_byte(entry.begin)
        entries = document.entries
        following = entries[index + 1].begin if index + 1 < len(entries) else len(document.data)
        section_limit = self._line_limit(following)
        subtree_limit = min(self._line_limit(entry.subtree_end), limit)
        head = document.head(index)
        start = self.parser.skip_blank(line_index + 1, section_limit)
        subtree_start = self.parser.skip_blank(line_index + 1, subtree_limit)
        empty = subtree_start >= subtree_limit
        last = self.parser.trim(subtree_start, subtree_limit)
        todo = parsed.todo
        properties: dict[str, object] = {
            # org-element's level is org-reduced-level: under #+STARTUP: odd, 1, 3, 5
            # stars are levels 1, 2, 3.
            "level": parsed.level // 2 + 1 if document.settings.odd_levels else parsed.level,
            "raw-value": parsed.raw,
            "title": parsed.raw,
            "todo-keyword": todo,
            "todo-type": None
            if todo is None
            else ("done" if document.settings.todo.is_done(todo) else "todo"),
            "priority": parsed.priority,
            "commentedp": parsed.commented,
            "archivedp": parsed.archived,
            "tags": list(parsed.tags),
            "contents-begin": None if empty else lines.byte_at(subtree_start),
            "contents-end": None if empty else lines.byte_at(last),
            "pre-blank": 0 if empty else subtree_start - line_index - 1,
            "post-blank": subtree_limit - (last if not empty else line_index + 1),
        }
        if head.planning is not None:
            properties.update(_planning_properties(head))
        if head.drawer is not None:
            # Pairs, not a mapping: keys may repeat, and any key stays valid Lisp.
            properties["node-properties"] = [[p.key, p.value] for p in head.drawer.properties]
        node = Node("headline", entry.begin, lines.byte_at(subtree_limit), entry.line, properties)
        if start < section_limit:
            node.contents.append(self._section(start, section_limit, head))
        return node, last

    def _line_limit(self, byte_offset: int) -> int:
        """Return the index of the line starting at ``byte_offset`` (or the line count)."""
        if byte_offset >= self.lines.byte_end:
            return len(self.lines)
        return self.lines.index_of_byte(byte_offset)

    def _body(self, head: Head, start: int, limit: int) -> list[Node]:
        """Parse a headline's section: planning, property drawer, then elements."""
        lines = self.lines
        parser = self.parser
        contents: list[Node] = []
        index = start
        if head.planning is not None and self.lines.index_of_byte(head.planning.begin) == start:
            after, blank = parser.end_after(self._line_limit(head.planning.end), limit)
            properties = {"post-blank": blank, **_planning_properties(head)}
            contents.append(
                Node(
                    "planning",
                    head.planning.begin,
                    lines.byte_at(after),
                    head.planning.line,
                    properties,
                )
            )
            index = after
        if (
            head.drawer is not None
            and index < limit
            and lines.index_of_byte(head.drawer.begin) == index
        ):
            drawer, index = parser.property_drawer_node(head.drawer, limit)
            contents.append(drawer)
        contents.extend(parser.parse(index, limit))
        return contents


def _planning_properties(head: Head) -> dict[str, object]:
    """Return the planning line's timestamps by keyword, as org-element names them."""
    assert head.planning is not None
    return {entry.keyword.lower(): entry.timestamp for entry in head.planning.entries}


def _attach_headlines(builder: _Builder, top: list[Node], limit: int) -> None:
    """Append every headline to its parent (or ``top``), without recursion."""
    document = builder.document
    nodes: dict[int, tuple[Node, int]] = {}
    for index in range(len(document.entries)):
        parent = document.entries[index].parent
        parent_built = nodes.get(parent) if parent is not None else None
        node, contents_limit = builder.headline(
            index, limit if parent_built is None else parent_built[1]
        )
        nodes[index] = (node, contents_limit)
        if parent_built is not None:
            parent_built[0].contents.append(node)
        else:
            top.append(node)


def build_document(document: Document) -> Node:
    """Return the ``org-data`` node of the whole document."""
    text = document.text
    # Emacs drops a UTF-8 BOM when it visits the file: the first line starts after it,
    # so a keyword or drawer there is one (offsets still count the BOM's bytes).
    bom = int(text.startswith("\ufeff"))
    lines = Lines(text, begin=bom, byte_begin=3 * bom, crlf=document.newline == CRLF)
    builder = _Builder(document, lines)
    root = Node("org-data", 0, len(document.data), 1)
    entries = document.entries
    first_limit = lines.index_of_byte(entries[0].begin) if entries else len(lines)
    start = builder.parser.skip_blank(0, first_limit)
    if start < first_limit:  # the section before the first headline
        root.contents.append(builder._section(start, first_limit, None))
    _attach_headlines(builder, root.contents, len(lines))
    return root


def build_section(document: Document, index: int) -> Node | None:
    """Return the ``section`` of headline ``index`` alone (parsing nothing else), or None."""
    entries = document.entries
    entry = entries[index]
    stop = entries[index + 1].begin if index + 1 < len(entries) else len(document.data)
    lines = Lines(
        document.decode(entry.begin, stop),
        byte_begin=entry.begin,
        first_line=entry.line,
        crlf=document.newline == CRLF,
    )
    node, _ = _Builder(document, lines).headline(index, len(lines))
    return next((child for child in node.contents if child.type == "section"), None)


# --- writing ---------------------------------------------------------------------------


def _chunks(node: Node, *, sexp: bool) -> Iterator[str]:
    """Yield the text of ``node`` piece by piece with an explicit stack."""
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        properties = {"begin": item.begin, "end": item.end, "line": item.line, **item.properties}
        if sexp:
            plist = {key.upper(): value for key, value in properties.items()}
            yield f"(:type {dumps(Keyword(item.type.upper()))} :properties {dumps(plist)}"
            yield " :contents ("
            closing = "))"
            separator = " "
        else:
            yield '{"type":' + json.dumps(item.type) + ',"properties":'
            yield json.dumps(properties, ensure_ascii=False, separators=(",", ":"))
            yield ',"contents":['
            closing = "]}"
            separator = ","
        stack.append(closing)
        for position in range(len(item.contents) - 1, -1, -1):
            stack.append(item.contents[position])
            if position:
                stack.append(separator)


def to_json(node: Node) -> str:
    """Return ``node`` as one line of JSON (no recursion, so any depth is fine)."""
    return "".join(_chunks(node, sexp=False))


def to_sexp(node: Node) -> str:
    """Return ``node`` as a Lisp plist: ``(:type :HEADLINE :properties (...) :contents (...))``."""
    return "".join(_chunks(node, sexp=True))
