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
    blank_lines: bool = False  # fortran-comment-region comments empty lines too


_LISP = CommentSyntax(";; ")
_HASH = CommentSyntax("# ")
_SLASHES = CommentSyntax("// ")
_C = CommentSyntax("/* ", " */")
_DASHES = CommentSyntax("-- ")
_PERCENTS = CommentSyntax("%% ")
_SGML = CommentSyntax("<!-- ", " -->")
# Checked against `emacs -Q' (Org 9.5.5): the mode Org picks for each language and the
# text `comment-region' writes there. Languages with no mode in `emacs -Q' make Emacs
# fail ("no comment syntax"); for those we use the language's usual comment.
SYNTAX: dict[str, CommentSyntax] = {
    **dict.fromkeys(["emacs-lisp", "elisp", "lisp", "scheme"], _LISP),
    **dict.fromkeys(["sh", "shell", "bash", "zsh", "awk", "conf", "makefile", "org",
                     "perl", "python", "ruby"], _HASH),
    **dict.fromkeys(["C++", "cpp", "java", "js", "javascript"], _SLASHES),
    **dict.fromkeys(["C", "c", "css"], _C),
    "sql": _DASHES,
    **dict.fromkeys(["latex", "tex", "prolog"], _PERCENTS),
    "octave": CommentSyntax("## "),
    "fortran": CommentSyntax("c$$$", blank_lines=True),
    **dict.fromkeys(["html", "xml"], _SGML),
    # No mode under `emacs -Q': the languages' own comment syntax.
    **dict.fromkeys(["clojure", "clojurescript", "fennel", "racket"], _LISP),
    **dict.fromkeys(["R", "r", "yaml", "toml", "nix", "julia", "gnuplot", "sed", "text",
                     "fish", "powershell", "dockerfile", "cmake", "elixir", "raku", "nim",
                     "tcl", "ditaa"], _HASH),
    **dict.fromkeys(["go", "rust", "typescript", "scala", "kotlin", "swift", "dart",
                     "groovy", "php", "zig", "js2", "dot", "D"], _SLASHES),
    **dict.fromkeys(["haskell", "lua", "elm", "ada", "sqlite"], _DASHES),
    **dict.fromkeys(["matlab", "erlang"], CommentSyntax("% ")),
    "maxima": _C,
    "ocaml": CommentSyntax("(* ", " *)"),
    "plantuml": CommentSyntax("' "),
}  # fmt: skip


def comment_syntax(language: str) -> CommentSyntax:
    """Return the comment syntax for ``language`` (``# `` when unknown)."""
    return SYNTAX.get(language, SYNTAX.get(language.lower(), _HASH))


def comment_lines(text: str, syntax: CommentSyntax) -> str:
    """Comment every non-blank line of ``text`` and end it with a newline."""
    lines = text.split("\n")
    # The region ends where the text does: a final newline leaves an empty last line
    # outside it.
    last = len(lines) - 1 if lines[-1] == "" and len(lines) > 1 else len(lines)
    out = [
        line
        if i >= last or (not line.strip() and not syntax.blank_lines)
        else f"{syntax.start}{line}{syntax.end}"
        for i, line in enumerate(lines)
    ]
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
            elif (match := re.match(r"[#*]+[ \t]*", context)) is not None:
                context = context[match.end() :]
            else:
                break
        return context or None
    return "*" + normalize_link_text(doc.headings[index].raw_title)


def block_link(doc: Document, block: SrcBlock, tangle_value: str) -> str:
    """Return the ``file:`` link to ``block``, relative to the tangled file's directory.

    As Org 9.5 does, the whole ``FILE::search`` goes through ``file-relative-name``, so
    a headline holding ``//`` or ``a/../b`` changes the link (Emacs writes the same).
    """
    path = os.path.abspath(doc.path)
    base = os.path.expanduser(os.path.dirname(tangle_value))
    directory = os.path.join(os.path.dirname(path), base)
    search = search_option(doc, block)
    link = path if search is None else f"{path}::{search}"
    return "file:" + relative_name(link_escape(link), directory)


def _expand(name: str) -> str:
    """Return absolute ``name`` as Emacs's ``expand-file-name`` folds it, without the disk.

    ``//`` and ``.`` go, ``..`` drops the component before it; at the root ``/..``
    stays (Emacs's "superroot"), and a ``..`` after it drops it. A final ``/`` stays.
    """
    parts: list[str] = []
    for part in name.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts:
            parts.pop()
        else:
            parts.append(part)
    return "/" + "/".join(parts) + ("/" if parts and name.endswith("/") else "")


def relative_name(filename: str, directory: str) -> str:
    """Return ``filename`` relative to ``directory`` as Emacs's ``file-relative-name`` does."""
    filename = _expand(filename)
    directory = _expand(directory).rstrip("/") + "/"
    as_directory = filename.rstrip("/") + "/"
    ancestor = "."
    while not (as_directory.startswith(directory) or filename.startswith(directory)):
        directory = directory[: directory.rfind("/", 0, len(directory) - 1) + 1]
        ancestor = ".." if ancestor == "." else "../" + ancestor
    if not filename.startswith(directory):
        return ancestor  # FILENAME is DIRECTORY or one of its ancestors
    rest = filename[len(directory) :]
    return rest if ancestor == "." and rest else f"{ancestor}/{rest}"


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
