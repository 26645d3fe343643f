"""Plain lists and items, with the list structure org-element computes for them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from orgrouter.org.node import Node
from orgrouter.org.region import Pending, Region
from orgrouter.org.syntax import (
    BLANK,
    CHECKBOX,
    DRAWER_END_RE,
    DRAWER_RE,
    FULL_ITEM_RE,
    ITEM_RE,
    blank,
    indent_of,
)

# org-element--list-struct skips the contents of blocks of any kind, dynamic ones too.
_ANY_BLOCK_RE = re.compile(r"[ \t]*#\+BEGIN(?::|_(\S+))", re.IGNORECASE)
_DYNAMIC_END_RE = re.compile(r"[ \t]*#\+END:[ \t]*$", re.IGNORECASE)


@dataclass(slots=True)
class Item:
    """One entry of a list structure (`org-element--list-struct')."""

    index: int  # line index of the bullet line
    indent: int  # the bullet's column
    bullet: str
    counter: str | None
    checkbox: str | None
    tag: str | None
    end: int = -1  # character offset where the item ends


class ListParser(Region):
    """Parse plain lists (`org-element--list-struct', plain-list and item parsers)."""

    def _list_struct(self, index: int, limit: int) -> list[Item]:
        """Compute every item of the list at ``index`` and where each one ends."""
        contents = self.contents
        lines = self.lines
        done: list[Item] = []
        open_items: list[Item] = []
        position = index
        while True:
            if position >= limit:
                end = self._trimmed_start(limit, index)
                for item in open_items:
                    item.end = end
                break
            line = contents[position]
            if blank(line) and position + 1 < limit and blank(contents[position + 1]):
                for item in open_items:
                    item.end = lines.start(position)
                break
            if ITEM_RE.match(line):
                indent = indent_of(line)
                while open_items and indent <= open_items[-1].indent:
                    item = open_items.pop()
                    item.end = lines.start(position)
                    done.append(item)
                full = FULL_ITEM_RE.match(line)
                assert full is not None  # org-item-re lines always match this
                bullet = full.group(1)
                tag = full.group(4) if re.search(r"[-+*]", bullet) else None
                open_items.append(Item(position, indent, bullet, full.group(2), full.group(3), tag))
                position += 1
                continue
            if blank(line):
                position += 1
                continue
            indent = indent_of(line)
            end = self._trimmed_start(position, index)
            while open_items and indent <= open_items[-1].indent:
                item = open_items.pop()
                item.end = end
                done.append(item)
            if not open_items:
                break
            block = _ANY_BLOCK_RE.match(line)
            if block:
                # Any block, dynamic ones too: a dynamic block closes on "#+END:" here.
                name = block.group(1)
                if name is None:
                    close = self._find(_DYNAMIC_END_RE, position + 1, limit)
                else:
                    close = self.block_close(name, position + 1, limit)
                position = position if close is None else close
            elif DRAWER_RE.match(line):
                # Org searches for ":END:" from this very line, so a stray ":END:" in an
                # item closes itself instead of opening a drawer to the next one.
                close = self._find(DRAWER_END_RE, position, limit)
                position = position if close is None else close
            position += 1
        done.extend(open_items)
        done.sort(key=lambda item: item.index)
        return done

    def _trimmed_start(self, position: int, floor: int) -> int:
        """Return the start of the line after the last non-blank line before ``position``."""
        return self.lines.start(self.trim(floor, position))

    def _plain_list(
        self, first: int, index: int, limit: int, pending: list[Pending]
    ) -> tuple[Node, int]:
        # A nested list uses its top list's structure, as org-element passes it down:
        # an inner item may end past its parent's trimmed contents.
        by_line = self.items
        if index not in by_line:
            by_line.update((item.index, item) for item in self._list_struct(index, limit))
        lines = self.lines
        top = by_line[index]
        siblings = [top]
        while True:
            following_item = by_line.get(lines.index_of(siblings[-1].end))
            if (
                following_item is None
                or lines.start(following_item.index) != siblings[-1].end
                or following_item.indent != top.indent
            ):
                break
            siblings.append(following_item)
        contents_end = siblings[-1].end
        end_index = lines.index_of(contents_end) if contents_end < lines.end else len(lines)
        following, blank = self.end_after(end_index, limit)
        ordered = self.contents[index].lstrip(BLANK)[:1].isalnum()
        kind = "ordered" if ordered else "unordered" if top.tag is None else "descriptive"
        node = self._span("plain-list", first, following, type=kind)
        node.properties.update(
            {
                "contents-begin": lines.byte_at(index),
                "contents-end": lines.byte(contents_end),
                "post-blank": blank,
            }
        )
        for item in siblings:
            node.contents.append(self._item(item, pending))
        return node, following

    def _item(self, item: Item, pending: list[Pending]) -> Node:
        lines = self.lines
        begin = lines.start(item.index)
        end = item.end
        line = self.contents[item.index]
        full = FULL_ITEM_RE.match(line)
        assert full is not None
        after = (
            full.start(4)
            if full.group(4) is not None and re.search(r"[.)]", item.bullet)
            else full.end()
        )
        # Org keeps a description tag in ordered lists as body text.
        end_index = lines.index_of(end) if end < lines.end else len(lines)
        text_start = begin + after
        counter, counter_value = item.counter, None
        if counter is not None:  # a letter counts from A = 1
            counter_value = int(counter) if counter.isdigit() else ord(counter.upper()) - 64
        node = self._node(
            "item",
            begin,
            end,
            bullet=item.bullet,
            checkbox=CHECKBOX.get(item.checkbox or ""),
            counter=counter_value,
            tag=item.tag,
        )
        rest = line[after:]
        # Contents stop before the blank lines that end the item.
        stop = self.trim(item.index + 1, end_index)
        contents_end: int | None = lines.byte_at(stop)
        pre_blank = 0
        post_blank = end_index - stop
        if rest.strip(" \t\r"):
            offset = text_start + (len(rest) - len(rest.lstrip(" \t")))
            pending.append((node.contents, item.index, stop, None, offset))
            node.properties["contents-begin"] = lines.byte(offset)
        else:
            inner = self.skip_blank(item.index + 1, end_index)
            if inner < end_index:
                node.properties["contents-begin"] = lines.byte_at(inner)
                pending.append((node.contents, inner, stop, None, None))
                pre_blank = inner - item.index
            else:
                node.properties["contents-begin"] = None
                contents_end = None
                post_blank = end_index - item.index
        node.properties["contents-end"] = contents_end
        node.properties["pre-blank"] = pre_blank
        node.properties["post-blank"] = post_blank
        return node
