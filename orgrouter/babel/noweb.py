"""Expand noweb references (``<<name>>``) the way Babel does when tangling.

A reference resolves, in order, to: a headline whose CUSTOM_ID or ID is the name (its
body, literally); the first block named by ``#+name``; else every block whose
``:noweb-ref`` is the name, joined by each one's ``:noweb-sep`` (default newline).
An unresolved reference expands to nothing. ``<<name(args)>>`` asks Org to run a
block: we never do; the reference is reported and the block is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orgrouter.babel.body import normalize_body
from orgrouter.babel.comments import block_link, comment_lines, comment_syntax, source_name
from orgrouter.babel.document import Document
from orgrouter.babel.headers import Params
from orgrouter.org.blocks import SrcBlock

# org-babel-noweb-wrap, with the text before the reference on its line (group 1).
NOWEB_RE = re.compile(r"(.*?)(<<([^ \t\n](?:.*?[^ \t\n])?)>>)")
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
    return any(word in TANGLE_VALUES for word in params.words(":noweb"))


@dataclass
class NowebContext:
    """What reference lookups need from one document, computed once per file."""

    doc: Document
    params: dict[int, Params] = field(default_factory=dict)  # by block start
    _by_ref: dict[str, list[SrcBlock]] | None = None

    def params_of(self, block: SrcBlock) -> Params:
        """Return ``block``'s header arguments (cached)."""
        found = self.params.get(block.post_affiliated)
        if found is None:
            found = self.params[block.post_affiliated] = self.doc.params(block)
        return found

    def counter_of(self, block: SrcBlock) -> int:
        """Return the block's number among the blocks under its headline (from 1)."""
        index = self.doc.heading_index(block.post_affiliated)
        count = 0
        for other in self.doc.babel_blocks():
            if self.doc.heading_index(other.post_affiliated) == index:
                count += 1
            if other.post_affiliated == block.post_affiliated:
                break
        return count

    def by_ref(self) -> dict[str, list[SrcBlock]]:
        """Return blocks by their ``:noweb-ref``, outside COMMENT subtrees, in order."""
        if self._by_ref is None:
            self._by_ref = {}
            for block in self.doc.babel_blocks():
                if self.doc.in_commented(self.doc.heading_index(block.post_affiliated)):
                    continue
                ref = self.params_of(block).get(":noweb-ref")
                if ref is not None:
                    self._by_ref.setdefault(ref, []).append(block)
        return self._by_ref

    def named(self, name: str) -> SrcBlock | None:
        """Return the first block whose ``#+name`` line names it (Org's regexp search)."""
        pattern = re.compile(
            r"^[ \t]*#\+name:[ \t]*" + re.escape(name)
            + r"[ \t]*(?:\n[ \t]*#\+\S+:.*)*?\n[ \t]*#\+begin_src[ \t]+[^ \f\t\n\r\v]+",
            re.IGNORECASE | re.MULTILINE,
        )  # fmt: skip
        match = pattern.search(self.doc.text)
        if match is None:
            return None
        begin_line = self.doc.text.rfind("\n", 0, match.end()) + 1
        for block in self.doc.blocks:
            if block.post_affiliated == begin_line:
                if self.doc.in_commented(self.doc.heading_index(block.post_affiliated)):
                    return None
                return block
        return None

    def headline_body(self, name: str) -> str | None:
        """Return the body of the headline whose CUSTOM_ID (or ID) is ``name``."""
        headings = self.doc.headings
        for key in ("custom_id", "node_id"):
            for heading in headings:
                if getattr(heading, key) == name:
                    return self.doc.text[heading.body_begin : heading.end]
        return None


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
        body_text = ctx.headline_body(ref)
        if body_text is not None:
            return body_text
        named = ctx.named(ref)
        if named is not None:
            return expand_block(named)
        blocks = ctx.by_ref().get(ref)
        if not blocks:
            return ""
        pieces: list[str] = []
        for i, inner in enumerate(blocks):
            if i:
                sep = ctx.params_of(blocks[i - 1]).get(":noweb-sep")
                pieces.append("\n" if sep is None else sep)
            pieces.append(expand_block(inner))
        return "".join(pieces)

    def replace(match: re.Match[str]) -> str:
        prefix = match.group(1)
        lines = re.split(r"[\n\r]", resolve(match.group(3)))
        return prefix + ("\n" + prefix).join(lines)

    return NOWEB_RE.sub(replace, body)
