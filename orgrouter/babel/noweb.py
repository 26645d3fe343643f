"""Expand noweb references (``<<name>>``) the way Babel does when tangling.

A reference resolves, in order, to: a headline whose CUSTOM_ID or ID is the name (its
body, literally); the first block named by ``#+name``; else every block whose
``:noweb-ref`` is the name, joined by each one's ``:noweb-sep`` (default newline).
An unresolved reference expands to nothing. ``<<name(args)>>`` asks Org to run a
block: we never do; the reference is reported and the block is skipped.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from orgrouter.babel.body import normalize_body
from orgrouter.babel.comments import block_link, comment_lines, comment_syntax, source_name
from orgrouter.babel.document import Document
from orgrouter.babel.headers import Params
from orgrouter.org.blocks import SrcBlock

_CALL_RE = re.compile(r"\(.*\)")
TANGLE_VALUES = frozenset({"yes", "tangle", "no-export", "strip-export"})


class NowebRefused(Exception):
    """A reference Org would resolve by running code, or a reference cycle."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def expands_when_tangling(params: Params) -> bool:
    """Return True when ``:noweb`` asks for expansion while tangling."""
    return any(word in TANGLE_VALUES for word in (params.get(":noweb") or "").split())


@dataclass
class NowebContext:
    """What reference lookups need from one document, computed once per file.

    Each lookup table is built on first use in one pass over the document, so a file
    with many references costs what its size does (a search per reference was
    quadratic: 3,200 references in 5,000 blocks took minutes).
    """

    doc: Document
    params: dict[int, Params] = field(default_factory=dict)  # by block start

    def params_of(self, block: SrcBlock) -> Params:
        """Return ``block``'s header arguments (cached)."""
        found = self.params.get(block.post_affiliated)
        if found is None:
            found = self.params[block.post_affiliated] = self.doc.params(block)
        return found

    def counter_of(self, block: SrcBlock) -> int:
        """Return the block's number among the blocks under its headline (from 1)."""
        return self._counters.get(block.post_affiliated, 0)

    @cached_property
    def _counters(self) -> dict[int, int]:
        counters: dict[int, int] = {}
        counter = 0
        last_heading: int | None = -1  # -1: no block yet; None: before the first headline
        for other in self.doc.babel_blocks:
            index = self.doc.heading_index(other.post_affiliated)
            # Blocks come in document order, so one headline's blocks are adjacent.
            counter = counter + 1 if index == last_heading else 1
            last_heading = index
            counters[other.post_affiliated] = counter
        return counters

    @cached_property
    def by_ref(self) -> dict[str, list[SrcBlock]]:
        """Return blocks by their ``:noweb-ref``, outside COMMENT subtrees, in order."""
        by_ref: dict[str, list[SrcBlock]] = {}
        for block in self.doc.babel_blocks:
            if not self.doc.in_commented(self.doc.heading_index(block.post_affiliated)):
                ref = self.params_of(block).get(":noweb-ref")
                if ref is not None:
                    by_ref.setdefault(ref, []).append(block)
        return by_ref

    def named(self, name: str) -> SrcBlock | None:
        """Return the first block whose ``#+name`` line names it (Org's regexp search).

        Org searches for a ``#+name: NAME`` line (any case, blanks around NAME)
        followed by affiliated keyword lines then a ``#+begin_src LANG`` line.
        """
        exact = re.compile(re.escape(name), re.IGNORECASE)
        for written, begin_line in self._names.get(name.casefold(), ()):
            if exact.fullmatch(written):
                block = self.doc.block_at(begin_line)
                if block is None or self.doc.in_commented(self.doc.heading_index(begin_line)):
                    return None
                return block
        return None

    @cached_property
    def _names(self) -> dict[str, list[tuple[str, int]]]:
        return _name_lines(self.doc.text)

    @cached_property
    def headline_bodies(self) -> dict[str, str]:
        """Return the bodies of headlines by their CUSTOM_ID (or ID)."""
        # A CUSTOM_ID anywhere wins over an ID (Org looks for CUSTOM_ID first); the
        # first headline with a given value wins.
        bodies: dict[str, str] = {}
        for key in ("custom_id", "node_id"):
            for heading in self.doc.headings:
                value = getattr(heading, key)
                if value is not None and value not in bodies:
                    bodies[value] = self.doc.text[heading.body_begin : heading.end]
        return bodies


_NAME_LINE_RE = re.compile(r"[ \t]*#\+name:(.*)", re.IGNORECASE)
_KEYWORD_LINE_RE = re.compile(r"[ \t]*#\+\S+:")
_BEGIN_LINE_RE = re.compile(r"[ \t]*#\+begin_src[ \t]+[^ \f\t\n\r\v]", re.IGNORECASE)


def _name_lines(text: str) -> dict[str, list[tuple[str, int]]]:
    """Return ``#+name`` values (casefolded) -> [(value, start of its begin_src line)].

    One pass from the end: the begin_src line a line reaches is the next line if that
    starts a block, else what the next line reaches if it is a ``#+KEY:`` line (Org's
    lazy run of affiliated keywords), else none.
    """
    lines = text.split("\n")
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines[:-1])]
    reach: list[int | None] = [None] * len(lines)
    for i in range(len(lines) - 2, -1, -1):
        after = lines[i + 1]
        if _BEGIN_LINE_RE.match(after):
            reach[i] = starts[i + 1]
        elif _KEYWORD_LINE_RE.match(after):
            reach[i] = reach[i + 1]
    names: dict[str, list[tuple[str, int]]] = {}
    for i, line in enumerate(lines):
        if reach[i] is None or "#" not in line:
            continue
        match = _NAME_LINE_RE.match(line)
        target = reach[i]
        if match is not None and target is not None:
            value = match.group(1).strip(" \t")
            names.setdefault(value.casefold(), []).append((value, target))
    return names


def expand(ctx: NowebContext, block: SrcBlock, body: str, stack: tuple[int, ...] = ()) -> str:
    """Return ``body`` (of ``block``) with its noweb references expanded."""
    stack = (*stack, block.post_affiliated)
    params = ctx.params_of(block)
    wrap = params.get(":comments") == "noweb"

    def expand_block(inner: SrcBlock) -> str:
        if inner.post_affiliated in stack:
            raise NowebRefused("noweb-cycle", f"noweb reference cycle at line {inner.line}")
        text = normalize_body(inner.value)
        if expands_when_tangling(ctx.params_of(inner)):
            # Org 9.8 behaviour: nested references expand under the tangle context.
            text = expand(ctx, inner, text, stack)
        if not wrap:
            return text
        # `:comments noweb' marks each expansion with the inner block's link. Org 9.5
        # writes a broken nested link with an absolute path there; we write the same
        # relative link as the block comments.
        syntax = comment_syntax(block.language or "")
        link = block_link(ctx.doc, inner, params.get(":tangle") or "")
        name = source_name(ctx.doc, inner, ctx.counter_of(inner))
        begin = comment_lines(f"[[{link}][{name}]]", syntax).rstrip("\n")
        end = comment_lines(f"{name} ends here", syntax).rstrip("\n")
        return f"{begin}\n{text}\n{end}"

    def resolve(ref: str) -> str:
        if _CALL_RE.search(ref):
            raise NowebRefused("code-execution", f"<<{ref}>> would run code")
        body_text = ctx.headline_bodies.get(ref)
        if body_text is not None:
            return body_text
        named = ctx.named(ref)
        if named is not None:
            return expand_block(named)
        blocks = ctx.by_ref.get(ref)
        if not blocks:
            return ""
        pieces = [expand_block(blocks[0])]
        for previous, inner in itertools.pairwise(blocks):
            sep = ctx.params_of(previous).get(":noweb-sep")
            pieces += ["\n" if sep is None else sep, expand_block(inner)]
        return "".join(pieces)

    pieces: list[str] = []
    done = 0
    for prefix_begin, begin, end in references(body):
        prefix = body[prefix_begin:begin]
        lines = re.split(r"[\n\r]", resolve(body[begin + 2 : end - 2]))
        pieces += [body[done:prefix_begin], prefix, ("\n" + prefix).join(lines)]
        done = end
    pieces.append(body[done:])
    return "".join(pieces)


def references(body: str) -> Iterator[tuple[int, int, int]]:
    """Yield (prefix start, ``<<`` start, ``>>`` end) of each noweb reference in ``body``.

    The references are those of Org's ``\\(.*?\\)\\(<<\\([^ \\t\\n]\\(?:.*?[^
    \\t\\n]\\)?\\)>>\\)`` replaced across the body: the first ``<<`` on a line
    (after the last reference) that a ``>>`` closes later on the line, the name
    between them neither starting nor ending with a blank (the shortest of two
    characters or more, else one); the prefix is the text
    before it on its line, after the last reference. That pattern, run by a
    backtracking matcher, re-read the rest of the line from every place on it and
    every ``<<``: cubic, minutes for a line of 2,000 ``<``. Here each line is read
    once, and its closers are found by bisection.
    """
    line_begin = 0
    while line_begin <= len(body):
        line_end = body.find("\n", line_begin)
        if line_end < 0:
            line_end = len(body)
        at = body.find("<<", line_begin, line_end)
        if at >= 0:
            closers = _closers(body, at + 3, line_end)
            done = line_begin
            while at >= 0 and closers:
                first = body[at + 2] if at + 2 < line_end else " "
                # The name's optional tail is greedy: a closer after a name of two or
                # more characters wins over one right after its first ("<<a>>>": "a>").
                i = bisect.bisect_left(closers, at + 4)
                if i == len(closers) and (not i or closers[i - 1] != at + 3):
                    break  # no later ">>": no reference starts further on this line
                if first not in " \t":
                    end = (closers[i] if i < len(closers) else at + 3) + 2
                    yield done, at, end
                    done = end
                    at = body.find("<<", end, line_end)
                else:
                    at = body.find("<<", at + 1, line_end)
        line_begin = line_end + 1


def _closers(body: str, begin: int, end: int) -> list[int]:
    """Return where a ``>>`` after a non-blank starts in ``body[begin:end]`` (overlapping)."""
    found: list[int] = []
    at = body.find(">>", begin, end)
    while at >= 0:
        if body[at - 1] not in " \t":
            found.append(at)
        at = body.find(">>", at + 1, end)
    return found
