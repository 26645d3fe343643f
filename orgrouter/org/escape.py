"""The one rule for text orgrouter inserts into a note: it never becomes structure or settings.

Text from a skill or a model lands inside a result headline's body. Org and Emacs would
read some lines of it as more than text:

- a headline (``^\\*+ ``) ends the result's subtree; a ``#+`` line sets ``#+TITLE``,
  ``#+TODO`` or ``#+SETUPFILE`` for the whole file;
- a drawer line (``:NAME:`` alone, ``:END:``) opens or closes a drawer, and a
  ``:ORGROUTER_...:`` line looks like orgrouter's own bookkeeping to a reader that scans
  lines (the privacy filter, search);
- Emacs's file-local variables: ``hack-local-variables`` searches the last 3000
  characters (after the last form feed) for ``Local Variables:``, case-insensitively and
  anywhere in a line, and evaluates an ``eval:`` entry; a ``-*- ... -*-`` cookie on the
  first line (the second after ``#!``) sets variables too;
- control characters (ESC sequences, BEL, form feed: a page break that moves where Emacs
  looks for local variables) are not text; a lone CR becomes the line break it shows as.

Each gets what Org itself does where Org has a way (the comma of
``org-escape-code-in-string``), else the smallest visible change that breaks the pattern
Emacs looks for. Every insertion path (``org.edit``, ``babel.detangle``,
``neuro.markdown``) calls these functions.
"""

from __future__ import annotations

import re

from orgrouter.org.blockspans import parsed_block_spans

# org-escape-code-in-string: a comma before ``*``, ``#+``, ``,*``, ``,#+`` at a line's start.
# Each line start is found as the "\n" before it (the text gets one in front): a
# literal the regex engine jumps to, where ``^`` is tried at every character (5x slower).
_CODE_RE = re.compile(r"\n([ \t]*)(,*(?:\*|#\+))")
# Lines Org or orgrouter reads as structure in safe Org: headlines (scan.py's ``^\*+ ``,
# and a line of stars alone, which a later edit could complete), keywords and blocks,
# comment lines (Markdown's ``# Title`` left as is), drawer lines, orgrouter's properties.
_STRUCTURAL_RE = re.compile(
    r"^(?:\*+(?: |$)|[ \t]*#\+|[ \t]*#(?:[ \t]|$)|[ \t]*:[\w-]*:[ \t]*$"
    r"|[ \t]*:ORGROUTER_)",
    re.IGNORECASE,
)
# Plain text keeps ``*bold*`` at a line's start escaped too (as Org escapes code); the
# drawer and property lines are the ones Org's own rule does not cover.
_DRAWER_RE = re.compile(r"\n([ \t]*)(:[\w-]*:[ \t]*$|:ORGROUTER_)", re.MULTILINE | re.IGNORECASE)
# files.el: (search-forward "Local Variables:") with case-fold-search t.
_LOCAL_VARIABLES_RE = re.compile(r"local variables:", re.IGNORECASE)
# Every "-*" followed by "-", overlaps included: replacing "-*-" left to right turns
# "-*-*-" into "-\\*-*-", which still holds a cookie Emacs reads (checked in Emacs 28.2).
_COOKIE_RE = re.compile(r"-\*(?=-)")
# C0 controls but tab and newline, DEL, and C1 controls (U+009B is a CSI to terminals).
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """Return ``text`` with LF line ends and no control characters but tab and newline.

    A lone CR is an old Mac line end (a line break, as before), a NUL the visible
    replacement character; every other control character is dropped.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    return _CONTROL_RE.sub("", text)


def defuse_settings(text: str) -> str:
    """Return ``text`` with nothing Emacs would take as file-local variables.

    ``Local Variables:`` becomes ``Local-Variables:`` and ``-*-`` becomes ``-\\*-``:
    Emacs looks for those exact strings, and a reader still sees what was written.
    """
    # Each pattern holds a literal ":" or "-*-": most text (titles, values) has neither,
    # and a case-insensitive search costs more than the look for the literal.
    if ":" in text:
        text = _LOCAL_VARIABLES_RE.sub(lambda m: m.group(0).replace(" ", "-", 1), text)
    return _COOKIE_RE.sub(r"-\\*", text) if "-*-" in text else text


def escape_code(text: str) -> str:
    """Add the comma Org adds before ``*``, ``#+``, ``,*``, ``,#+`` at a line's start."""
    return _CODE_RE.sub(r"\n\1,\2", "\n" + text)[1:]


def is_structural(line: str) -> bool:
    """Return whether Org (or orgrouter) would read ``line`` of safe Org as structure."""
    return _STRUCTURAL_RE.match(line) is not None


def comma(line: str) -> str:
    """Return ``line`` with Org's comma after its indentation."""
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)] + "," + body


def escape_line(line: str) -> str:
    """Return one line of safe Org with a comma in front when Org would read it as structure."""
    return comma(line) if is_structural(line) else line


def escape_safe(text: str) -> str:
    """Escape only the lines of safe Org that could still break the outline or settings.

    A ``^\\*+ `` line would end the result's subtree, a ``#+`` line could set
    ``#+TITLE``, ``#+TODO`` or ``#+SETUPFILE`` for the whole file, a drawer line could
    open a drawer; each gets Org's comma, and Emacs's local variables are defused. The
    begin and end lines of blocks Org parses (``blockspans``; headline lines do not end
    them, being escaped) stay, and every other line (``*bold*``, a list, a table, an
    already escaped ``,*``) is left as it is.
    """
    text = strip_controls(text)
    keep = {at for b in parsed_block_spans(text, body=True) for at in (b.begin, b.close)}
    out = []
    start = 0
    for line in text.split("\n"):
        out.append(line if start in keep else escape_line(line))
        start += len(line) + 1
    return defuse_settings("\n".join(out))


def escape_plain(text: str) -> str:
    """Return plain text (not Org) as body lines that are only text."""
    text = escape_code(strip_controls(text))
    return defuse_settings(_DRAWER_RE.sub(r"\n\1,\2", "\n" + text)[1:])


def safe_line(text: str) -> str:
    """Return ``text`` as one line of text: a title, a property value, an echo."""
    return defuse_settings(" ".join(strip_controls(text).split("\n")).strip())


TRUNCATED = "… (truncated)"


def cap_body(text: str, limit_bytes: int) -> str:
    """Return ``text`` cut at a line end within ``limit_bytes`` UTF-8 bytes, saying so.

    The cut is made before escaping, which adds at most one comma a line.
    """
    data = text.encode("utf-8")
    if len(data) <= limit_bytes:
        return text
    kept = data[:limit_bytes].decode("utf-8", "ignore")
    cut = kept.rfind("\n")
    kept = kept[:cut] if cut > 0 else kept
    return f"{kept.rstrip()}\n{TRUNCATED} {len(data) - len(kept.encode('utf-8')):,} more bytes"


def cap_line(text: str, limit_chars: int) -> str:
    """Return ``text`` cut to ``limit_chars`` characters with an ellipsis when longer."""
    if len(text) <= limit_chars:
        return text
    return text[: max(1, limit_chars - 1)].rstrip() + "…"
