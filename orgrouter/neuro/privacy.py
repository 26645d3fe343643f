"""What is private: the one rule every reader of notes uses (routing, search, models).

A headline is private when a privacy tag (``privacy.tags``, default ``@personal``)
applies to it as Org applies tags: on the headline itself, on an ancestor (tags are
inherited), or on the file, by ``#+FILETAGS`` in the file or in a local
``#+SETUPFILE`` it names (``org.settings`` reads those, as Org does). Private text
never goes to a model, and never into a result outside a private subtree. orgrouter's
own results are left out of what a model sees as well: they are answers, not the
user's notes, and a model reading them would answer itself.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

from orgrouter.org.headline import line_tags

_HEADLINE = re.compile(r"^(\*+) ")
_RESULT_PROPERTY = re.compile(r"^[ \t]*:ORGROUTER_RESULT:", re.IGNORECASE)
_DRAWER_END = re.compile(r"^[ \t]*:END:[ \t]*$", re.IGNORECASE)
# A first line after a BOM counts: Emacs drops the BOM when it visits the file.
_FILE_SETTING = re.compile(
    rb"^(?:\xef\xbb\xbf)?[ \t]*#\+(?:FILETAGS|SETUPFILE):", re.IGNORECASE | re.MULTILINE
)


def is_private(tags: Iterable[str], privacy_tags: Collection[str]) -> bool:
    """Return whether any of a headline's tags (inherited and file tags included) is private.

    Case is ignored (Org's tags are case-sensitive): ``:@Personal:`` was meant private.
    """
    private = {tag.casefold() for tag in privacy_tags}
    return any(tag.casefold() in private for tag in tags)


def private_headlines(data: bytes, path: Path | None, privacy_tags: Collection[str]) -> set[int]:
    """Return the 1-based lines of the headlines of a note (valid UTF-8) that are private."""
    from orgrouter.org.document import Document
    from orgrouter.org.settings import InBufferSettings

    if not privacy_tags:
        return set()
    # A private tag is written in the note (a headline's tags, #+FILETAGS), unless a
    # #+SETUPFILE brings file tags from elsewhere; casefolding maps each character on
    # its own, so a tag's folded form is in the folded text. Without one, no headline
    # is private and the note need not be parsed (search vouches for each hit's file).
    folded = data.decode("utf-8", "replace").casefold()
    if "setupfile" not in folded and not any(t.casefold() in folded for t in privacy_tags):
        return set()
    # Without a #+FILETAGS or #+SETUPFILE line the file tags are none: the text need
    # not be read for them. A CR before a LF is dropped in any file (newline CRLF),
    # so a mixed-line-end file's tags are still seen: privacy errs on the safe side.
    settings = None if _FILE_SETTING.search(data) else InBufferSettings()
    document = Document(data, path, newline=b"\r\n", settings=settings)
    tags = document.tags
    return {e.line for e in document.entries if is_private(tags(e.index), privacy_tags)}


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
                is_private(line_tags(line.rstrip("\r\n")), privacy_tags) or _is_result(lines, index)
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
