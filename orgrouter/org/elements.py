"""Parse the elements of a section (paragraphs, lists, blocks, drawers...) like org-element.

Follows `org-element--current-element' of Org 9.5.5 line by line: which construct a line
starts, where it ends (a block, drawer or LaTeX environment counts only when it is
closed before the limit; otherwise its first line starts a paragraph), and that an
element's ``end`` includes the blank lines after it. Greater elements (drawers, greater
blocks, lists and items, footnote definitions, dynamic blocks) are parsed with a work
stack, never by recursion, so deep nesting cannot exhaust Python's stack.

Offsets are computed on the decoded text and reported as UTF-8 byte offsets.
"""

from __future__ import annotations

from orgrouter.org.blocks import SRC_BEGIN_RE, parse_header_args, unescape
from orgrouter.org.blockspans import LESSER_BLOCKS
from orgrouter.org.drawer import PropertyDrawer
from orgrouter.org.lists import ListParser
from orgrouter.org.node import Node
from orgrouter.org.region import Pending
from orgrouter.org.syntax import (
    AFFILIATED_RE,
    BLANK,
    BLOCK_BEGIN_RE,
    CALL_RE,
    CLOCK_RE,
    COMMENT_MARK_RE,
    COMMENT_RE,
    DRAWER_END_RE,
    DRAWER_RE,
    DUAL_BRACKET_RE,
    DYNAMIC_BEGIN_RE,
    DYNAMIC_END_RE,
    DYNAMIC_NAME_RE,
    EXAMPLE_BEGIN_RE,
    EXPORT_BEGIN_RE,
    FIXED_MARK_RE,
    FIXED_WIDTH_RE,
    FOOTNOTE_RE,
    GREATER_BLOCKS,
    HASH_PLUS_RE,
    ITEM_RE,
    KEYWORD_RE,
    LATEX_BEGIN_RE,
    NAME_KEYWORDS,
    RULE_RE,
    SEPARATE_RE,
    TABLE_EL_RULE_RE,
    TABLE_RE,
    TBLFM_RE,
    blank,
)

_CALL_BRACKETS = frozenset("[]()")


class ElementParser(ListParser):
    """Parse elements from the lines of one document region."""

    # --- driver ----------------------------------------------------------------------

    def parse(self, first: int, limit: int, mode: str | None = None) -> list[Node]:
        """Return the elements of lines [first, limit), greater elements filled in."""
        top: list[Node] = []
        pending: list[Pending] = [(top, first, limit, mode, None)]
        while pending:
            target, index, stop, level_mode, start = pending.pop()
            found: list[Pending] = []
            target.extend(self._level(index, stop, level_mode, start, found))
            pending.extend(reversed(found))
        return top

    def _level(
        self,
        index: int,
        limit: int,
        mode: str | None,
        start: int | None,
        pending: list[Pending],
    ) -> list[Node]:
        """Parse one level of elements; queue the insides of greater elements."""
        nodes: list[Node] = []
        if start is None and mode != "container":
            index = self.skip_blank(index, limit)
        while index < limit:
            if start is not None:
                node, index = self._paragraph(index, limit, index, start)
                start = None
            else:
                node, index = self._element(index, limit, mode, pending)
            nodes.append(node)
            mode = "property-drawer" if mode == "top-comment" and node.type == "comment" else None
        return nodes

    def _element(
        self, index: int, limit: int, mode: str | None, pending: list[Pending]
    ) -> tuple[Node, int]:
        """Parse the element starting at line ``index``; return it and the next line."""
        line = self.contents[index]
        if COMMENT_RE.match(line):
            return self._lines_element("comment", index, index, limit)
        if mode in ("top-comment", "property-drawer") and (
            index == 0 or not blank(self.contents[index - 1])
        ):
            # A file-level property drawer, where Org accepts one.
            drawer = None if self.drawer_at is None else self.drawer_at(index)
            if drawer is not None:
                return self.property_drawer_node(drawer, limit)
        if CLOCK_RE.match(line):
            return self._single("clock", index, limit, value=line.strip(BLANK))
        # From here on, elements may have affiliated keywords.
        first = index
        affiliated: list[tuple[str, str, str | None]] = []
        while index < limit:
            match = AFFILIATED_RE.match(self.contents[index])
            if match is None:
                break
            key = (match.group(1) or match.group(3) or match.group(4)).upper()
            affiliated.append((key, match.group(5), match.group(2)))
            index += 1
        if affiliated and (index >= limit or blank(self.contents[index])):
            # Orphaned affiliated keywords are plain keywords.
            return self._keyword(first, limit)
        node, following = self._unaffiliated(first, index, limit, pending)
        if affiliated:
            node.properties["post-affiliated"] = self.lines.byte_at(index)
            _attach_affiliated(node, affiliated)
        return node, following

    def _unaffiliated(
        self, first: int, index: int, limit: int, pending: list[Pending]
    ) -> tuple[Node, int]:
        """Parse the element at ``index`` whose affiliated keywords start at ``first``."""
        line = self.contents[index]
        match = LATEX_BEGIN_RE.match(line)
        if match:
            close = self.block_close(match.group(1), index, limit, latex=True)
            if close is not None:
                value = "\n".join(self.contents[first : close + 1])
                return self._single("latex-environment", first, limit, start=close, value=value)
        match = DRAWER_RE.match(line)
        if match:
            close = self._find(DRAWER_END_RE, index + 1, limit)
            if close is not None:
                return self._container(
                    "drawer", first, index, close, limit, pending, drawer_name=match.group(1)
                )
        if FIXED_WIDTH_RE.match(line):
            return self._lines_element("fixed-width", first, index, limit)
        if HASH_PLUS_RE.match(line):
            found = self._hash_plus(first, index, limit, pending)
            if found is not None:
                return found
        elif FOOTNOTE_RE.match(line):
            return self._footnote(first, index, limit, pending)
        if RULE_RE.match(line):
            return self._single("horizontal-rule", first, limit, start=index)
        if line.startswith("%%("):
            return self._single("diary-sexp", first, limit, start=index, value=line)
        if TABLE_RE.match(line) or self._table_el(index, limit):
            return self._table(first, index, limit)
        if ITEM_RE.match(line):
            return self._plain_list(first, index, limit, pending)
        return self._paragraph(first, limit, index, None)

    # --- simple elements -------------------------------------------------------------

    def _single(
        self, type_: str, first: int, limit: int, *, start: int | None = None, **props: object
    ) -> tuple[Node, int]:
        """Make a one-line element starting (after affiliated lines) at ``start``."""
        at = first if start is None else start
        following, blank = self.end_after(at + 1, limit)
        node = self._span(type_, first, following, post_blank=blank, **props)
        return node, following

    def _lines_element(self, type_: str, first: int, start: int, limit: int) -> tuple[Node, int]:
        """Make a comment or fixed-width element of the run of such lines from ``start``."""
        comment = type_ == "comment"
        pattern = COMMENT_RE if comment else FIXED_WIDTH_RE
        marker = COMMENT_MARK_RE if comment else FIXED_MARK_RE
        stop = start
        while stop < limit and pattern.match(self.contents[stop]):
            stop += 1
        following, blank = self.end_after(stop, limit)
        value = "\n".join(marker.sub("", line, count=1) for line in self.contents[start:stop])
        lines = self.lines
        if not comment and lines.text[lines.start(stop) - 1] == "\n":
            # Org counts fixed-width post-blank from the end of its last line, so the
            # line's own newline adds one.
            blank += 1
        node = self._span(type_, first, following, post_blank=blank, value=value)
        return node, following

    def _keyword(self, first: int, limit: int, start: int | None = None) -> tuple[Node, int]:
        line = self.contents[first if start is None else start]
        match = KEYWORD_RE.match(line)
        key = match.group(1).upper() if match else ""
        value = line[match.end() :].strip(" \t\r\n") if match else line
        return self._single("keyword", first, limit, start=start, key=key, value=value)

    # --- "#+" lines: blocks, calls, dynamic blocks, keywords ------------------------

    def _hash_plus(
        self, first: int, index: int, limit: int, pending: list[Pending]
    ) -> tuple[Node, int] | None:
        """Parse a ``#+`` line's element, or None when it is a paragraph."""
        line = self.contents[index]
        match = BLOCK_BEGIN_RE.match(line)
        if match:
            name = match.group(1)
            close = self.block_close(name, index + 1, limit)
            if close is None:
                return None  # an unclosed block is a paragraph
            kind = name.upper()
            if kind in LESSER_BLOCKS:
                return self._lesser_block(kind, first, index, close, limit)
            if kind in GREATER_BLOCKS:
                return self._container(kind.lower() + "-block", first, index, close, limit, pending)
            return self._container("special-block", first, index, close, limit, pending, type=name)
        match = CALL_RE.match(line)
        if match:
            return self._babel_call(first, index, limit, match.group(1))
        if DYNAMIC_BEGIN_RE.match(line):
            close = self._find(DYNAMIC_END_RE, index + 1, limit)
            if close is None:
                return None
            name = DYNAMIC_NAME_RE.match(line)
            return self._container(
                "dynamic-block",
                first,
                index,
                close,
                limit,
                pending,
                block_name=name.group(1) if name else None,
                arguments=(name.group(2) or "").strip() or None if name else None,
            )
        if KEYWORD_RE.match(line):
            return self._keyword(first, limit, index)
        return None

    def _babel_call(self, first: int, index: int, limit: int, value: str) -> tuple[Node, int]:
        """Make a babel call; one without "[" or "(" swallows the next line, as Org 9.5's."""
        # org-element-babel-call-parser looks for the call's "[" or "(" up to the next
        # line's start and ends the element after the line it stopped on, so "#+CALL: f"
        # takes the line below with it (a paragraph's first line, a block's #+begin
        # line), or a blank line that ends its section. Only inside the container:
        # else Org's element runs past its parent (over a headline or an :END:), which
        # we keep out (README).
        if _CALL_BRACKETS.intersection(value):
            return self._single("babel-call", first, limit, start=index, value=value)
        if index + 1 >= limit:
            below = index + 1 < len(self.contents) and blank(self.contents[index + 1])
            if not below:
                return self._single("babel-call", first, limit, start=index, value=value)
            following, blank_lines = index + 2, 0  # past the limit: no blanks skipped
        else:
            following, blank_lines = self.end_after(index + 2, limit)
        node = self._span("babel-call", first, following, post_blank=blank_lines + 1, value=value)
        return node, following

    def _lesser_block(
        self, kind: str, first: int, index: int, close: int, limit: int
    ) -> tuple[Node, int]:
        """Make a block whose contents are not parsed (src, example, export...)."""
        following, blank = self.end_after(close + 1, limit)
        lines = self.lines
        props: dict[str, object] = {}
        value = "".join(line + "\n" for line in self.contents[index + 1 : close])
        begin_line = self.contents[index]
        if kind == "SRC":
            src = SRC_BEGIN_RE.match(begin_line)
            assert src is not None  # "#+BEGIN_SRC" then a blank or nothing: the rest is optional
            parameters = src.group(3).strip() or None
            props = {
                "language": src.group(1),
                "switches": (src.group(2) or "").strip() or None,
                "parameters": parameters,
                "header-args": [list(pair) for pair in parse_header_args(parameters or "")],
            }
        elif kind == "EXPORT":
            # Org names the back-end only when it is the line's one word.
            backend = EXPORT_BEGIN_RE.match(begin_line)
            props = {"type": backend.group(1).upper() if backend and backend.group(1) else None}
        elif kind == "EXAMPLE":
            switches_match = EXAMPLE_BEGIN_RE.match(begin_line)
            props = {"switches": switches_match.group(1) if switches_match else None}
        node = self._span(LESSER_BLOCKS[kind], first, following, post_blank=blank)
        node.properties.update(props)
        if kind == "VERSE":
            # A verse block's contents are Org objects, so it has contents (maybe empty).
            node.properties["contents-begin"] = lines.byte_at(index + 1)
            node.properties["contents-end"] = lines.byte_at(close)
        # Org gives lesser blocks no contents, only a value: the body's span.
        node.properties["value-begin"] = lines.byte_at(index + 1)
        node.properties["value-end"] = lines.byte_at(close)
        # Org removes the escaping commas (",*" -> "*") except in comment blocks.
        node.properties["value"] = value if kind in ("COMMENT", "VERSE") else unescape(value)
        return node, following

    def _container(
        self,
        type_: str,
        first: int,
        index: int,
        close: int,
        limit: int,
        pending: list[Pending],
        **props: object,
    ) -> tuple[Node, int]:
        """Make a greater element spanning lines [index, close]; queue its contents."""
        following, blank = self.end_after(close + 1, limit)
        lines = self.lines
        node = self._span(type_, first, following, **props)
        # Org: contents are the lines between the two delimiters, blank or not.
        empty = index + 1 >= close
        node.properties.update(
            {
                "contents-begin": None if empty else lines.byte_at(index + 1),
                "contents-end": None if empty else lines.byte_at(close),
                "post-blank": blank,
            }
        )
        if not empty:
            pending.append((node.contents, index + 1, close, "container", None))
        return node, following

    # --- property drawers --------------------------------------------------------------

    def property_drawer_node(self, drawer: PropertyDrawer, limit: int) -> tuple[Node, int]:
        """Make a property-drawer node (node-property children) for ``drawer``."""
        lines = self.lines
        close = lines.index_of_byte(drawer.end_line_begin)
        following, blank = self.end_after(close + 1, limit)
        node = Node(
            "property-drawer",
            drawer.begin,
            lines.byte_at(following),
            drawer.line,
            {"post-blank": blank},
        )
        for prop in drawer.properties:
            node.contents.append(
                Node(
                    "node-property",
                    prop.begin,
                    prop.end,
                    prop.line,
                    {"key": prop.key, "value": prop.value, "post-blank": 0},
                )
            )
        empty = not drawer.properties
        node.properties["contents-begin"] = None if empty else drawer.properties[0].begin
        node.properties["contents-end"] = None if empty else drawer.end_line_begin
        return node, following

    # --- footnotes, tables -------------------------------------------------------------

    def _footnote(
        self, first: int, index: int, limit: int, pending: list[Pending]
    ) -> tuple[Node, int]:
        """Parse a footnote definition: it runs to the next one or to two blank lines."""
        label = FOOTNOTE_RE.match(self.contents[index])
        assert label is not None
        contents = self.contents
        stop = index + 1
        while stop < limit:
            line = contents[stop]
            if FOOTNOTE_RE.match(line):
                # End before the affiliated keywords of the next definition.
                while stop - 1 > index and AFFILIATED_RE.match(contents[stop - 1]):
                    stop -= 1
                break
            if blank(line) and stop + 1 < limit and blank(contents[stop + 1]):
                stop = self.skip_blank(stop, limit)
                break
            stop += 1
        lines = self.lines
        last = self.trim(index + 1, stop)
        node = self._span(
            "footnote-definition",
            first,
            stop,
            label=label.group(1),
            post_blank=stop - last,
        )
        rest = contents[index][label.end() :]
        if rest.strip(BLANK):
            text_start = lines.start(index) + label.end() + len(rest) - len(rest.lstrip(BLANK))
            node.properties["contents-begin"] = lines.byte(text_start)
            node.properties["pre-blank"] = 0
            pending.append((node.contents, index, last, None, text_start))
        else:
            inner = self.skip_blank(index + 1, stop)
            if inner >= stop:
                node.properties.update(dict.fromkeys(("contents-begin", "contents-end"), None))
                node.properties["pre-blank"] = 0
                return node, stop
            node.properties["contents-begin"] = lines.byte_at(inner)
            # Org counts these lines from the first affiliated keyword.
            node.properties["pre-blank"] = inner - first
            pending.append((node.contents, inner, last, None, None))
        node.properties["contents-end"] = lines.byte_at(last)
        return node, stop

    def _table_el(self, index: int, limit: int) -> bool:
        """Return whether a table.el table (full rule lines) starts at ``index``."""
        contents = self.contents
        if not TABLE_EL_RULE_RE.match(contents[index]) or index + 1 >= limit:
            return False
        stop = self._rows_end(index + 1, limit, "+|")
        return stop - 1 > index and bool(TABLE_EL_RULE_RE.match(contents[stop - 1]))

    def _rows_end(self, index: int, limit: int, marks: str) -> int:
        """Return the first line from ``index`` that does not start with one of ``marks``."""
        chars = frozenset(marks)  # a set: '' (a blank line) is in every string
        while index < limit and self.contents[index].lstrip(BLANK)[:1] in chars:
            index += 1
        return index

    def _table(self, first: int, index: int, limit: int) -> tuple[Node, int]:
        org = bool(TABLE_RE.match(self.contents[index]))
        stop = table_end = self._rows_end(index, limit, "|" if org else "|+")
        formulas: list[str] = []
        while stop < limit:
            match = TBLFM_RE.match(self.contents[stop])
            if match is None:
                break
            formulas.append(match.group(1))
            stop += 1
        following, blank = self.end_after(stop, limit)
        lines = self.lines
        node = self._span(
            "table",
            first,
            following,
            type="org" if org else "table.el",
            tblfm=formulas,
            post_blank=blank,
        )
        # Org parses only its own tables' rows; a table.el table has no contents.
        node.properties["contents-begin"] = lines.byte_at(index) if org else None
        node.properties["contents-end"] = lines.byte_at(table_end) if org else None
        return node, following

    # --- paragraphs --------------------------------------------------------------------

    def _separates(self, position: int, limit: int) -> bool:
        """Return whether line ``position`` ends a paragraph (Org's double checks)."""
        line = self.contents[position]
        match = SEPARATE_RE.match(line)
        if match is None:
            return False
        if DRAWER_RE.match(line):
            # Org searches from this very line, so an ":END:" line separates too.
            return self._find(DRAWER_END_RE, position, limit) is not None
        block = BLOCK_BEGIN_RE.match(line)
        if block:
            return self.block_close(block.group(1), position + 1, limit) is not None
        latex = LATEX_BEGIN_RE.match(line)
        if latex:
            return self.block_close(latex.group(1), position, limit, latex=True) is not None
        dual = DUAL_BRACKET_RE.match(line)
        if dual:
            return dual.group(1).upper() in ("CAPTION", "RESULTS")
        return True

    def _paragraph(self, first: int, limit: int, index: int, start: int | None) -> tuple[Node, int]:
        """Make a paragraph from line ``index`` (or char ``start`` on it) to a separator."""
        if start is None and self.contents[index] == "":
            # Org's separator search starts at this empty line's end, which is also its
            # start, so it matches at once: a paragraph of blank lines (it happens
            # where a drawer or block's contents begin with a blank line).
            following = self.skip_blank(index, limit)
            node = self._span("paragraph", first, following)
            node.properties.update(
                {
                    "contents-begin": self.lines.byte_at(index),
                    "contents-end": self.lines.byte_at(index + 1),
                    "post-blank": following - index,
                    "value": "",
                }
            )
            return node, following
        stop = index + 1
        while stop < limit and not self._separates(stop, limit):
            stop += 1
        last = self.trim(index + 1, stop)
        following, blank = self.end_after(stop, limit)
        lines = self.lines
        begin = lines.start(first) if start is None else start
        contents_begin = lines.start(index) if start is None else start
        node = self._node("paragraph", begin, lines.start(following))
        node.properties.update(
            {
                "contents-begin": lines.byte(contents_begin),
                "contents-end": lines.byte_at(last),
                "post-blank": blank,
                "value": lines.slice(contents_begin, lines.start(last)),
            }
        )
        return node, following


def _attach_affiliated(node: Node, affiliated: list[tuple[str, str, str | None]]) -> None:
    """Store affiliated keywords as org-element does: NAME, HEADER list, ATTR_* lists."""
    attrs: dict[str, list[str]] = {}
    headers: list[str] = []
    for key, value, secondary in affiliated:
        if key in NAME_KEYWORDS:
            node.properties["name"] = value
        elif key in ("HEADER", "HEADERS"):
            headers.append(value)
        elif key in ("RESULT", "RESULTS"):
            node.properties["results"] = [value, secondary] if secondary else [value]
        elif key == "CAPTION":
            captions = node.properties.setdefault("caption", [])
            assert isinstance(captions, list)
            captions.append([value, secondary] if secondary else [value])
        elif key == "PLOT":
            node.properties["plot"] = value
        else:
            attrs.setdefault(key.lower(), []).append(value)
    if headers:
        node.properties["header"] = headers
    for key, values in attrs.items():
        node.properties[key] = values
