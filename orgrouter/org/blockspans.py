"""Where a text's blocks are, in the two readings orgrouter needs: the one place for both.

**As Org parses** (:func:`parsed_block_spans`, what org-element does): a ``#+begin_NAME``
line opens a block only when a line closing it (``syntax.BLOCK_END_RE``) comes before
the next headline and before the end of the block around it; otherwise the line is a
paragraph's. A lesser block's contents (``LESSER_BLOCKS``, below) are text, so a begin
line inside one opens nothing; a greater or special block's contents are Org, so
blocks nest in it. LaTeX environments, closed the same way, are text inside too.

**As written** (:func:`written_block_spans`, on bytes): from a ``#+begin_KIND`` line of a
lesser kind to the first later line starting with ``#+end_KIND``, headlines ignored:
what the user wrote as code, even where Org ends the block at an unescaped ``* x``.

The element parser (``elements``, ``lists``) looks up the same closing lines
(``syntax.ClosingLines``) within its own limits (drawers, items), which this module
does not model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from orgrouter.org.scan import HEADLINE_TEXT_RE
from orgrouter.records import NamedTuple

if TYPE_CHECKING:
    from orgrouter.org.syntax import ClosingLines

__all__ = [
    "LESSER_BLOCKS",
    "Block",
    "line_at",
    "line_text",
    "outside_written_blocks",
    "parsed_block_spans",
    "written_block_spans",
]

# Org's lesser blocks (contents are text): here, so the spans need none of syntax.py.
LESSER_BLOCKS = {"COMMENT": "comment-block", "EXAMPLE": "example-block",
                 "EXPORT": "export-block", "SRC": "src-block", "VERSE": "verse-block"}  # fmt: skip

# A begin line: a block's (any case) or a LaTeX environment's (org-element's latex-begin).
_OPEN_RE = re.compile(r"^[ \t]*(?:(?i:#\+BEGIN_)(\S+)|\\begin\{([A-Za-z0-9*]+)\})", re.MULTILINE)
# Lines that may close a block (ClosingLines reads which block each closes).
_BLOCK_CLOSER_RE = re.compile(r"^[ \t]*#\+END_", re.IGNORECASE | re.MULTILINE)


class Block(NamedTuple):
    """One closed block or LaTeX environment, by character offsets into its text."""

    name: str  # as written on the begin line: "src", "QUOTE", an environment's name
    begin: int  # the begin line's start
    contents: int  # just past the begin line
    close: int  # the closing line's start (for LaTeX, maybe the begin line itself)
    end: int  # just past the closing line (its LF included), or the text's end
    latex: bool = False

    @property
    def lesser(self) -> bool:
        """Return whether Org reads the contents as text (a lesser block, LaTeX)."""
        return self.latex or self.name.upper() in LESSER_BLOCKS


def _closing_lines(text: str, latex: bool) -> ClosingLines:
    """Index the lines of ``text`` that may close a block (or a LaTeX environment)."""
    from orgrouter.org.syntax import ClosingLines

    starts = [m.start() for m in _BLOCK_CLOSER_RE.finditer(text)]
    if latex:
        starts = sorted({*starts, *(text.rfind("\n", 0, m.start()) + 1
                                    for m in re.finditer(r"\\end\{", text))})
    # A CRLF file's CR is part of the line end, as when Emacs visits it.
    return ClosingLines((start, line_text(text, start)) for start in starts)


def line_at(text: str, start: int) -> tuple[str, int]:
    """Return the line starting at ``start`` (no LF) and the offset past its LF."""
    newline = text.find("\n", start)
    return (text[start:], len(text)) if newline < 0 else (text[start:newline], newline + 1)


def line_text(text: str, start: int) -> str:
    """Return the line starting at ``start``, without its line end (LF or CRLF)."""
    return line_at(text, start)[0].removesuffix("\r")


def parsed_block_spans(text: str, *, latex: bool = False, body: bool = False) -> list[Block]:
    """Return the blocks Org parses in ``text``, in order (LaTeX environments if ``latex``).

    ``body``: the text is a result body whose headline lines will be escaped, so a
    headline line inside it ends no block.
    """
    if "#+" not in text and not (latex and "\\begin{" in text):
        return []
    headlines = [] if body else [m.start() for m in HEADLINE_TEXT_RE.finditer(text)]
    closers = _closing_lines(text, latex)
    found: list[Block] = []
    around: list[Block] = []  # the greater blocks holding this point, innermost last
    covered = 0  # the end of the last lesser block: nothing inside it is a block
    head = 0
    for match in _OPEN_RE.finditer(text):
        start = match.start()
        is_latex = match.group(2) is not None
        if start < covered or (is_latex and not latex):
            continue
        while around and around[-1].close <= start:
            around.pop()
        while head < len(headlines) and headlines[head] <= start:
            head += 1
        limit = headlines[head] if head < len(headlines) else len(text)
        if around:
            limit = min(limit, around[-1].close)
        contents = line_at(text, start)[1]
        name = match.group(2) if is_latex else match.group(1)
        # A LaTeX environment may close on its own begin line.
        close = closers.first(name, start if is_latex else contents, limit, latex=is_latex)
        if close is None:
            continue  # not closed: the line is a paragraph's
        block = Block(name, start, contents, close, line_at(text, close)[1], is_latex)
        found.append(block)
        if block.lesser:
            covered = block.end
        else:
            around.append(block)
    return found


# As written: the lesser kinds, found from the literal "#+", so a large file costs a
# jump from "#" to "#", not a line-start pattern tried at every byte.
_WRITTEN_BEGIN = re.compile(
    rb"#\+begin_(" + "|".join(k.lower() for k in LESSER_BLOCKS).encode() + rb")\b", re.IGNORECASE
)


def written_block_spans(data: bytes, start: int = 0) -> Iterator[tuple[int, int]]:
    """Yield each block's span as written: its begin line's start to past ``#+end_KIND``.

    The same spans, in the same order, as ``^[ \\t]*#\\+begin_(KIND)\\b.*?^[ \\t]*#\\+end_\\1\\b``
    (multi-line, dot-all, ignoring case) finds: a begin without an end is no block.
    ``start``: a line start :func:`outside_written_blocks` proved outside every block;
    the blocks after it are the same as from the text's start (nothing before an outside
    point decides what comes after it), so those before it are not walked.
    """
    position = start
    unclosed: set[bytes] = set()  # kinds with no end line after some point: none later
    while True:
        begin = _WRITTEN_BEGIN.search(data, position)
        if begin is None:
            return
        start = begin.start()
        position = begin.end()
        line_start = start
        if start and data[start - 1] != 0x0A:  # most begins start their line: no search
            line_start = data.rfind(b"\n", 0, start) + 1
            if data[line_start:start].strip(b" \t"):
                continue  # "#+begin_src" after text on its line opens nothing
        kind = begin.group(1).lower()
        if kind in unclosed:
            continue
        end = _written_end(data, _written_end_re(kind), position)
        if end is None:
            unclosed.add(kind)
        else:
            yield line_start, end
            position = end


def _written_end(data: bytes, pattern: re.Pattern[bytes], after: int) -> int | None:
    """Return the end of the first ``pattern`` (an end line) starting a line after ``after``."""
    position = after
    while True:
        end = pattern.search(data, position)
        if end is None:
            return None
        start = end.start()
        if data[start - 1] == 0x0A:  # start > after > 0: the common case, no search
            return end.end()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_start >= after and not data[line_start:start].strip(b" \t"):
            return end.end()
        position = end.end()


@lru_cache(maxsize=8)
def _written_end_re(kind: bytes) -> re.Pattern[bytes]:
    """Return the pattern of ``#+end_KIND`` (the end of one kind of block, as written)."""
    return re.compile(rb"#\+end_" + re.escape(kind) + rb"\b", re.IGNORECASE)


# A begin or end line's keyword, of any lesser kind (which, and whether it starts its
# line, are read from the match).
_WRITTEN_TOKEN = re.compile(
    rb"#\+(begin|end)_(" + "|".join(k.lower() for k in LESSER_BLOCKS).encode() + rb")\b",
    re.IGNORECASE,
)
PROOF_WINDOW = 1 << 16  # bytes before the position read token by token


def outside_written_blocks(data: bytes, position: int) -> bool:
    """Return True only if the line start ``position`` is inside no block as written.

    A proof backwards, for a request near the end of a large note, where walking every
    block before it in file order took most of finding it (5 MB: 3,800 blocks, 61 M
    instructions). ``position`` is inside a block of kind K only if a begin line of K
    precedes it with no end line of K between: so, for every kind, either its last line
    before ``position`` (in the window read) is an end line, or no begin line of it comes
    before the window (one search). False means not proved: walk the blocks.
    """
    low = data.rfind(b"\n", 0, position - PROOF_WINDOW) + 1 if position > PROOF_WINDOW else 0
    last: dict[bytes, bool] = {}  # kind -> its last line in the window is a begin line
    for match in _WRITTEN_TOKEN.finditer(data, low, position):
        if _starts_line(data, match.start()):
            last[match.group(2).lower()] = match.group(1).lower() == b"begin"
    if any(last.values()):
        return False  # a block may be open here (or its begin sits in another block)
    unread = frozenset(k.lower().encode() for k in LESSER_BLOCKS if k.lower().encode() not in last)
    if not unread or low == 0:
        return True
    pattern, at = _written_begins(unread), 0
    while (begin := pattern.search(data, at, low)) is not None:
        if _starts_line(data, begin.start()):
            return False
        at = begin.end()
    return True


def _starts_line(data: bytes, at: int) -> bool:
    """Return whether only blanks come before ``at`` on its line."""
    if at == 0 or data[at - 1] == 0x0A:
        return True
    return not data[data.rfind(b"\n", 0, at) + 1 : at].strip(b" \t")


@lru_cache(maxsize=32)
def _written_begins(kinds: frozenset[bytes]) -> re.Pattern[bytes]:
    """Return the pattern of a begin keyword of one of ``kinds`` (kept between runs)."""
    from orgrouter.diskcache import keep

    return keep(re.compile(rb"#\+begin_(?:" + b"|".join(sorted(kinds)) + rb")\b", re.IGNORECASE))
