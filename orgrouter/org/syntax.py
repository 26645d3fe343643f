"""Org's element syntax as regular expressions (Org 9.5.5's org-element and org-list).

Each pattern is matched against one line's content (no line end). Names follow the Org
variable or parser they come from.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

# `org-element--affiliated-re': dual keywords may carry [secondary] text.
AFFILIATED_RE = re.compile(
    r"[ \t]*#\+(?:(CAPTION|RESULTS)(?:\[(.*)\])?|"
    r"(DATA|HEADERS?|LABEL|NAME|PLOT|RESNAME|RESULT|SOURCE|SRCNAME|TBLNAME)|"
    r"(ATTR_[-_A-Za-z0-9]+)):[ \t]*((?:.*[^ \t\n])?)[ \t]*$",
    re.IGNORECASE,
)
COMMENT_RE = re.compile(r"[ \t]*#(?: |$)")
CLOCK_RE = re.compile(r"[ \t]*CLOCK:")
LATEX_BEGIN_RE = re.compile(r"[ \t]*\\begin\{([A-Za-z0-9*]+)\}")
DRAWER_RE = re.compile(r"[ \t]*:((?:\w|[-_])+):[ \t]*$")
DRAWER_END_RE = re.compile(r"[ \t]*:END:[ \t]*$", re.IGNORECASE)
FIXED_WIDTH_RE = re.compile(r"[ \t]*:(?: |$)")
FIXED_MARK_RE = re.compile(r"^[ \t]*: ?")
COMMENT_MARK_RE = re.compile(r"^[ \t]*# ?")
HASH_PLUS_RE = re.compile(r"[ \t]*#\+")
BLOCK_BEGIN_RE = re.compile(r"[ \t]*#\+BEGIN_(\S+)", re.IGNORECASE)
EXPORT_BEGIN_RE = re.compile(r"[ \t]*#\+BEGIN_EXPORT(?:[ \t]+(\S+))?[ \t]*$", re.IGNORECASE)
EXAMPLE_BEGIN_RE = re.compile(r"[ \t]*#\+BEGIN_EXAMPLE(?: +(.*))?", re.IGNORECASE)
CALL_RE = re.compile(r"[ \t]*#\+CALL:[ \t]*((?:.*[^ \t\n\r])?)[ \t\r]*$", re.IGNORECASE)  # org-trim
DYNAMIC_BEGIN_RE = re.compile(r"[ \t]*#\+BEGIN:? ", re.IGNORECASE)
DYNAMIC_NAME_RE = re.compile(r"[ \t]*#\+BEGIN:[ \t]+(\S+)(?:[ \t]+(.*))?", re.IGNORECASE)
DYNAMIC_END_RE = re.compile(r"[ \t]*#\+END:?[ \t]*$", re.IGNORECASE)
KEYWORD_RE = re.compile(r"[ \t]*#\+(\S*):")
DUAL_BRACKET_RE = re.compile(r"[ \t]*#\+(\S+)\[.*\]:", re.IGNORECASE)
FOOTNOTE_RE = re.compile(r"\[fn:([-_\w]+)\]")
RULE_RE = re.compile(r"[ \t]*-{5,}[ \t]*$")
TABLE_RE = re.compile(r"[ \t]*\|")
TABLE_EL_RULE_RE = re.compile(r"[ \t]*\+(?:-+\+)+[ \t]*$")
TBLFM_RE = re.compile(r"[ \t]*#\+TBLFM: +((?:.*[^ \t\n])?)[ \t]*$", re.IGNORECASE)
# `org-item-re' with Org's defaults: no alphabetical bullets; "*" needs indentation.
ITEM_RE = re.compile(r"(?:[ \t]*(?:[-+]|[0-9]+[.)])|[ \t]+\*)(?:[ \t]+|$)")
# `org-list-full-item-re': bullet, counter, checkbox, description tag.
FULL_ITEM_RE = re.compile(
    r"[ \t]*((?:[-+*]|(?:[0-9]+|[A-Za-z])[.)])(?:[ \t]+|$))"
    r"(?:\[@(?:start:)?([0-9]+|[A-Za-z])\][ \t]*)?"
    r"(?:(\[[ X-]\])(?:[ \t]+|$))?"
    r"(?:(.*)[ \t]+::(?:[ \t]+|$))?"
)
# `org-element-paragraph-separate' (case-insensitive, as org-element parses).
SEPARATE_RE = re.compile(
    r"(?:\*+ |\[fn:[-_\w]+\]|%%\(|[ \t]*(?:$|\||\+(?:-+\+)+[ \t]*$"
    r"|#(?: |$|\+(?:BEGIN_\S+|\S+(?:\[.*\])?:[ \t]*))"
    r"|:(?: |$|[-_\w]+:[ \t]*$)|-{5,}[ \t]*$|\\begin\{([A-Za-z0-9*]+)\}|CLOCK:"
    r"|(?:[-+*]|[0-9]+[.)])(?:[ \t]|$)))",
    re.IGNORECASE,
)
# Affiliated keywords that name an element (org-element-keyword-translation-alist).
NAME_KEYWORDS = frozenset({"NAME", "DATA", "LABEL", "RESNAME", "SOURCE", "SRCNAME", "TBLNAME"})
BLANK = " \t"
CHECKBOX = {"[ ]": "off", "[X]": "on", "[-]": "trans"}
GREATER_BLOCKS = frozenset({"CENTER", "QUOTE"})

# The lines that close ``#+BEGIN_NAME`` (NAME in any case) and ``\begin{NAME}`` (at the
# line's end), with the NAME they close: Org's "#+END_%s" and "\\end{%s}" searches.
BLOCK_END_RE = re.compile(r"[ \t]*#\+END_(\S+)[ \t]*$", re.IGNORECASE)
LATEX_END_RE = re.compile(r".*\\end\{([A-Za-z0-9*]+)\}[ \t]*$")


class ClosingLines:
    """The lines that close blocks and LaTeX environments, indexed by what they close.

    One pass over the candidate lines and a lookup per opener: a file of thousands of
    differently named openers and closers stays linear, where a pattern per name
    tried on every closing line is quadratic.
    """

    def __init__(self, lines: Iterable[tuple[int, str]]) -> None:
        """Index ``lines``: (position, content) in increasing position."""
        self._at: dict[tuple[bool, str], list[int]] = {}
        for position, content in lines:
            for latex, pattern in ((False, BLOCK_END_RE), (True, LATEX_END_RE)):
                match = pattern.match(content)
                if match:
                    key = match.group(1) if latex else match.group(1).lower()
                    self._at.setdefault((latex, key), []).append(position)

    def first(self, name: str, after: int, limit: int, *, latex: bool = False) -> int | None:
        """Return the first position in [after, limit) of a line closing ``name``."""
        found = self._at.get((latex, name if latex else name.lower()), [])
        at = bisect_left(found, after)
        return found[at] if at < len(found) and found[at] < limit else None


def blank(content: str) -> bool:
    """Return whether a line is empty for Org's regexps (``[ \t]*$``)."""
    return content.strip(BLANK) == ""


def skippable(content: str) -> bool:
    """Return whether `skip-chars-forward' " \r\t\n" passes the whole line."""
    return content.strip(" \t\r") == ""


def indent_of(content: str) -> int:
    """Return the column of the first non-blank character (tabs to multiples of 8)."""
    indent = content[: len(content) - len(content.lstrip(BLANK))]
    return len(indent.expandtabs(8))
