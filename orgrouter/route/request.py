"""Find the headlines addressed to the agent (seed 003's ``find-agent-request``).

An address is ``@agent`` or ``@NAME`` (the configured agent name and sub-agents),
case-insensitive, not preceded by a word character or ``.``, not followed by a word
character. It counts only in a headline's title, outside inline code and verbatim
(``~@agent~``, ``=@agent=``) and links (target and description), and not on a
headline line that sits inside a ``#+begin_src``/``#+begin_example`` block as written
(Org would read it as a headline, but the user wrote it as code). Every addressed
headline counts, at any depth; one orgrouter wrote (``ORGROUTER_RESULT`` in its
drawer) never does, nor one in a ``COMMENT`` subtree, which Org treats as commented out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cached_property

from orgrouter.address import address_offsets, address_re
from orgrouter.io.text import sha256
from orgrouter.marks import RESULT_KEY
from orgrouter.org.blockspans import outside_written_blocks, written_block_spans
from orgrouter.org.document import Document, OutlineEntry
from orgrouter.org.drawer import Head
from orgrouter.records import NamedTuple, record

HASH_KEY = "ORGROUTER_HASH"
STATUS_KEY = "ORGROUTER_STATUS"

# Org 9.5's default link types (org-link-parameters): "TYPE:PATH" is a plain link and
# "<TYPE:PATH>" an angle link (org-link-plain-re, org-link-angle-re), so an @ inside
# "https://x.org/@agent" is part of an address on the web, not one to the agent.
_LINK_TYPES = (
    "https?|ftp|file|mailto|news|shell|elisp|doi|id|info|irc|help|attachment"
    "|docview|eww|bbdb|gnus|mhe|rmail|w3m"
)
# Spans of a title where an @ is not an address: inline code/verbatim, plain and angle
# links, whole bracket links (target and description, as org-link-bracket-re reads
# them: a description is the link's text, "[[file:x.org][@agent docs]]" names a file,
# it asks nothing), and
# the target of a link that is not closed. A backslash in a target escapes the next
# character, one way only (Org's three-way alternation backtracks exponentially here).
# A source, compiled by re's own cache at its first use: most titles need it never.
_OPAQUE_SPAN = (
    r"(?<![^\s\-(\'\"{])([~=])(?=\S)(?:.*?\S)?\1(?=[\s\-.,;:!?\')}\"\[]|$)"
    r"|\[\[(?:[^\]\[\\]|\\.)+\](?:\[.+?\])?\]"
    r"|\[\[(?:[^\]\[\\]|\\.)*\](?=\]|\[)"
    rf"|<(?:{_LINK_TYPES}):[^<>\n]*>"  # no "<" inside, unlike Org: linear on long lines
    rf"|\b(?:{_LINK_TYPES}):[^\]\[\s()<>]+"
)
_LEADING_PUNCT = re.compile(r"^[\s:,;.!\]\-–—]+")


class Address(NamedTuple):
    """Where an address sits in a title, and whom it names (lower-case)."""

    agent: str
    start: int
    end: int


@record(frozen=True)
class FoundRequest:
    """One addressed headline of a document."""

    document: Document
    index: int  # the headline's index in document.entries
    agent: str  # "agent" or a configured name, lower-case
    instruction: str  # the text after the address, or taken from the body
    items: tuple[str, ...]  # body list items when the instruction came from the body
    head: Head  # planning line and property drawer, as Org sees them

    @property
    def entry(self) -> OutlineEntry:
        """Return the headline's place in the outline."""
        return self.document.entries[self.index]

    @property
    def line(self) -> int:
        """Return the headline's 1-based line."""
        return self.entry.line

    @cached_property
    def hash(self) -> str:
        """Return the hash of what was asked (agent and instruction, spacing ignored)."""
        return instruction_hash(self.agent, self.instruction)

    def recorded(self, key: str) -> str | None:
        """Return a property of the request's own drawer, or None."""
        return self.head.value(key)


def instruction_hash(agent: str, instruction: str) -> str:
    """Return the 16-hex-digit hash that ``ORGROUTER_HASH`` records."""
    canonical = f"{agent.lower()}\n{' '.join(instruction.split())}"
    return sha256(canonical.encode("utf-8")).hexdigest()[:16]


# Over this length a title's code and link spans are read only near each address: the
# verbatim and link-description patterns scan to the line's end from every opener that
# nothing closes, which is quadratic on a 300 KB title of "~a " or "[[a][b". No person
# writes a span of code or a link that long around an address.
LONG_TITLE = 1 << 16
SPAN_WINDOW = 2048
MAX_WINDOWS = 64  # addresses looked at in a long title; the rest are not requests


def find_address(title: str, names: Sequence[str]) -> Address | None:
    """Return the first address in ``title`` outside code and link targets, or None."""
    pattern = address_re(tuple(names))
    if len(title) <= LONG_TITLE:
        # Every span needs one of these characters (3 ms to compile the pattern).
        spans = re.finditer(_OPAQUE_SPAN, title) if any(c in title for c in "~=[:") else ()
        hidden = [(m.start(), m.end()) for m in spans]
        for match in pattern.finditer(title):
            if not any(start <= match.start() < end for start, end in hidden):
                return Address(match.group(1).lower(), match.start(), match.end())
        return None
    for seen, match in enumerate(pattern.finditer(title)):
        if seen == MAX_WINDOWS:
            break
        low = max(0, match.start() - SPAN_WINDOW)
        piece = title[low : match.end() + SPAN_WINDOW]
        at = match.start() - low
        if not any(m.start() <= at < m.end() for m in re.finditer(_OPAQUE_SPAN, piece)):
            return Address(match.group(1).lower(), match.start(), match.end())
    return None


def is_result(document: Document, head: Head) -> bool:
    """Return whether a headline was written by orgrouter."""
    return head.value(RESULT_KEY) is not None


def find_requests(
    document: Document, names: Sequence[str], offsets: Sequence[int] | None = None
) -> list[FoundRequest]:
    """Return every request in ``document``, in file order.

    ``offsets`` are ``address.address_offsets(document.data, names)`` when already known.
    """
    pattern = address_re(tuple(names))
    data = document.data
    blocks: _Blocks | None = None
    found: list[FoundRequest] = []
    if offsets is None:
        offsets = address_offsets(data, names)
    for entry in _addressed_lines(document, offsets):
        headline = document.headline(entry.index)
        if not pattern.search(headline.raw) or document.commented(entry.index):
            continue
        if headline.todo is not None and document.settings.todo.is_done(headline.todo):
            # A closed headline (DONE, or any done state of the file's #+TODO) asks for
            # nothing: literate notes document "*** DONE @Agent Tag Detection" this way.
            continue
        address = find_address(headline.raw, names)
        if address is None:
            continue
        if blocks is None:
            blocks = _Blocks(data)
        if blocks.holds(entry.begin):
            continue
        head = document.head(entry.index)
        if is_result(document, head):
            continue
        instruction = _LEADING_PUNCT.sub("", headline.raw[address.end :]).strip()
        items: tuple[str, ...] = ()
        if not instruction:
            instruction, items = body_instruction(document, entry, head)
        found.append(FoundRequest(document, entry.index, address.agent, instruction, items, head))
    return found


class _Blocks:
    """The blocks of a document as written, found in file order only as far as asked."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.spans: Iterator[tuple[int, int]] | None = None  # walked from where proved
        self.span = (0, 0)  # the first block not wholly before the last position asked

    def holds(self, position: int) -> bool:
        """Return whether ``position`` (asked in increasing order) is strictly inside a block."""
        if self.spans is None:  # the first asked: proved outside, nothing before is walked
            start = position if outside_written_blocks(self.data, position) else 0
            self.spans = written_block_spans(self.data, start)
            if start:
                return False
        while self.span[1] <= position:
            self.span = next(self.spans, (position + 1, position + 1))  # none left: never
        return self.span[0] < position < self.span[1]


def _addressed_lines(document: Document, offsets: Sequence[int]) -> list[OutlineEntry]:
    """Return the headlines whose line may hold an address (a superset), in order.

    One bytes search over the file instead of a look at every headline: a note with
    thousands of headlines and one request costs one scan.
    """
    entries: list[OutlineEntry] = []
    for offset in offsets:
        index = document.find(offset)
        if index is None:
            continue
        entry = document.entries[index]
        if offset < entry.end and (not entries or entries[-1] is not entry):
            entries.append(entry)
    return entries


def body_instruction(
    document: Document, entry: OutlineEntry, head: Head
) -> tuple[str, tuple[str, ...]]:
    """Return the instruction an empty-titled request's body gives, and its list items.

    Each top-level item of the section's lists is one intent (its own text, nested
    lists left out); without a list, the first paragraph is the instruction. The
    section is read with the element parser, so a list is a list exactly where Org
    says so.
    """
    section = document.section_ast(entry.index)
    if section is None:
        return "", ()
    items: list[str] = []
    paragraph = ""
    for node in section.contents:
        if node.type == "plain-list":
            for item in node.contents:
                text = " ".join(
                    " ".join(str(child.properties.get("value", "")).split())
                    for child in item.contents
                    if child.type == "paragraph"
                )
                if text:
                    items.append(text)
        elif node.type == "paragraph" and not paragraph:
            paragraph = " ".join(str(node.properties.get("value", "")).split())
    if items:
        return "; ".join(items), tuple(items)
    return paragraph, ()
