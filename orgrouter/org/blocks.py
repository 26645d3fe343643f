"""Find src blocks the way org-element does (Org 9.5), with their header arguments.

A ``#+begin_src`` line opens a block only when a matching ``#+end_src`` line comes
before the next headline; ``#+begin_src`` lines inside other lesser blocks (example,
export, comment, verse, src) are plain text. Offsets are character offsets into the
``str`` given (nothing asked for byte offsets: ``lines.Offsets`` converts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orgrouter.org.blockspans import line_at, line_text, parsed_block_spans
from orgrouter.org.syntax import AFFILIATED_RE, NAME_KEYWORDS

# org-element-src-block-parser's begin-line regexp: language, switches, parameters.
# Only spaces (not tabs) separate the language, as in Org.
SRC_BEGIN_RE = re.compile(
    r"[ \t]*#\+BEGIN_SRC(?: +(\S+))?"
    r"((?: +(?:-(?:l \".+\"|[ikr])|[-+]n(?: *[0-9]+)?))+)?"
    r"((?:.*[^ \t\n])?)[ \t]*$",
    re.IGNORECASE,
)
# org-unescape-code-in-string: drop the first comma of ",*", ",#+", ",,*", ...
_UNESCAPE_RE = re.compile(r"^([ \t]*,*),(?=\*|#\+)", re.MULTILINE)
_WS = " \f\t\n\r\v"
_ARG_RE = re.compile(r"([^ \f\t\n\r\v]+)[ \f\t\n\r\v]+([^ \f\t\n\r\v]+.*)")
_QUOTED_RE = re.compile(r'^\s*"(.*)"\s*$', re.DOTALL)


@dataclass(frozen=True, slots=True)
class SrcBlock:
    """One src block element; offsets count characters of the text given."""

    begin: int  # first affiliated keyword line (else the begin line), characters
    post_affiliated: int  # the #+begin_src line
    contents_begin: int  # the line after #+begin_src
    contents_end: int  # the #+end_src line's start
    end: int  # past the #+end_src line and any blank lines after it (org-element :end)
    line: int  # 1-based line of #+begin_src
    end_line: int  # 1-based line of #+end_src
    language: str | None
    switches: str | None
    parameters: str | None  # the raw header-argument text of the begin line
    name: str | None  # #+name (or a synonym); the nearest one wins
    headers: tuple[str, ...]  # #+HEADER:/#+HEADERS: values, in document order
    raw_value: str  # the text between the begin and end lines, still escaped
    post_blank: int

    @property
    def value(self) -> str:
        """Return the body as Org sees it (escapes removed), final newline kept."""
        return unescape(self.raw_value)


def unescape(text: str) -> str:
    """Remove the comma Org adds before ``*`` and ``#+`` at a line's start."""
    return _UNESCAPE_RE.sub(r"\1", text)


def balanced_split(text: str) -> list[str]:
    """Split ``text`` at ``:`` after a space or tab, outside brackets and quotes.

    This is org-babel-balanced-split with ALTS ((32 9) . 58): the space and the
    colon are dropped, parentheses/brackets and double quotes protect their contents.
    """
    pieces: list[str] = []
    partial: list[str] = []
    balance = 0
    quoted = False
    last = ""
    for ch in text:
        if ch in "([":
            balance += 1
        elif ch in ")]":
            balance -= 1
        if ch == '"' and last != "\\":
            quoted = not quoted
        partial.append(ch)
        if balance == 0 and not quoted and ch == ":" and last in (" ", "\t"):
            pieces.append("".join(partial[:-2]))
            partial = []
        last = ch
    pieces.append("".join(partial))
    return pieces


def parse_header_args(text: str) -> list[tuple[str, str | None]]:
    """Split a header-argument string into (``:key``, raw value) pairs, in order.

    Follows org-babel-parse-header-arguments: text before the first ``:key`` (a begin
    line's stray words) comes back as its own key; values are not evaluated, and a
    quoted value keeps its quotes (see :func:`read_value`).
    """
    if not text.strip(_WS):
        return []
    raw = balanced_split(text)
    args = [raw[0]] + [":" + piece for piece in raw[1:]]
    pairs: list[tuple[str, str | None]] = []
    for arg in args:
        match = _ARG_RE.search(arg)
        if match:
            pairs.append((match.group(1), match.group(2).rstrip(_WS)))
        else:
            key = arg.rstrip(_WS)
            if key:
                pairs.append((key, None))
    return pairs


def read_value(value: str) -> str:
    """Return a header value as org-babel-read sees it without evaluating Lisp.

    A value wholly in double quotes with no unescaped quote inside is read as a
    Lisp string (quotes dropped, backslash escapes resolved); anything else is kept.
    """
    match = _QUOTED_RE.match(value)
    if match is None or re.search(r'[^\\]"', match.group(1)):
        return value
    return _LISP_ESCAPE_RE.sub(_lisp_escape, match.group(1))


# The escapes of Emacs Lisp string syntax that header values use in practice.
_LISP_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a",
                 "b": "\b", "e": "\x1b", "s": " ", "d": "\x7f", "\n": ""}
_LISP_ESCAPE_RE = re.compile(r"\\(x[0-9A-Fa-f]+;?|[0-7]{1,3}|.)", re.DOTALL)


def _lisp_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "x" and len(code) > 1:
        return chr(int(code[1:].rstrip(";"), 16))
    if code[0] in "01234567":
        return chr(int(code, 8))
    return _LISP_ESCAPES.get(code, code)


def find_src_blocks(text: str) -> list[SrcBlock]:
    """Return every src block element of an Org document, in document order."""
    blocks: list[SrcBlock] = []
    line_no = 1
    counted_to = 0
    for block in parsed_block_spans(text):
        if block.name.upper() != "SRC":
            continue
        start = block.begin
        parts = SRC_BEGIN_RE.match(line_text(text, start))
        if parts is None:  # "#+begin_src" glued to more text: a special block name
            continue
        line_no += text.count("\n", counted_to, start)
        counted_to = start
        first, name, headers = _affiliated(text, start)
        blank_end, post_blank = _skip_blank_lines(text, block.end)
        switches = parts.group(2).strip() if parts.group(2) else None
        blocks.append(
            SrcBlock(
                begin=first,
                post_affiliated=start,
                contents_begin=block.contents,
                contents_end=block.close,
                end=blank_end,
                line=line_no,
                end_line=line_no + text.count("\n", start, block.close),
                language=parts.group(1),
                switches=switches,
                parameters=parts.group(3).strip() or None,
                name=name,
                headers=headers,
                raw_value=text[block.contents : block.close],
                post_blank=post_blank,
            )
        )
    return blocks


def _affiliated(text: str, start: int) -> tuple[int, str | None, tuple[str, ...]]:
    """Return the first affiliated line's offset, the name and #+HEADER values."""
    first = start
    name: str | None = None
    headers: list[str] = []
    while first > 0:  # the lines above, nearest first
        above = text.rfind("\n", 0, first - 1) + 1
        match = AFFILIATED_RE.match(line_text(text, above))
        if match is None:
            break
        first = above
        keyword = (match.group(3) or "").upper()
        if keyword in NAME_KEYWORDS and name is None:
            name = match.group(5).strip()  # walking upward: the nearest one wins
        elif keyword in ("HEADER", "HEADERS"):
            headers.append(match.group(5).strip())
    headers.reverse()
    return first, name, tuple(headers)


def _skip_blank_lines(text: str, pos: int) -> tuple[int, int]:
    """Return the offset past the blank lines from ``pos`` and how many there were."""
    count = 0
    while pos < len(text):
        line, following = line_at(text, pos)
        if line.strip(" \t\r"):
            break  # a headline line ends them too, being text
        pos, count = following, count + 1
    return pos, count
