"""Process a src block body as Org 9.5 does before writing it: indentation and trims."""

from __future__ import annotations

import re

from orgrouter.org.syntax import indent_of

TAB_WIDTH = 8  # Emacs's default `tab-width' in the temp buffers Babel uses
_NON_BLANK_RE = re.compile(r"^[ \t]*[^ \t\n\r\f\v]", re.MULTILINE)


def _cut_to_column(line: str, column: int) -> str:
    """Keep ``line``'s indentation up to ``column`` (as `indent-line-to' lowering it)."""
    kept: list[str] = []
    current = 0
    pos = 0
    while pos < len(line) and line[pos] in " \t" and current < column:
        ch = line[pos]
        width = 1 if ch == " " else (current // TAB_WIDTH + 1) * TAB_WIDTH - current
        if current + width > column:
            # `move-to-column' with FORCE turns a tab that spans the column into spaces.
            kept.append(" " * (column - current))
            current = column
        else:
            kept.append(ch)
            current += width
        pos += 1
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    return "".join(kept) + line[pos:]


def remove_indentation(code: str) -> str:
    """Remove the common indentation of ``code`` (org-remove-indentation)."""
    minimum: int | None = None
    for match in _NON_BLANK_RE.finditer(code):
        width = indent_of(match.group(0))
        if width == 0:
            return code
        minimum = width if minimum is None else min(minimum, width)
    if minimum is None:
        return code
    # A blank line loses its whitespace.
    out = [
        _cut_to_column(line, indent_of(line) - minimum) if line.lstrip(" \t") else ""
        for line in code.split("\n")
    ]
    return "\n".join(out)


def org_trim(text: str) -> str:
    """Strip leading and trailing spaces, tabs, CRs and newlines (org-trim)."""
    return text.strip(" \t\n\r")


def normalize_body(value: str) -> str:
    """Return the body Babel starts from: final newline dropped, indentation removed."""
    if value.endswith("\n"):
        value = value[:-1]
    return remove_indentation(value)


def coderef_regexp(label_format: str) -> re.Pattern[str]:
    """Return the pattern of a coderef label, as org-src-coderef-regexp builds it."""
    pieces = re.escape(label_format).split("%s")
    label = r"([-a-zA-Z0-9_][-a-zA-Z0-9_ ]*)"
    return re.compile(r"([ \t]*(" + label.join(pieces) + r")[ \t]*)$", re.MULTILINE)


def label_format(switches: str | None) -> str:
    """Return the coderef label format a block's ``-l`` switch sets, else Org's default."""
    if switches:
        match = re.search(r'-l +"([^"]+)"', switches)
        if match:
            return match.group(1)
    return "(ref:%s)"


def remove_coderefs(body: str, switches: str | None) -> str:
    """Delete coderef labels from ``body`` (the ``-r`` switch)."""
    return coderef_regexp(label_format(switches)).sub("", body)
