"""Plan edits against a file's original bytes and splice them in, touching nothing else.

Callers describe what they want as edit values (:class:`AppendChild`,
:class:`SetProperty`, :class:`AddTag`, :class:`SetPlanning`), each naming its headline
by the byte offset of its first star in the bytes being planned against (the ``begin``
of a scan ``HeadlineLine`` or an AST node). :func:`plan_edits` turns them into
:class:`Splice` values; :func:`apply_splices` applies them. Every edit is idempotent:
planning the same edits against the result plans no splice (a property already at that
value, a tag already there, a child whose identity property is already in the subtree),
so a second run leaves the file, and its mtime, alone.

Inserted text can never create structure: a child's title is one line, and its body is
escaped the way Org escapes code (``org-escape-code-in-string``): a line starting with
``*``, ``#+``, ``,*`` or ``,#+`` after optional blanks gets a leading comma. A body
marked ``org_safe`` (Org that was made safe already, such as a model's Markdown after
``markdown_to_org``) keeps its markup, blocks included: only what could still break the
outline or the file's settings gets the comma (``escape.escape_safe``). Inserted
lines use the file's newline, and a file without a final newline still has none.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from functools import cached_property
from itertools import accumulate

from orgrouter.org.drawer import Head, line_span, locate_head
from orgrouter.org.escape import escape_plain, escape_safe, safe_line, strip_controls
from orgrouter.org.lines import Offsets
from orgrouter.org.outline import Outline, content_end
from orgrouter.records import NamedTuple, field, record

# org-property-format "%-10s %s" and org-tags-column -77: what Org itself writes.
PROPERTY_KEY_WIDTH = 10
TAGS_COLUMN = 77
PLANNING_KEYWORDS = ("DEADLINE", "SCHEDULED", "CLOSED")

# org-element-headline-parser's tags, ``[ \t]+\(:[[:alnum:]_@#%:]+:\)[ \t]*$``; \w
# stands for [[:alnum:]_] (Unicode). Found from the line's end (see _tags).
_TAGS_RE = re.compile(r":[\w@#%:]+:")
_TAG_RE = re.compile(r"[\w@#%]+")
_KEY_RE = re.compile(r"[^\s:][^\s]*")
_TODO_RE = re.compile(r"[^\s*]\S*")
_TIMESTAMP_RE = re.compile(r"[<\[][^\]>\n]+[\]>](?:--?-?[<\[][^\]>\n]+[\]>])?")


class Splice(NamedTuple):
    """Replace ``data[begin:end]`` with ``text`` (an insertion when begin == end)."""

    begin: int
    end: int
    text: bytes


class AppendChild(NamedTuple):
    """Append a child headline at the end of a headline's subtree, unless already there."""

    headline: int  # begin offset of the parent headline
    title: str
    identity: tuple[str, str]  # (property, value): the child is there when any
    # headline in the parent's subtree has this property at this value
    body: str = ""
    properties: tuple[tuple[str, str], ...] = ()  # besides identity, in order
    tags: tuple[str, ...] = ()
    todo: str | None = None
    level: int | None = None  # stars; None means one deeper than the parent
    planning: tuple[tuple[str, str], ...] = ()  # (SCHEDULED, <2024-01-02 Tue>), ...
    org_safe: bool = False  # body is safe Org already: see escape.escape_safe
    # (key, digest): a property set to digest(the child's text as written, its drawer
    # left out), so a later run tells whether the user edited it (route/results.py).
    check: tuple[str, Callable[[bytes], str]] | None = None
    # (property, value): a headline below holding it fences off its subtree from the
    # identity search (a nested request with the same instruction: its results are its own).
    fence: tuple[str, str] | None = None


class SetProperty(NamedTuple):
    """Set a property in a headline's drawer, creating the drawer where Org expects it."""

    headline: int
    key: str
    value: str


class AddTag(NamedTuple):
    """Add a tag to a headline's own tags."""

    headline: int
    tag: str


class SetPlanning(NamedTuple):
    """Set SCHEDULED, DEADLINE or CLOSED on a headline's planning line."""

    headline: int
    keyword: str
    timestamp: str  # with its brackets: <2024-01-02 Tue> or [2024-01-02 Tue 10:00]


Edit = AppendChild | SetProperty | AddTag | SetPlanning


def ordered(splices: Iterable[Splice]) -> list[Splice]:
    """Return ``splices`` in the order ``apply_splices`` applies them (ties keep their order)."""
    return sorted(splices, key=lambda splice: (splice.begin, splice.end))


def apply_splices(data: bytes, splices: Iterable[Splice]) -> bytes:
    """Apply splices to ``data``; insertions at one point keep their given order."""
    # Slices of a memoryview share the data: a large file is copied once, by the join.
    view = memoryview(data)
    out: list[bytes | memoryview] = []
    pos = 0
    for splice in ordered(splices):
        if not 0 <= splice.begin <= splice.end <= len(data):
            raise ValueError(f"splice {splice.begin}..{splice.end} is outside the data")
        if splice.begin < pos:
            raise ValueError(f"splice {splice.begin}..{splice.end} overlaps an earlier one")
        out.append(view[pos : splice.begin])
        out.append(splice.text)
        pos = splice.end
    out.append(view[pos:])
    return b"".join(out)


class Shift:
    """Where original offsets sit after some splices: one sort, then a bisection each.

    A route moves one offset per request past every result spliced in; summing the
    splices for each was quadratic in the requests of a file (3,000: a minute).
    """

    def __init__(self, splices: Iterable[Splice]) -> None:
        """Order ``splices`` by end and sum what each adds (removes, if negative)."""
        ordered = sorted(splices, key=lambda s: s.end)
        self.ends = [s.end for s in ordered]
        self.added = list(accumulate((len(s.text) - (s.end - s.begin) for s in ordered), initial=0))

    def __call__(self, offset: int) -> int:
        """Return where ``offset`` sits (text inserted at it goes before its byte)."""
        return offset + self.added[bisect_right(self.ends, offset)]


def child_level(level: int, odd_levels: bool = False) -> int:
    """Return the stars of a child of a ``level``-star headline, as Org gives them.

    Under ``#+STARTUP: odd`` (``org-odd-levels-only``) Org uses odd levels only: a
    child goes to the next odd level (``org-get-valid-level`` with change 1), so
    a child of ``*`` is ``***``, as Emacs demotes and inserts.
    """
    return 1 + 2 * ((level + 1) // 2) if odd_levels else level + 1


def _width(text: str) -> int:
    """Return the columns ``text`` takes in Emacs (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@record
class _Document:
    """The bytes being planned against, with headlines found on demand."""

    data: bytes
    newline: bytes
    heads: dict[int, Head] = field(default_factory=dict)
    holders: dict[str, dict[str, list[int]]] = field(default_factory=dict)

    @cached_property
    def outline(self) -> Outline:
        return Outline(self.data)

    def head(self, begin: int) -> Head:
        if begin not in self.heads:
            self.heads[begin] = locate_head(self.data, self.outline.at(begin), newline=self.newline)
        return self.heads[begin]

    def holding(self, key: str, value: str, below: int) -> list[int]:
        """Return the headlines in ``below``'s subtree whose drawer sets ``key`` to ``value``.

        Indexed once per key: by value, the headlines in file order (a walk of each
        request's subtree instead was quadratic in nested requests).
        """
        if (key := key.casefold()) not in self.holders:
            self.holders[key] = {}
            for line in self.outline.entries:
                if (held := self.head(line.begin).value(key)) is not None:
                    self.holders[key].setdefault(held, []).append(line.begin)
        begins = self.holders[key].get(value, [])
        entry = self.outline.at(below)
        return begins[bisect_right(begins, below) : bisect_left(begins, entry.subtree_end)]

    def text_end(self, pos: int) -> int:
        """Return where text may go at the end of the line at ``pos``: before its line end.

        A CRLF line of a mixed file (read with LF line ends, its ``\\r`` as text, as
        Emacs does) still ends in CR LF; text appended before the LF would split it.
        """
        end = self.data.find(b"\n", pos)
        if end < 0:
            return len(self.data)
        return end - 1 if end > pos and self.data[end - 1] == 0x0D else end


def _property_line(key: str, value: str) -> str:
    """Format a property line as org-property-format does (value already trimmed)."""
    if not value:
        return f":{key}:"
    return f"{':' + key + ':':<{PROPERTY_KEY_WIDTH}} {value}"


def _check_property(key: str, value: str) -> str:
    """Validate a property and return its value as Org will read it back."""
    if not _KEY_RE.fullmatch(key) or key.endswith(":"):
        raise ValueError(f"invalid property key {key!r}")
    if "\n" in value or "\r" in value or "\0" in value:
        raise ValueError(f"property {key} value must be one line of text: {value!r}")
    # org-property-re trims blanks around a value, so compare and write it trimmed.
    return value.strip(" \t")


def _identity(edit: AppendChild) -> tuple[str, str]:
    """Return a child's identity as Org reads it back: folded key, trimmed value."""
    key, value = edit.identity
    return key.casefold(), _check_property(key, value)


def check_tag(tag: str) -> None:
    """Raise ValueError when ``tag`` is not one Org reads as a tag."""
    if not _TAG_RE.fullmatch(tag):
        raise ValueError(f"invalid tag {tag!r}: Org tags are letters, digits, _ @ # %")


def _check_planning(keyword: str, timestamp: str) -> None:
    if keyword not in PLANNING_KEYWORDS:
        raise ValueError(f"planning keyword must be one of {PLANNING_KEYWORDS}: {keyword!r}")
    if not _TIMESTAMP_RE.fullmatch(timestamp):
        raise ValueError(f"invalid timestamp {timestamp!r}")


def _checked(edit: AppendChild) -> tuple[str, str]:
    """Raise ValueError for what of ``edit`` Org would not read back; return its identity."""
    for key, value in edit.properties:
        _check_property(key, value)
    for tag in edit.tags:
        check_tag(tag)
    for keyword, stamp in edit.planning:
        _check_planning(keyword, stamp)
    if edit.todo is not None and not _TODO_RE.fullmatch(edit.todo):
        raise ValueError(f"invalid TODO keyword {edit.todo!r}")
    if edit.level is not None and edit.level < 1:
        raise ValueError(f"a headline needs at least one star, not {edit.level}")
    return _identity(edit)


def check_child(edit: AppendChild, parent_level: int = 1) -> None:
    """Raise the ValueError planning ``edit`` under a ``parent_level`` headline would raise."""
    _checked(edit)
    for line in _child_lines(edit, parent_level):
        line.encode("utf-8")  # a lone surrogate fails here, as the splice's text would


class _Planner:
    """Collect the splices for a list of edits, merging those on one headline."""

    def __init__(self, doc: _Document) -> None:
        self.doc = doc
        # Replacements of existing text, keyed by where they start: a later edit of the
        # same value or entry wins.
        self.replaces: dict[int, Splice] = {}
        # Per headline, in edit order: properties for a new or existing drawer, planning
        # entries for a new or existing line, tags, children.
        self.new_props: dict[int, dict[str, tuple[str, str]]] = {}
        self.new_planning: dict[int, dict[str, str]] = {}
        self.new_tags: dict[int, list[str]] = {}
        self.children: dict[int, list[AppendChild]] = {}

    def set_property(self, edit: SetProperty) -> None:
        value = _check_property(edit.key, edit.value)
        head = self.doc.head(edit.headline)
        existing = head.drawer.get(edit.key) if head.drawer else None
        if existing is None:
            props = self.new_props.setdefault(edit.headline, {})
            props[edit.key.casefold()] = (edit.key, value)
        elif existing.value == value:
            self.replaces.pop(existing.value_begin, None)
        else:
            text = value.encode("utf-8")
            if existing.value_begin == existing.value_end:
                text = b" " + text  # ``:KEY:`` had no value: the space goes in too
            self.replaces[existing.value_begin] = Splice(
                existing.value_begin, existing.value_end, text
            )

    def set_planning(self, edit: SetPlanning) -> None:
        _check_planning(edit.keyword, edit.timestamp)
        head = self.doc.head(edit.headline)
        for entry in head.planning.entries if head.planning else ():
            if entry.keyword == edit.keyword:
                if entry.timestamp == edit.timestamp:
                    self.replaces.pop(entry.begin, None)
                else:
                    text = f"{edit.keyword}: {edit.timestamp}".encode()
                    self.replaces[entry.begin] = Splice(entry.begin, entry.end, text)
                return
        self.new_planning.setdefault(edit.headline, {})[edit.keyword] = edit.timestamp

    def add_tag(self, edit: AddTag) -> None:
        check_tag(edit.tag)
        pending = self.new_tags.setdefault(edit.headline, [])
        if edit.tag not in pending and edit.tag not in self._tags(edit.headline)[1]:
            pending.append(edit.tag)

    def append_child(self, edit: AppendChild) -> None:
        identity = _checked(edit)
        planned = self.children.setdefault(edit.headline, [])
        # Already planned, or in the subtree and neither a fence nor inside one (a request
        # below with the same instruction: its results are its own).
        fences = [] if edit.fence is None else self.doc.holding(*edit.fence, edit.headline)
        fenced = [(f, self.doc.outline.at(f).subtree_end) for f in fences]
        held = self.doc.holding(*identity, edit.headline)
        if any(_identity(c) == identity for c in planned) or any(
            not any(f <= begin < end for f, end in fenced) for begin in held
        ):
            return
        planned.append(edit)

    def _tags(self, begin: int) -> tuple[tuple[int, int, int] | None, list[str]]:
        """Return (gap start, tags start, tags end) byte offsets and the tags."""
        line = self.doc.outline.at(begin)
        # From just after the stars, so that ``* :tag:`` keeps its tags (Org does).
        start = line.begin + line.level
        text = self.doc.data[start : self.doc.text_end(line.begin)].decode("utf-8", "replace")
        # The tags are the last run of non-blanks, after blanks; searching with the
        # regexp from the left instead is quadratic on a long run of blanks.
        tags_end = len(text.rstrip(" \t"))
        tags_begin = max(text.rfind(" ", 0, tags_end), text.rfind("\t", 0, tags_end)) + 1
        if tags_begin == 0 or not _TAGS_RE.fullmatch(text, tags_begin, tags_end):
            return None, []
        gap_begin = len(text[:tags_begin].rstrip(" \t"))

        at = Offsets(text, 0, start)
        tags = text[tags_begin:tags_end].split(":")
        spans = (at.byte(gap_begin), at.byte(tags_begin), at.byte(tags_end))
        return spans, [t for t in tags if t]

    def _tag_splice(self, begin: int, tags: list[str]) -> Splice:
        data = self.doc.data
        spans, _ = self._tags(begin)
        added = ":".join(tags).encode("utf-8") + b":"
        if spans is not None:
            gap_begin, tags_begin, tags_end = spans
            gap = data[gap_begin:tags_begin]
            if gap.strip(b" ") == b"" and len(gap) > len(added):
                # Keep the tags' right edge where it was (Org aligns it to a column).
                gap = b" " * (len(gap) - len(added))
            return Splice(gap_begin, tags_end, gap + data[tags_begin:tags_end] + added)
        line = self.doc.outline.at(begin)
        end = self.doc.text_end(line.begin)
        head_text = data[line.begin : end].rstrip(b" \t")
        tag_text = b":" + added
        width = _width(head_text.decode("utf-8", "replace"))
        pad = max(1, TAGS_COLUMN - width - len(tag_text))
        return Splice(line.begin + len(head_text), end, b" " * pad + tag_text)

    def finish(self) -> list[Splice]:
        doc = self.doc
        inline: dict[int, list[bytes]] = {}  # text added inside an existing line
        blocks: list[tuple[int, tuple[int, int], list[str]]] = []  # whole lines
        for begin, tags in self.new_tags.items():
            if tags:
                splice = self._tag_splice(begin, tags)
                self.replaces[splice.begin] = splice
        for begin, planning in self.new_planning.items():
            head = doc.head(begin)
            entries = " ".join(f"{k}: {v}" for k, v in planning.items())
            if head.planning is not None:
                end = line_span(doc.data, head.planning.begin, doc.newline)[0]
                inline.setdefault(end, []).append(b" " + entries.encode("utf-8"))
            else:
                blocks.append((head.headline.end, (1, 0), [entries]))
        for begin, props in self.new_props.items():
            head = doc.head(begin)
            lines = [_property_line(k, v) for k, v in props.values()]
            if head.drawer is not None:
                indent = head.drawer.indent.decode("utf-8")
                lines = [indent + line for line in lines]
                blocks.append((head.drawer.end_line_begin, (2, 0), lines))
            else:
                pos = head.planning.end if head.planning else head.headline.end
                blocks.append((pos, (2, 0), [":PROPERTIES:", *lines, ":END:"]))
        for begin, children in self.children.items():
            parent = doc.outline.at(begin)
            lines = [line for child in children for line in _child_lines(child, parent.level)]
            # Where two subtrees end at one point, the later (deeper) headline's children
            # go first, so that each child lands inside its own parent's subtree.
            # A child goes after the subtree's last non-blank line.
            point = content_end(doc.data, parent.begin, parent.subtree_end)
            blocks.append((point, (3, -begin), lines))
        return self._merge(inline, blocks)

    def _merge(
        self,
        inline: dict[int, list[bytes]],
        blocks: list[tuple[int, tuple[int, int], list[str]]],
    ) -> list[Splice]:
        data, newline = self.doc.data, self.doc.newline
        # Joined once per point: 1,000 nested requests' results all go at the file's end.
        parts: dict[int, list[bytes]] = {pos: list(chunks) for pos, chunks in inline.items()}
        for pos, _, lines in sorted(blocks, key=lambda b: (b[0], b[1])):
            if lines:
                parts.setdefault(pos, []).extend(line.encode("utf-8") + newline for line in lines)
        texts = {pos: b"".join(chunks) for pos, chunks in parts.items()}
        for pos in {pos for pos, _, lines in blocks if lines}:
            if pos > 0 and data[pos - 1 : pos] != b"\n":
                # Whole lines after a last line with no line end: start a new line, and
                # leave the file as it was, without a final newline.
                head = b"".join(inline.get(pos, []))
                texts[pos] = head + newline + texts[pos][len(head) : -len(newline)]
        splices = [*self.replaces.values(), *(Splice(p, p, t) for p, t in texts.items())]
        return ordered(splices)


def _child_lines(edit: AppendChild, parent_level: int) -> list[str]:
    """Return the lines of the child ``edit`` appends under a ``parent_level`` headline."""
    stars = "*" * (edit.level if edit.level is not None else parent_level + 1)
    todo = f"{edit.todo} " if edit.todo else ""
    head = f"{stars} {todo}{safe_line(edit.title)}"
    if edit.tags:
        tags = ":" + ":".join(edit.tags) + ":"
        head = head.rstrip()
        head += " " * max(1, TAGS_COLUMN - _width(head) - len(tags)) + tags
    lines = [head]
    if edit.planning:
        lines.append(" ".join(f"{keyword}: {stamp}" for keyword, stamp in edit.planning))
    props = [edit.identity, *(p for p in edit.properties if p[0] != edit.identity[0])]
    body = strip_controls(edit.body).rstrip("\n")
    escape = escape_safe if edit.org_safe else escape_plain
    text = escape(body).split("\n") if body else []
    if edit.check is not None:
        key, digest = edit.check
        # surrogatepass: a text that cannot be written fails below, naming its line
        value = digest("\n".join([*lines, *text]).encode("utf-8", "surrogatepass"))
        # Last, or in place of a property so named (as SetProperty would set it).
        at = next((i for i, p in enumerate(props) if p[0].casefold() == key.casefold()), None)
        if at is None:
            props.append((key, value))
        else:
            props[at] = (props[at][0], value)
    drawer = [_property_line(k, _check_property(k, v)) for k, v in props]
    return [*lines, ":PROPERTIES:", *drawer, ":END:", *text]


def plan_edits(data: bytes, edits: Iterable[Edit], *, newline: bytes = b"\n") -> list[Splice]:
    """Return the splices that make ``edits`` to ``data``; none for edits already made."""
    planner = _Planner(_Document(data, newline))
    for edit in edits:
        if isinstance(edit, SetProperty):
            planner.set_property(edit)
        elif isinstance(edit, SetPlanning):
            planner.set_planning(edit)
        elif isinstance(edit, AddTag):
            planner.add_tag(edit)
        else:
            planner.append_child(edit)
    return planner.finish()


def edit_bytes(data: bytes, edits: Iterable[Edit], *, newline: bytes = b"\n") -> bytes:
    """Return ``data`` with ``edits`` made (the same object when nothing changes)."""
    splices = plan_edits(data, edits, newline=newline)
    return apply_splices(data, splices) if splices else data
