"""The ``search`` skill: find headlines across the notes root and link to them.

A hit is a headline whose title holds the most words of the query that any headline
holds (case-insensitive, a plural matching its singular: "curry recipes" finds
"Thai green curry"); a top-level headline also counts its file's ``#+TITLE``
("Curries"). Each becomes an Org link ``[[file:REL::*Heading][Heading]]``, REL
relative to the file holding the request, which ``org-open-at-point`` follows to
that heading. Results orgrouter wrote, and requests themselves, are not hits.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from orgrouter.discover import discover
from orgrouter.errors import InputError
from orgrouter.io.text import read_org_file
from orgrouter.org.headline import parse_headline
from orgrouter.org.scan import iter_headline_lines
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    clarify,
    proposal_stimulus,
)
from orgrouter.skills.wording import stem

MAX_HITS = 25
RESULT_MARK = b":ORGROUTER_RESULT:"
_VERB = re.compile(
    r"^(?:please\s+)?(?:search|find|look\s+up|look\s+for|locate|grep|show\s+me|dig\s+up|"
    r"pull\s+up|bring\s+up|fetch|where\s+are|where\s+is)"
    r"(?:\s+(?:for|my|the|all|notes?|headlines?|headings?|about|on|with|mentioning))*\s+",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|“([^”]+)”")
_NOISE = frozenset({"notes", "note", "about", "all", "my", "the", "in", "for", "on", "of"})
_ADDRESS = re.compile(r"(?<![\w.])@\w")
_WORD = re.compile(r"[^\W_]+")
_FILE_TITLE = re.compile(rb"^[ \t]*#\+title:[ \t]*(.*?)[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Hit:
    """One matching headline."""

    path: Path
    line: int
    title: str


class SearchSkill(BaseSkill):
    """Search headline titles under the notes root."""

    name = "search"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return a result listing links to the matching headlines."""
        stimulus = proposal_stimulus(proposal)
        query = query_words(str(stimulus.payload.get("object") or "") or stimulus.text)
        if not query or ctx.notes_root is None:
            return clarify(
                "Clarification needed: search for what?",
                f"I understood {stimulus.text!r} as a search but found no "
                'words to look for. Write =@agent find notes about "kubernetes"=.',
            )
        hits, unreadable = search(ctx.notes_root, query, ctx)
        here = ctx.request.path.parent if ctx.request and ctx.request.path else ctx.notes_root
        shown = " ".join(query)
        if not hits:
            body = f"No headline under the notes root mentions {shown!r}."
        else:
            body = "\n".join(f"- {org_link(hit, here)}" for hit in hits[:MAX_HITS])
            if len(hits) > MAX_HITS:
                body += f"\n- … and {len(hits) - MAX_HITS} more"
        if unreadable:
            body += f"\n\n{unreadable} file(s) could not be read and were not searched."
        return Emit((Result(title=f"Search: {shown}", body=body),))


def query_words(text: str) -> list[str]:
    """Return the words to look for: a quoted phrase's, else the text after the verb."""
    quoted = _QUOTED.search(text)
    if quoted:
        text = next(group for group in quoted.groups() if group)
    else:
        text = _VERB.sub("", text.strip(), count=1)
    words = [w.strip(".,;:!?") for w in text.split()]
    return [w for w in words if w and (quoted or w.lower() not in _NOISE)]


def search(root: Path, query: list[str], ctx: Context) -> tuple[list[Hit], int]:
    """Return the headlines under ``root`` that hold the most query words any holds."""
    stems = [stem(word) for word in query]
    needles = [word.encode() for word in stems]
    found = discover([root], ctx.config.scan)
    scored: list[tuple[int, Hit]] = []
    unreadable = len(found.errors)
    for path in found.files:
        try:
            data = read_org_file(path).data
        except InputError:
            unreadable += 1
            continue
        lowered = data.lower()
        if not any(needle in lowered for needle in needles):
            continue  # a cheap bytes check spares decoding most files
        scored.extend(_file_hits(path, data, stems))
    best = max((score for score, _ in scored), default=0)
    return [hit for score, hit in scored if score == best], unreadable


def _stems(text: str) -> set[str]:
    """Return the stems of the words of ``text``."""
    return {stem(word) for word in _WORD.findall(text)}


def _file_hits(path: Path, data: bytes, stems: list[str]) -> list[tuple[int, Hit]]:
    """Return the headlines of one file that hold a query word, with how many they hold."""
    title_line = _FILE_TITLE.search(data[: iter_first_headline(data)])
    file_words = _stems(title_line.group(1).decode("utf-8", "replace")) if title_line else set()
    hits: list[tuple[int, Hit]] = []
    lines = list(iter_headline_lines(data))
    for index, headline in enumerate(lines):
        text = data[headline.begin : headline.end].decode("utf-8", "replace")
        parsed = parse_headline(text.rstrip("\r\n"))
        if _ADDRESS.search(parsed.raw):
            continue  # a request, never a hit
        words = _stems(parsed.raw)
        held = words | file_words if parsed.level == 1 else words
        score = sum(1 for word in stems if word in held)
        if not score:
            continue
        section_end = lines[index + 1].begin if index + 1 < len(lines) else len(data)
        if RESULT_MARK in data[headline.end : section_end]:
            continue
        hits.append((score, Hit(path, headline.line, parsed.raw)))
    return hits


def iter_first_headline(data: bytes) -> int:
    """Return the offset of the file's first headline (its end when it has none)."""
    first = next(iter_headline_lines(data), None)
    return len(data) if first is None else first.begin


def org_link(hit: Hit, here: Path) -> str:
    """Return ``[[file:REL::*Heading][Heading]]`` for ``hit``, relative to ``here``."""
    relative = Path(os.path.relpath(hit.path, here)).as_posix()
    target = f"file:{relative}::*{hit.title}"
    # Org 9.3+ link syntax: brackets and the backslashes before them are escaped.
    target = re.sub(r"(\\*)([][])", lambda m: m.group(1) * 2 + "\\" + m.group(2), target)
    description = hit.title.replace("[", "(").replace("]", ")")
    return f"[[{target}][{description}]]"


SKILL = SearchSkill()
