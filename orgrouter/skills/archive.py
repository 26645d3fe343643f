"""The ``archive`` executor: what ``org-archive-subtree`` does, once the user approved.

Facts of Org 9.5's org-archive.el it follows (and tests/executors checks live):

- the location is the subject's ``ARCHIVE`` property (inherited, ``#+PROPERTY`` too),
  else the file's ``#+ARCHIVE:`` keyword, else ``org-archive-location``'s default
  ``%s_archive::``; ``%s`` is the file's name, the part before ``::`` the archive file
  (relative to the note; empty: the note itself), the part after it a heading;
- a new archive file starts with ``org-archive-file-header-format``, after the mode
  line Org inserts when the file name does not make Emacs use Org mode;
- without a heading the subtree goes at the end, after a newline, at level 1; with one
  (found case-insensitively, else appended), as its last child, after one blank line;
- the archived headline gets ARCHIVE_TIME, ARCHIVE_FILE, ARCHIVE_OLPATH,
  ARCHIVE_CATEGORY, ARCHIVE_TODO and ARCHIVE_ITAGS (each only when not empty); inside
  the same file it also gets the tags it inherited.

"tag it archived" (``org-toggle-archive-tag``) only adds ``:ARCHIVE:`` to it.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from orgrouter.org.document import Document
from orgrouter.org.edit import SetProperty, edit_bytes
from orgrouter.org.headline import ARCHIVE_TAG
from orgrouter.org.outline import subtree_end_after
from orgrouter.org.scan import BOM
from orgrouter.org.subtree import align_tags, at_level
from orgrouter.skills.base import Context, Sensor, Stimulus
from orgrouter.skills.executor import (
    ExecutorSkill,
    Move,
    Plan,
    Subject,
    Unclear,
    binding,
    bound_name,
    index_at_line,
    inherited_privacy,
    outline_title,
    relative_name,
    resolve_subjects,
    where_note,
    write_problem,
)

DEFAULT_LOCATION = "%s_archive::"
HEADER = "\nArchived entries from file {}\n\n"  # org-archive-file-header-format
MODE_LINE = "#    -*- mode: org -*-\n\n"  # what `org-mode' puts in an empty non-.org file
_TAG_VARIANT = re.compile(
    r"\b(?:archive[ -]tag|tag\w*\s+(?:it|this|them)?\s*(?:as\s+)?archived)\b", re.I
)
_TAG_WORDS = re.compile(r"\b(?:with\s+)?(?:the\s+)?archive[ -]tag\b|\b(?:as\s+)?archived\b", re.I)
# A keyword's value without trailing blanks, in linear time ("(.*?)[ \t]*$" is
# quadratic in a line of blanks: tests/security/test_hostile_lines.py).
_VALUE = rb"[ \t]*((?:.*[^ \t\r\n])?)[ \t]*\r?$"
_CATEGORY_KEYWORD = re.compile(rb"^[ \t]*#\+CATEGORY:" + _VALUE, re.I | re.M)


def archive_time(now: datetime) -> str:
    """Return ARCHIVE_TIME as Org writes it (``%Y-%m-%d %a %H:%M``, English day names)."""
    from orgrouter.skills.dates import org_timestamp

    return org_timestamp(now.date(), f"{now:%H:%M}").strip("<>")


def abbreviate(path: str) -> str:
    """Return ``path`` with the home directory as ``~`` (``abbreviate-file-name``)."""
    home = os.path.expanduser("~").rstrip("/")
    if home and home != "/" and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def inherited_property(document: Document, index: int, key: str) -> str | None:
    """Return property ``key`` of headline ``index`` or its nearest ancestor having it."""
    for at in (index, *document.outline.ancestors(index)):
        drawer = document.head(at).drawer
        found = drawer.get(key) if drawer is not None else None
        if found is not None:
            return found.value
    return None


def location_of(document: Document, index: int) -> str:
    """Return the archive location in force at headline ``index``."""
    found = inherited_property(document, index, "ARCHIVE")
    if found is not None:
        return found
    value = document.settings.property("ARCHIVE")
    if value is not None:
        return value
    keyword = _archive_keyword(document.data)
    return DEFAULT_LOCATION if keyword is None else keyword


@functools.lru_cache(maxsize=4)  # once per note, not once per subject archived
def _archive_keyword(data: bytes) -> str | None:
    """Return the note's ``#+ARCHIVE:`` value, if any.

    Org reads it anywhere in the buffer and the first one wins, empty or not
    (`org-collect-keywords' lists ARCHIVE as unique).
    """
    from orgrouter.org.settings import first_keyword

    # Emacs drops a BOM as it visits the file: a first line after one is a keyword.
    return first_keyword(data.removeprefix(BOM).decode("utf-8", "replace"), "ARCHIVE")


@functools.lru_cache(maxsize=4)
def _category_keyword(data: bytes) -> str | None:
    """Return the value of the note's last ``#+CATEGORY:`` line, if any."""
    found = _CATEGORY_KEYWORD.findall(data.removeprefix(BOM))
    return str(found[-1].decode("utf-8", "replace")) if found else None


def split_location(location: str, source: Path) -> tuple[Path | None, str]:
    """Return the archive file (None: the same file) and heading of ``location``."""
    if "::" not in location:
        raise Unclear(
            "Clarification needed: invalid archive location",
            f"The archive location {location!r} has no '::' (Org's format is FILE::HEADING); "
            "fix the ARCHIVE property or #+ARCHIVE: line.",
        )
    file_part, _, heading_part = location.partition("::")
    if heading_part.startswith("datetree/"):
        raise Unclear(
            "Clarification needed: datetree archive locations are not supported",
            f"The archive location {location!r} asks for a date tree, which orgrouter does "
            "not build; archive it from Emacs, or name a file and heading (FILE::* Heading).",
        )
    name = source.name
    heading = heading_part.replace("%s", name)
    if not file_part.strip():
        return None, heading
    target = Path(os.path.expanduser(file_part.replace("%s", name)))
    if not target.is_absolute():
        target = source.parent / target
    return Path(os.path.abspath(target)), heading


def context_of(
    document: Document, index: int, now: datetime, source: Path
) -> list[tuple[str, str]]:
    """Return the ARCHIVE_* properties of headline ``index``, in Org's order."""
    headline = document.headline(index)
    path: list[str] = []
    for at in document.outline.ancestors(index):
        above = document.headline(at)
        # org-get-outline-path takes the title group of `org-complex-heading-regexp',
        # which keeps a COMMENT keyword (unlike :raw-value).
        path.insert(0, outline_title(f"COMMENT {above.raw}" if above.commented else above.raw))
    own = set(document.own_tags(index))
    inherited = [tag for tag in document.tags(index) if tag not in own]
    pairs = [
        ("ARCHIVE_TIME", archive_time(now)),
        ("ARCHIVE_FILE", abbreviate(os.path.abspath(source))),
        ("ARCHIVE_OLPATH", "/".join(path)),
        ("ARCHIVE_CATEGORY", category_of(document, index, source)),
        ("ARCHIVE_TODO", headline.todo or ""),
        ("ARCHIVE_ITAGS", " ".join(inherited)),
    ]
    return [(key, value) for key, value in pairs if value.strip()]


def category_of(document: Document, index: int, source: Path) -> str:
    """Return ``org-get-category``: the CATEGORY property, ``#+CATEGORY``, else the file name."""
    found = inherited_property(document, index, "CATEGORY")
    if found is not None:
        return found
    value = document.settings.property("CATEGORY")
    keyword = _category_keyword(document.data)
    if keyword is not None:
        return keyword
    if value is not None:
        return value
    name = source.name
    return name[: name.rfind(".")] if "." in name[1:] else name


def new_file_prefix(target: Path, source: Path) -> bytes:
    """Return what Org writes into a new archive file before the first subtree."""
    return empty_file_prefix(target) + HEADER.format(os.path.abspath(source)).encode("utf-8")


def empty_file_prefix(target: Path) -> bytes:
    """Return the mode line Org puts in an empty archive buffer not in Org mode by its name.

    ``org-insert-mode-line-in-empty-file'' acts on an empty buffer, so an archive file
    that exists but is empty gets it too (without the header, which is for new files).
    """
    return b"" if re.search(r"\.org$", target.name, re.IGNORECASE) else MODE_LINE.encode()


def paste(target: bytes, text: bytes, heading: str, newline: bytes) -> tuple[bytes, int]:
    """Return ``target`` with subtree ``text`` archived into it, and where it begins."""
    nl = newline
    if not heading or not re.match(r"\*+", heading):
        level = 1
        target = target + nl
        point = len(target)
    else:
        level = len(re.match(r"\*+", heading).group(0)) + 1  # type: ignore[union-attr]
        found = heading_line(target, heading)
        if found is None:
            if target and not target.endswith(b"\n"):
                target += nl
            target += nl + heading.encode("utf-8") + nl
            line_end = len(target) - len(nl)
        else:
            line_end = found.end() - (1 if target[found.end() - 1 : found.end()] == b"\r" else 0)
        end = subtree_end_after(target, line_end, level - 1)
        # One blank line between the heading's last child and the subtree, whatever was there.
        back = line_end + len(target[line_end:end].rstrip(b" \t\r\n"))
        forward = len(target) - len(target[back:].lstrip(b" \t\r\n"))
        target = target[:back] + nl + nl + target[forward:]
        point = back + 2 * len(nl)
    block = at_level(text, level, nl)
    return target[:point] + block + target[point:], point


def heading_line(data: bytes, heading: str) -> re.Match[bytes] | None:
    """Return the line of ``data`` Org archives under for ``heading`` (the first, any case)."""
    pattern = re.compile(
        rb"^" + re.escape(heading.encode("utf-8")) + rb"(?:[ \t]+:(?:[\w@#%]+:)+)?[ \t]*\r?$",
        re.MULTILINE | re.IGNORECASE,
    )
    return pattern.search(data)


def finish(target: bytes, point: int, move: Move, newline: bytes) -> bytes:
    """Set the archived headline's tags (same file) and context properties."""
    if move.tags:
        line_end = target.find(b"\n", point)
        line_end = len(target) if line_end < 0 else line_end
        content_end = line_end - (1 if target[line_end - 1 : line_end] == b"\r" else 0)
        line = target[point:content_end].decode("utf-8", "surrogateescape")
        retagged = align_tags(_with_tags(line, move.tags)).encode("utf-8", "surrogateescape")
        target = target[:point] + retagged + target[content_end:]
    # The drawer goes under the headline at ``point``: only the text from there is
    # edited (archiving many subtrees into one file would re-read it whole each time).
    edits = [SetProperty(0, key, value) for key, value in move.context]
    return target[:point] + edit_bytes(target[point:], edits, newline=newline)


def _with_tags(line: str, tags: tuple[str, ...]) -> str:
    """Return a headline line with its tags replaced by ``tags`` (``org-set-tags``)."""
    match = re.match(r"^(\*+ (?:.*?))(?:[ \t]+(:[\w@#%:]+:))?[ \t]*$", line)
    head = (match.group(1) if match else line).rstrip(" \t")
    return f"{head} :{':'.join(tags)}:"


class ArchiveSkill(ExecutorSkill):
    """Archive the subject (or tag it :ARCHIVE:), only ever with the user's approval."""

    name = "archive"

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` asks to archive (or to tag something archived)."""
        if stimulus.sensor != Sensor.DELEGATION:
            return False
        if str(stimulus.payload.get("skill", "")).lower() == "tag":  # "tag it archived"
            return bool(_TAG_VARIANT.search(stimulus.text))
        return self.delegated_to(stimulus)

    def plan(self, payload: Mapping[str, Any], ctx: Context) -> Plan:
        """Return what archiving ``payload``'s subject would do."""
        text = str(payload.get("text", ""))
        words = str(payload.get("object", ""))
        tag_only = bool(_TAG_VARIANT.search(text))
        if tag_only:
            words = _TAG_WORDS.sub("", words)
        document, subjects, _how = resolve_subjects(words, ctx)
        if tag_only:
            lines = tuple(f"{s.title} (line {s.line}): tag it :{ARCHIVE_TAG}:" for s in subjects)
            digest = binding("archive-tag", document.data, subjects, "")
            return Plan((), lines, digest, tuple(s.line for s in subjects), "Tagged :ARCHIVE:")
        return archive_plan(document, subjects, ctx, "archive")


def archive_plan(document: Document, subjects: list[Subject], ctx: Context, kind: str) -> Plan:
    """Return the plan that archives ``subjects`` of ``document``."""
    if document.path is None:  # route --stdin without --file-name: no file to move out of
        raise Unclear(
            "Clarification needed: which note?",
            f"To {kind} text, orgrouter needs a note file; run it from a note, not from stdin.",
        )
    source = Path(os.path.abspath(document.path))
    moves: list[Move] = []
    lines: list[str] = []
    targets: set[str] = set()
    checked: dict[Path, tuple[str | None, str]] = {}  # target: (problem, warning)
    for subject in subjects:
        index = index_at_line(document, subject.line)
        target, heading = split_location(location_of(document, index), source)
        where, bound, dest, warn = "this file", "", "", ""
        if target is not None and target != source:  # another file
            if target not in checked:
                checked[target] = (write_problem(ctx, target), where_note(ctx, target))
            problem, warn = checked[target]
            if problem is not None:
                raise Unclear(
                    "Clarification needed: the archive file may not be written",
                    f"Archiving {subject.title!r} would write {target}: {problem}. "
                    "Set an ARCHIVE property or #+ARCHIVE: line naming an Org file in the notes.",
                )
            where, bound, dest = relative_name(target, ctx), bound_name(target, ctx), str(target)
        elif heading:
            _refuse_archiving_into_itself(document, subjects, heading)
        context = tuple(context_of(document, index, ctx.now, source))
        # In the same file Org sets every tag on it when it inherits any (ARCHIVE_ITAGS).
        inherits = not dest and any(key == "ARCHIVE_ITAGS" for key, _ in context)
        tags = tuple(document.tags(index)) if inherits else ()
        under = f" under {heading!r}" if heading else ""
        lines.append(f"{subject.title} (line {subject.line}) -> {where}{under}{warn}")
        targets.add(f"{bound}::{heading}")
        private = inherited_privacy(document, subject, ctx)
        moves.append(Move(subject, "archive", dest, heading, (), context, tags, private))
    digest = binding(kind, document.data, subjects, "|".join(sorted(targets)))
    count = len(subjects)
    title = f"Archived {count} subtrees" if count > 1 else f"Archived {subjects[0].title!r}"
    return Plan(tuple(moves), tuple(lines), digest, (), title)


def _refuse_archiving_into_itself(
    document: Document, subjects: list[Subject], heading: str
) -> None:
    """Raise Unclear when the in-file archive heading lies inside a subject.

    Org 9.5 pastes the subtree under that heading, then cuts the subject, heading and
    all: the text is gone from the file. orgrouter never destroys text, so it asks.
    """
    found = heading_line(document.data, heading) if re.match(r"\*+", heading) else None
    if found is None:
        return
    for subject in subjects:
        if subject.begin <= found.start() < subject.end:
            raise Unclear(
                "Clarification needed: the archive heading is inside what would be archived",
                f"This note archives under {heading!r}, which is inside {subject.title!r}: "
                "archiving it would paste it into itself and then cut both (Org loses the "
                "text). Archive something else, or set an ARCHIVE property or #+ARCHIVE: "
                "line naming another heading or file.",
            )


SKILL = ArchiveSkill()
