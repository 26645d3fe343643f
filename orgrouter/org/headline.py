"""Parse one headline line the way Org 9.5's `org-element-headline-parser' does.

Differences from orgparse that matter (Emacs is the reference):
- tags are ``[[:alnum:]_@#%]`` words, so ``:a#b:`` and ``:%c:`` are tags; Emacs's
  ``[:alnum:]`` is Unicode-aware (letters, marks, decimal and letter numbers);
- tags need whitespace before them: ``* foo:bar:`` has no tags;
- ``COMMENT`` is recognised as a prefix, case-sensitively, after any TODO keyword and
  priority cookie (so ``* COMMENTARY`` is commented, with raw title ``ARY``);
- a TODO keyword counts only when a space (not a tab) follows it;
- only ``[ \\t]`` separate tags from the title: a line ending in ``\\r`` or ``\\f`` has
  no tags, and the raw title keeps the ``\\f`` (Org's `org-trim' drops only
  spaces, tabs, CR and LF).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from orgrouter.org.todo import DEFAULT_TODO, TodoKeywords
from orgrouter.records import NamedTuple

ARCHIVE_TAG = "ARCHIVE"  # `org-archive-tag'
COMMENT_WORD = "COMMENT"  # `org-comment-string'

# Emacs's [:alnum:] outside ASCII: Unicode general categories L*, M*, Nd and Nl
# (checked against Emacs 28.2 for every code point).
_ALNUM_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl"})
_TAG_PUNCT = frozenset("_@#%:")
_TRIM = " \t\n\r"


@lru_cache(maxsize=4096)
def _non_ascii_alnum(char: str) -> bool:
    return unicodedata.category(char) in _ALNUM_CATEGORIES


def is_tag_char(char: str) -> bool:
    """Return whether ``char`` may appear in a tag group (``[[:alnum:]_@#%:]``)."""
    if char.isascii():
        return char.isalnum() or char in _TAG_PUNCT
    return _non_ascii_alnum(char)


def split_tags(text: str) -> list[str]:
    """Split text on colons as `org-split-string' does: ends ignored, inner empties kept."""
    pieces = text.split(":")
    if len(pieces) == 1:
        return pieces
    if pieces[0] == "":
        del pieces[0]
    if pieces[-1] == "":
        del pieces[-1]
    return pieces


class Headline(NamedTuple):
    """The parts of one headline line (Org's `headline' element, title as raw text)."""

    level: int  # number of stars (not Org's :level, which #+STARTUP: odd halves)
    raw: str  # `:raw-value': title without keyword, priority, COMMENT and tags
    todo: str | None = None
    priority: str | None = None
    commented: bool = False
    archived: bool = False
    tags: list[str] = []  # noqa: RUF012 -- own tags only, in order; never changed in place


def _find_tags(line: str, start: int) -> tuple[int, list[str]] | None:
    """Return (title end, tags) when ``line[start:]`` ends in a tag group."""
    # Org searches "[ \t]+\(:[[:alnum:]_@#%:]+:\)[ \t]*$" forward from the title
    # start; the leftmost match begins at the whitespace run before the last word.
    end = start + len(line[start:].rstrip(" \t"))
    if end - start < 4 or line[end - 1] != ":":
        return None
    first = max(line.rfind(" ", start, end - 1), line.rfind("\t", start, end - 1)) + 1
    if first <= start or end - first < 3 or line[first] != ":":
        return None
    if not all(is_tag_char(char) for char in line[first:end]):
        return None
    return start + len(line[start:first].rstrip(" \t")), split_tags(line[first:end])


def line_tags(line: str, todo: TodoKeywords = DEFAULT_TODO) -> list[str]:
    """Return a headline's own tags as `org-get-tags' reads them (tag inheritance, agenda).

    Org 9.5 reads them with `org-tag-line-re' (a tag group after any blank of the
    line), not with the element parser: ``* TODO :a:`` and ``* [#A] :a:`` have no tags to
    `org-element-headline-parser' (the blank before the group went with the keyword)
    but tag ``a`` to `org-get-tags'. The parser's tags are kept for writing; these
    decide inheritance and privacy, where missing a tag Org sees is a leak.
    """
    if line.endswith("\n"):
        line = line[:-1]
    tags = parse_headline(line, todo).tags
    if tags:
        return tags
    stars = len(line) - len(line.lstrip("*"))
    found = _find_tags(line, stars) if line.startswith(" ", stars) else None
    return [] if found is None else found[1]


def parse_headline(line: str, todo: TodoKeywords = DEFAULT_TODO) -> Headline:
    """Parse one headline line (with or without its newline) into a ``Headline``."""
    if line.endswith("\n"):
        line = line[:-1]
    length = len(line)
    # Not a loop per star: 10,000 levels of nesting are 50 MB of stars (7 s of a run).
    level = pos = length - len(line.lstrip("*"))
    if level == 0 or pos >= length or line[pos] != " ":
        raise ValueError(f"not a headline line: {line[:40]!r}")
    pos = length - len(line[pos:].lstrip(" \t"))
    keyword = todo.match(line, pos)
    if keyword is not None:
        pos = length - len(line[pos + len(keyword) + 1 :].lstrip(" \t"))
    priority = None
    if line.startswith("[#", pos) and pos + 3 < length and line[pos + 3] == "]":
        priority = line[pos + 2]
        pos = length - len(line[pos + 4 :].lstrip(" \t"))
    commented = line.startswith(COMMENT_WORD, pos)
    if commented:
        pos += len(COMMENT_WORD)
    title_start = pos
    if keyword is None and priority is None and not commented:
        # A headline like "* :tag:": the blank after the stars may precede the tags.
        title_start = level
    found = _find_tags(line, title_start)
    title_end, tags = (length, []) if found is None else found
    raw = line[title_start:title_end].strip(_TRIM)
    return Headline(level, raw, keyword, priority, commented, ARCHIVE_TAG in tags, tags)
