"""Keep privacy-tagged subtrees, and orgrouter's own results, out of model requests.

A request's own inherited tags are checked by the router (``Request.private``); this
module handles what lies below it: a section sent to a model may contain a child
headline tagged ``@personal``, and that child's whole subtree must stay home.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_HEADLINE = re.compile(r"^(\*+) ")
# Org's tags: a run of :tag: at the end of the headline, after whitespace.
_TAGS = re.compile(r"[ \t]+:([^\s:]+(?::[^\s:]+)*):[ \t]*$")
_RESULT_PROPERTY = re.compile(r"^[ \t]*:ORGROUTER_RESULT:", re.IGNORECASE)
_DRAWER_END = re.compile(r"^[ \t]*:END:[ \t]*$", re.IGNORECASE)


def headline_tags(line: str) -> list[str]:
    """Return the tags written at the end of a headline line."""
    found = _TAGS.search(line.rstrip("\n"))
    return found.group(1).split(":") if found else []


def _is_result(lines: list[str], index: int) -> bool:
    """Return whether the headline at ``index`` carries an ORGROUTER_RESULT property."""
    for line in lines[index + 1 : index + 12]:
        if _RESULT_PROPERTY.match(line):
            return True
        if _DRAWER_END.match(line) or _HEADLINE.match(line):
            return False
    return False


def shareable(text: str, privacy_tags: Collection[str]) -> str:
    """Return ``text`` without its privacy-tagged subtrees and orgrouter's results."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    dropping_below: int | None = None  # the level of the subtree being dropped
    for index, line in enumerate(lines):
        heading = _HEADLINE.match(line)
        if heading:
            level = len(heading.group(1))
            if dropping_below is not None and level <= dropping_below:
                dropping_below = None
            if dropping_below is None and (
                any(tag in privacy_tags for tag in headline_tags(line)) or _is_result(lines, index)
            ):
                dropping_below = level
        if dropping_below is None:
            kept.append(line)
    return "".join(kept)


def private_note(privacy_tags: Collection[str]) -> str:
    """Return the body of the result that answers a private request instead of a model."""
    tags = ", ".join(privacy_tags)
    return (
        f"This subtree is private (tagged {tags}, inherited), so nothing from it was "
        "sent to a model. Remove the tag, or answer it yourself."
    )
