"""One Org file as Babel sees it: headlines, inherited properties, src blocks."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from orgrouter.babel.headers import Params, block_sources, merge, property_chain_value
from orgrouter.io.text import as_visited
from orgrouter.org.blocks import SrcBlock, find_src_blocks
from orgrouter.org.document import Document as OrgDocument
from orgrouter.org.drawer import PropertyDrawer, property_drawer
from orgrouter.org.lines import Offsets
from orgrouter.org.outline import Inherited, Outline
from orgrouter.org.settings import read_settings

# org-babel-src-block-regexp: how org-babel-map-src-blocks finds blocks (a language is
# required, and the first "#+end_src" at a line start after it ends the match).
_BABEL_BLOCK_RE = re.compile(
    r"^[ \t]*#\+begin_src[ \t]+[^ \f\t\n\r\v]+[^\n]*\n(?:[\s\S]*?\n)??[ \t]*#\+end_src",
    re.IGNORECASE | re.MULTILINE,
)
# property name -> (base value, [values of NAME+]) in one drawer
LocalValues = dict[str, tuple[str | None, list[str]]]
_STATS_COOKIE_RE = re.compile(r"\[[0-9]*(?:%|/[0-9]*)\]")
_BLANKS_RE = re.compile(r"[ \t]+")


def normalize_link_text(text: str) -> str:
    """Drop statistics cookies and squeeze blanks (org-link--normalize-string)."""
    return _BLANKS_RE.sub(" ", _STATS_COOKIE_RE.sub(" ", text)).strip(" \t\n\r")


@dataclass
class Heading:
    """What Babel asks of one headline (its place is the document's ``outline``)."""

    begin: int  # character offset
    end: int  # character offset where its subtree ends
    title: str  # the text Babel names blocks after (org-heading-components)
    raw_title: str  # without keyword, priority, COMMENT and tags (org-get-heading t t t t)
    commented: bool  # this headline alone (org-in-commented-heading-p)
    archived: bool  # this headline's own ARCHIVE tag
    custom_id: str | None
    node_id: str | None
    properties: LocalValues = field(default_factory=dict)
    body_begin: int = 0  # character offset after the headline, planning and drawer


@dataclass
class Document:
    """An Org file read for tangling (LF line ends; CRLF files are converted)."""

    path: Path
    text: str
    org: OrgDocument  # the same (LF) bytes as the org layer reads them: outline, heads
    headings: list[Heading]
    blocks: list[SrcBlock]
    keyword_properties: dict[str, str]
    file_properties: LocalValues = field(default_factory=dict)

    @property
    def outline(self) -> Outline:
        """Return the file's outline (the org layer's)."""
        return self.org.outline

    def __post_init__(self) -> None:
        self._heading_starts = [h.begin for h in self.headings]
        self._block_starts = {block.post_affiliated: block for block in self.blocks}
        # org-in-commented-heading-p and org-in-archived-heading-p with inheritance.
        self._commented: Inherited[bool] = Inherited(
            self.outline, lambda: False, lambda up, i: up or self.headings[i].commented
        )
        self._archived: Inherited[bool] = Inherited(
            self.outline, lambda: False, lambda up, i: up or self.headings[i].archived
        )

    @classmethod
    def from_bytes(cls, path: Path, data: bytes) -> Document:
        """Read ``data`` (the bytes of ``path``) into a Document, as Emacs visits it."""
        data, text = as_visited(data, path)
        settings = read_settings(text, path)
        org = OrgDocument(data, path, newline=b"\n", settings=settings)
        props = {key.casefold(): value for key, value in settings.properties.items()}
        blocks = find_src_blocks(text)
        return cls(path, text, org, _read_headings(text, org), blocks, props, _file_drawer(data))

    def heading_index(self, offset: int) -> int | None:
        """Return the index of the headline that ``offset`` (characters) sits under."""
        i = bisect.bisect_right(self._heading_starts, offset) - 1
        return None if i < 0 else i

    def in_commented(self, index: int | None) -> bool:
        """Return True under a COMMENT headline or one with a COMMENT ancestor."""
        return index is not None and self._commented(index)

    def in_archived(self, index: int | None) -> bool:
        """Return True under an ARCHIVE-tagged headline or ancestor."""
        return index is not None and self._archived(index)

    def inherited(self, name: str, index: int | None) -> str | None:
        """Return property ``name`` with inheritance (org-entry-get ... 'inherit)."""
        folded = name.casefold()
        nearest = () if index is None else (index, *self.outline.ancestors(index))
        chain = [self.headings[i] for i in nearest]  # the headline, then its ancestors
        levels = [h.properties.get(folded, (None, [])) for h in chain]
        if not any(h.begin == 0 for h in chain):
            # Org reads properties at point-min last: the drawer at the top of the
            # file or, when the file starts with a headline, that headline's drawer
            # (so its header-args reach its siblings too, as Org 9.5 does).
            starts_with_headline = bool(self.headings) and self.headings[0].begin == 0
            top = self.headings[0].properties if starts_with_headline else None
            levels.append((top or self.file_properties).get(folded, (None, [])))
        return property_chain_value(levels, self.keyword_properties.get(folded))

    def params(self, block: SrcBlock) -> Params:
        """Return the effective header arguments of ``block``."""
        index = self.heading_index(block.post_affiliated)
        general = self.inherited("header-args", index)
        specific = None
        if block.language is not None:
            specific = self.inherited(f"header-args:{block.language}", index)
        return merge(block_sources(block, general, specific))

    def block_at(self, offset: int) -> SrcBlock | None:
        """Return the block whose ``#+begin_src`` line starts at ``offset``, if any."""
        return self._block_starts.get(offset)

    @cached_property
    def babel_blocks(self) -> list[SrcBlock]:
        """Return the blocks org-babel-map-src-blocks visits, in order (found once)."""
        by_start = self._block_starts
        starts = sorted(by_start)
        visited: list[SrcBlock] = []
        pos = 0
        while True:
            match = _BABEL_BLOCK_RE.search(self.text, pos)
            if match is None:
                return visited
            block = by_start.get(match.start())
            if block is not None:
                visited.append(block)
                pos = max(match.end(), block.contents_end)
            elif bisect.bisect(starts, match.start()) < bisect.bisect_left(starts, match.end()):
                # An unclosed "#+begin_src" ran past real blocks: Org 9.5 fails on
                # such a file ("Wrong type argument"); we keep the blocks it hid.
                pos = self.text.find("\n", match.start()) + 1
            else:
                # Not a block to Org (e.g. inside an example block): Babel resumes
                # after the "#+end_src" this match ran to.
                pos = match.end()


def _read_headings(text: str, org: OrgDocument) -> list[Heading]:
    """Return the document's headlines with what tangling needs from each."""
    offsets = Offsets(text, data=org.data)
    # A subtree ends where a later headline begins, or at the end of the text.
    chars = {line.begin: offsets.char(line.begin) for line in org.entries}
    chars[len(org.data)] = len(text)
    headings: list[Heading] = []
    for index, line in enumerate(org.entries):
        raw_line = org.line_text(index)
        parsed = org.headline(index)
        head = org.head(index)
        props: LocalValues = {}
        custom_id = node_id = None
        if head.drawer is not None:
            props = _drawer_properties(head.drawer)
            ids = (head.drawer.get("custom_id"), head.drawer.get("id"))
            custom_id, node_id = (None if found is None else found.value for found in ids)
        headings.append(
            Heading(
                begin=chars[line.begin],
                end=chars[line.subtree_end],
                # The text Babel names blocks after: COMMENT kept, as Org does.
                title=f"COMMENT {parsed.raw}".rstrip() if parsed.commented else parsed.raw,
                raw_title=parsed.raw,
                commented=_babel_commented(raw_line, parsed.commented),
                archived=parsed.archived,
                custom_id=custom_id,
                node_id=node_id,
                properties=props,
                body_begin=offsets.char(head.body_begin),
            )
        )
    return headings


# A property drawer before the first headline, after comment lines only (Org 9.5's
# org-get-property-block at point-min).
_TOP_COMMENTS_RE = re.compile(rb"(?:[ \t]*#(?: .*)?\n)*")


def _file_drawer(data: bytes) -> LocalValues:
    """Return the properties of the drawer at the top of the file, if there is one."""
    comments = _TOP_COMMENTS_RE.match(data)
    begin = comments.end() if comments is not None else 0
    drawer = property_drawer(data, begin, 1, b"\n")
    return {} if drawer is None else _drawer_properties(drawer)


def _drawer_properties(drawer: PropertyDrawer) -> LocalValues:
    """Return {name: (base value, [+ values])} the way org--property-local-values reads."""
    out: LocalValues = {}
    seen_base: set[str] = set()
    for prop in drawer.properties:
        key, value = prop.key.casefold(), prop.value
        if key.endswith("+"):
            name = key[:-1]
            base, extra = out.get(name, (None, []))
            out[name] = (base, [*extra, value])
        elif key not in seen_base:
            seen_base.add(key)
            base_value = None if value == "nil" else value  # org-not-nil
            _, extra = out.get(key, (None, []))
            out[key] = (base_value, extra)
    return out


def _babel_commented(line: str, commented: bool) -> bool:
    """Return org-in-commented-heading-p for one headline (COMMENT then space or end)."""
    rest = line[line.find("COMMENT") + len("COMMENT") :]
    return commented and rest[:1] in ("", " ")
