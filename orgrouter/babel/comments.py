"""Comments Babel writes into tangled files: link markers and Org text.

Emacs comments a region with the language's major mode (`comment-region`); we keep a
table of the comment syntax those modes use in ``emacs -Q`` (Emacs 28).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from orgrouter.babel.document import Document, normalize_link_text
from orgrouter.org.blocks import SrcBlock


@dataclass(frozen=True, slots=True)
class CommentSyntax:
    """How a mode comments one line: ``start`` + text + ``end``."""

    start: str
    end: str = ""


_LISP = CommentSyntax(";; ")
_HASH = CommentSyntax("# ")
_SLASHES = CommentSyntax("// ")
_C = CommentSyntax("/* ", " */")
_DASHES = CommentSyntax("-- ")
_PERCENT = CommentSyntax("% ")
SYNTAX: dict[str, CommentSyntax] = {
    **dict.fromkeys(["emacs-lisp", "elisp", "lisp", "scheme", "clojure", "fennel"], _LISP),
    **dict.fromkeys(
        ["sh", "shell", "bash", "zsh", "fish", "python", "ruby", "perl", "conf", "r",
         "makefile", "yaml", "toml", "awk", "org", "nix", "julia", "tcl", "powershell",
         "dockerfile", "gnuplot", "cmake", "elixir", "raku", "nim", "text"],
        _HASH,
    ),
    **dict.fromkeys(
        ["c++", "cpp", "java", "js", "javascript", "typescript", "go", "rust", "scala",
         "kotlin", "swift", "dart", "groovy", "php", "jsonc", "zig"],
        _SLASHES,
    ),
    **dict.fromkeys(["c", "css", "C"], _C),
    **dict.fromkeys(["sql", "lua", "haskell", "ada", "sqlite", "elm"], _DASHES),
    **dict.fromkeys(["latex", "tex", "matlab", "octave", "prolog", "erlang", "maxima"],
                    _PERCENT),
}  # fmt: skip


def comment_syntax(language: str) -> CommentSyntax:
    """Return the comment syntax for ``language`` (``# `` when unknown)."""
    return SYNTAX.get(language, SYNTAX.get(language.lower(), _HASH))


def comment_lines(text: str, syntax: CommentSyntax) -> str:
    """Comment every non-blank line of ``text`` and end it with a newline."""
    out = []
    for line in text.split("\n"):
        out.append(line if not line.strip() else f"{syntax.start}{line}{syntax.end}")
    return "\n".join(out) + "\n"


def link_escape(link: str) -> str:
    """Backslash-escape brackets (and backslashes before them), as org-link-escape."""
    return re.sub(
        r"(\\*)(\[|\]|\Z)", lambda m: m.group(1) * 2 + ("\\" if m.group(2) else "") + m.group(2),
        link,
    )


def search_option(doc: Document, block: SrcBlock) -> str | None:
    """Return the ``::search`` part org-store-link would give the block."""
    index = doc.heading_index(block.post_affiliated)
    if index is not None and doc.headings[index].custom_id:
        return "#" + (doc.headings[index].custom_id or "")
    if block.name:
        return block.name
    if index is None:
        line = doc.text[block.post_affiliated : block.contents_begin].rstrip("\n")
        context = normalize_link_text(line)
        while True:  # org-link--normalize-string with CONTEXT
            if context.startswith("(") and context.endswith(")"):
                context = context[1:-1].strip(" \t\n\r")
                continue
            match = re.match(r"[#*]+[ \t]*", context)
            if match and match.end() > 0:
                context = context[match.end() :]
                continue
            break
        return context or None
    return "*" + normalize_link_text(doc.headings[index].raw_title)


def block_link(doc: Document, block: SrcBlock, tangle_value: str) -> str:
    """Return the ``file:`` link to ``block``, relative to the tangled file's directory."""
    base = os.path.dirname(tangle_value)
    target_dir = os.path.normpath(os.path.join(doc.path.parent, os.path.expanduser(base)))
    relative = os.path.relpath(os.path.abspath(doc.path), os.path.abspath(target_dir))
    search = search_option(doc, block)
    text = relative if search is None else f"{relative}::{search}"
    return "file:" + link_escape(text)


def source_name(doc: Document, block: SrcBlock, counter: int) -> str:
    """Return the name Babel gives a block in comments: its #+name or HEADING:N."""
    if block.name:
        return block.name
    index = doc.heading_index(block.post_affiliated)
    title = doc.headings[index].title if index is not None else ""
    return f"{title or 'No heading'}:{counter}"


def org_text_before(doc: Document, block: SrcBlock, previous_end: int) -> str:
    """Return the Org text between the headline's meta data (or last block) and ``block``.

    Org 9.7 behaviour: the headline line and its property drawer are not included.
    """
    index = doc.heading_index(block.post_affiliated)
    start = doc.headings[index].body_begin if index is not None else 0
    return doc.text[max(start, previous_end) : block.post_affiliated]
