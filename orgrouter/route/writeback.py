"""Write results back as child headlines of their request, and recognise them later.

A result is a child headline one level below its request, appended at the end of the
request's subtree, with a property drawer saying what it answers:

- ``ORGROUTER_RESULT``: ``HASH/N``, the request's instruction hash and the result's
  number, its identity (a second run plans no second copy);
- ``ORGROUTER_KIND``: result, clarification, approval or error;
- ``ORGROUTER_INTENT``: the intent it answers (``2 todo: create todos for ...``);
- ``ORGROUTER_RUN``: the run's time stamp;
- ``ORGROUTER_CHECK``: a hash of the result as written (its headline line, planning
  line and body, the drawer excluded). When the text no longer matches, the user
  has edited the result, and it is kept whatever happens to the request.

The request gets ``ORGROUTER_STATUS`` and ``ORGROUTER_HASH``. When an edited
instruction is routed again, the results of the old instruction that nobody edited are
replaced by the new ones; edited ones stay. Each step plans edits with
``orgrouter.org.edit`` against the bytes the step before produced, so every offset is
exact, and the caller writes the final bytes once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from orgrouter.org.document import Document
from orgrouter.org.drawer import Head, locate_head
from orgrouter.org.edit import (
    AddTag,
    AppendChild,
    Edit,
    SetPlanning,
    SetProperty,
    Splice,
    apply_splices,
    plan_edits,
    shift_offset,
)
from orgrouter.org.scan import HeadlineLine
from orgrouter.route.request import HASH_KEY, RESULT_KEY, STATUS_KEY, FoundRequest
from orgrouter.skills.base import Result

KIND_KEY = "ORGROUTER_KIND"
INTENT_KEY = "ORGROUTER_INTENT"
RUN_KEY = "ORGROUTER_RUN"
CHECK_KEY = "ORGROUTER_CHECK"
APPROVAL_KEY = "ORGROUTER_APPROVAL"  # on approval results: the held intent, as JSON
MARK = b":" + RESULT_KEY.encode("ascii") + b":"
MAX_LINES_ABOVE = 3  # drawer line, planning line, headline
_STARS = re.compile(rb"(\*+) ")


@dataclass(frozen=True)
class Written:
    """A result headline already in the file."""

    identity: str  # the ORGROUTER_RESULT value
    begin: int  # first star
    end: int  # just past its last non-blank line
    line: int
    title: str  # as parsed (without keyword and tags)
    keyword: str  # the first word of the title as written (WAITING, APPROVED...)
    tags: tuple[str, ...]
    head: Head
    edited: bool  # the text no longer matches ORGROUTER_CHECK

    def get(self, key: str) -> str | None:
        """Return one of the result's properties, or None."""
        drawer = self.head.drawer
        found = drawer.get(key) if drawer is not None else None
        return None if found is None else found.value


@dataclass
class NewResult:
    """A result to append under a request."""

    identity: str
    result: Result
    intent: str  # the ORGROUTER_INTENT value


@dataclass
class RequestPlan:
    """Everything one request changes in its file."""

    request: FoundRequest
    properties: list[tuple[str, str]] = field(default_factory=list)  # on the request
    results: list[NewResult] = field(default_factory=list)
    tags: list[tuple[int, str]] = field(default_factory=list)  # (headline begin, tag)
    marks: list[tuple[int, str, str]] = field(default_factory=list)  # (begin, key, value)
    stale: list[str] = field(default_factory=list)  # identities to remove if unedited


def result_identity(request_hash: str, number: int) -> str:
    """Return the ``ORGROUTER_RESULT`` value of a request's ``number``-th result."""
    return f"{request_hash}/{number}"


def written_results(document: Document, request: FoundRequest) -> list[Written]:
    """Return the result headlines that are direct children of ``request``."""
    entry = request.entry
    found: list[Written] = []
    data = document.data
    position = data.find(MARK, entry.end, entry.subtree_end)
    seen: set[int] = set()
    while position >= 0:
        index = document.find(position)
        position = data.find(MARK, position + len(MARK), entry.subtree_end)
        if index is None or index in seen or document.entries[index].parent != entry.index:
            continue
        seen.add(index)
        written = _written(document, index)
        if written is not None:
            found.append(written)
    return found


def _written(document: Document, index: int) -> Written | None:
    """Return headline ``index`` as a result, or None when it is not one."""
    entry = document.entries[index]
    head = locate_head(document.data, entry.scan_line, newline=document.newline)
    identity = head.drawer.get(RESULT_KEY) if head.drawer is not None else None
    if identity is None or head.drawer is None:
        return None
    end = _content_end(document.data, entry.begin, entry.subtree_end)
    recorded = head.drawer.get(CHECK_KEY)
    check = result_check(document.data, head)
    headline = document.headline(index)
    line = document.line_text(index)
    words = line[entry.level :].split(None, 1)
    return Written(
        identity=identity.value,
        begin=entry.begin,
        end=end,
        line=entry.line,
        title=headline.raw,
        keyword=words[0] if words else "",
        tags=tuple(headline.tags),
        head=head,
        edited=recorded is None or recorded.value != check,
    )


def _content_end(data: bytes, begin: int, end: int) -> int:
    """Return the end of the last non-blank line in ``data[begin:end]``, newline included."""
    last = begin + len(data[begin:end].rstrip(b" \t\r\n"))
    newline = data.find(b"\n", last, end)
    return end if newline < 0 else newline + 1


def result_check(data: bytes, head: Head) -> str:
    """Return the hash of a result's text as written, its property drawer left out."""
    return _check_with(data, head, b"")


def apply_plans(data: bytes, plans: Sequence[RequestPlan], newline: bytes) -> bytes:
    """Return ``data`` with every plan's edits made (the same bytes when none change).

    Stale results go first, so a result routed again can take their place; every
    later step plans against the bytes the step before produced.
    """
    removals: list[Splice] = []
    stale = {identity for plan in plans for identity in plan.stale}
    if stale:
        removals = _removals(data, newline, stale)
        data = _apply(data, removals)

    def moved(offset: int) -> int:
        return shift_offset(offset, removals)

    gone = [(s.begin, s.end) for s in removals]
    windows: list[_Window] = []
    for plan in plans:
        entry = plan.request.entry
        begin = moved(entry.begin)
        window = _Window(begin, moved(entry.subtree_end))
        window.edits.extend(SetProperty(begin, key, value) for key, value in plan.properties)
        window.edits.extend(
            SetProperty(moved(at), key, value)
            for at, key, value in plan.marks
            if not _inside(at, gone)
        )
        window.edits.extend(_append(begin, new) for new in plan.results)
        windows.append(window)
    for plan in plans:
        for at, tag in plan.tags:
            if not _inside(at, gone):
                _tag_window(data, windows, moved(at)).edits.append(AddTag(moved(at), tag))
    data = _apply(data, _plan_in_windows(data, windows, newline))
    new = {n.identity: n.result for plan in plans for n in plan.results}
    finishing: list[_Window] = []
    for identity, head in _locate(data, newline, new).items():
        window = _Window(head.headline.begin, _subtree_end(data, head.headline))
        planning = new[identity].planning
        line = b""
        if planning:
            keyword, timestamp = _split_planning(planning)
            window.edits.append(SetPlanning(head.headline.begin, keyword, timestamp))
            # What SetPlanning inserts right below the headline: part of the text.
            line = f"{keyword}: {timestamp}".encode() + newline
        check = _check_with(data, head, line)
        window.edits.append(SetProperty(head.headline.begin, CHECK_KEY, check))
        finishing.append(window)
    return _apply(data, _plan_in_windows(data, finishing, newline))


@dataclass
class _Window:
    """A stretch of the file (a request's subtree) and the edits planned inside it."""

    begin: int
    end: int
    edits: list[Edit] = field(default_factory=list)


def _tag_window(data: bytes, windows: list[_Window], at: int) -> _Window:
    """Return the innermost window holding headline ``at``, else a new one for its line."""
    holding = [w for w in windows if w.begin <= at < w.end]
    if holding:
        return max(holding, key=lambda w: w.begin)
    newline = data.find(b"\n", at)
    window = _Window(at, len(data) if newline < 0 else newline + 1)
    windows.append(window)
    return window


def _plan_in_windows(data: bytes, windows: Sequence[_Window], newline: bytes) -> list[Splice]:
    """Plan each window's edits against its own bytes and return the file's splices.

    ``plan_edits`` indexes every headline of the bytes it is given; a route edits a
    few subtrees, so each is planned alone and a 5 MB file is not indexed per step.
    Where two windows insert at one point (a request whose last child is another
    request), the later-starting (deeper) one goes first, inside its own subtree.
    """
    ranked: list[tuple[int, int, int, Splice]] = []
    for window in windows:
        if not window.edits:
            continue
        local = [
            dataclasses.replace(edit, headline=edit.headline - window.begin)
            for edit in window.edits
        ]
        piece = data[window.begin : window.end]
        for splice in plan_edits(piece, local, newline=newline):
            begin, end = splice.begin + window.begin, splice.end + window.begin
            ranked.append((begin, end, -window.begin, Splice(begin, end, splice.text)))
    ranked.sort(key=lambda item: item[:3])
    return [item[3] for item in ranked]


def _inside(offset: int, ranges: Sequence[tuple[int, int]]) -> bool:
    """Return whether ``offset`` falls in one of the removed ``ranges``."""
    return any(begin <= offset < end for begin, end in ranges)


def _append(parent: int, new: NewResult) -> AppendChild:
    """Return the edit that appends ``new`` under the headline at ``parent``."""
    result = new.result
    properties = [
        (KIND_KEY, result.kind),
        (INTENT_KEY, new.intent),
        *result.properties,
    ]
    return AppendChild(
        headline=parent,
        title=result.title,
        identity=(RESULT_KEY, new.identity),
        body=result.body,
        properties=tuple(properties),
        tags=result.tags,
        todo=result.todo,
    )


def with_run(plans: Iterable[RequestPlan], run: str) -> None:
    """Stamp every new result of ``plans`` with the run's ``ORGROUTER_RUN``."""
    for plan in plans:
        for new in plan.results:
            props = tuple(p for p in new.result.properties if p[0] != RUN_KEY)
            new.result = Result(
                title=new.result.title,
                body=new.result.body,
                kind=new.result.kind,
                todo=new.result.todo,
                tags=new.result.tags,
                planning=new.result.planning,
                properties=((RUN_KEY, run), *props),
            )


def _split_planning(planning: str | None) -> tuple[str, str]:
    """Return ``("SCHEDULED", "<2026-12-04 Fri>")`` for a skill's planning line."""
    assert planning is not None
    keyword, _, timestamp = planning.partition(":")
    return keyword.strip(), timestamp.strip()


def _apply(data: bytes, splices: list[Splice]) -> bytes:
    """Return ``data`` with ``splices`` applied (the same object when there are none)."""
    return apply_splices(data, splices) if splices else data


def _locate(data: bytes, newline: bytes, identities: Iterable[str]) -> dict[str, Head]:
    """Return the head of each result headline named by ``identities``.

    Only the few lines above each ``:ORGROUTER_RESULT:`` are looked at, never the
    whole outline: this runs after every step of a write-back, on files of any size.
    """
    wanted = set(identities)
    found: dict[str, Head] = {}
    position = data.find(MARK)
    while position >= 0 and len(found) < len(wanted):
        headline = _headline_above(data, position)
        position = data.find(MARK, position + len(MARK))
        if headline is None:
            continue
        head = locate_head(data, headline, newline=newline)
        prop = head.drawer.get(RESULT_KEY) if head.drawer is not None else None
        if prop is not None and prop.value in wanted:
            found.setdefault(prop.value, head)
    return found


def _headline_above(data: bytes, position: int) -> HeadlineLine | None:
    """Return the headline line at or above ``position`` (a drawer sits right below it)."""
    start = data.rfind(b"\n", 0, position) + 1
    for _ in range(MAX_LINES_ABOVE):
        match = _STARS.match(data, start)
        if match is not None:
            newline = data.find(b"\n", start)
            end = len(data) if newline < 0 else newline + 1
            line = data.count(b"\n", 0, start) + 1
            return HeadlineLine(start, end, len(match.group(1)), line)
        if start == 0:
            return None
        start = data.rfind(b"\n", 0, start - 1) + 1
    return None


def _subtree_end(data: bytes, headline: HeadlineLine) -> int:
    """Return the offset of the next headline of the same or a higher level, or the end."""
    match = _next_at_most(headline.level).search(data, headline.end)
    return len(data) if match is None else match.start()


@cache
def _next_at_most(level: int) -> re.Pattern[bytes]:
    """Return the pattern of a headline line of ``level`` stars or fewer."""
    return re.compile(rb"^\*{1,%d} " % level, re.MULTILINE)


def _check_with(data: bytes, head: Head, planning: bytes) -> str:
    """Return the check of the result at ``head`` once ``planning`` is inserted below it."""
    drawer = head.drawer
    assert drawer is not None
    begin = head.headline.begin
    end = _content_end(data, begin, _subtree_end(data, head.headline))
    text = data[begin : head.headline.end] + planning + data[head.headline.end : drawer.begin]
    canonical = (text + data[drawer.end : end]).replace(b"\r\n", b"\n").rstrip()
    return hashlib.sha256(canonical).hexdigest()[:16]


def _removals(data: bytes, newline: bytes, identities: set[str]) -> list[Splice]:
    """Return the splices removing the unedited results named by ``identities``."""
    splices: list[Splice] = []
    for head in _locate(data, newline, identities).values():
        drawer = head.drawer
        recorded = drawer.get(CHECK_KEY) if drawer is not None else None
        if recorded is None or recorded.value != _check_with(data, head, b""):
            continue  # edited since it was written: the user's now, and it stays
        begin = head.headline.begin
        end = _content_end(data, begin, _subtree_end(data, head.headline))
        splices.append(Splice(begin, end, b""))
    return splices


def request_status(kinds: Iterable[str], pending: bool) -> str:
    """Return the request's ``ORGROUTER_STATUS`` for results of these kinds."""
    seen = set(kinds)
    if "error" in seen:
        return "error"
    if pending or "approval" in seen:
        return "waiting"
    if "clarification" in seen:
        return "clarify"
    return "done"


__all__ = [
    "APPROVAL_KEY",
    "CHECK_KEY",
    "HASH_KEY",
    "INTENT_KEY",
    "KIND_KEY",
    "RESULT_KEY",
    "RUN_KEY",
    "STATUS_KEY",
    "NewResult",
    "RequestPlan",
    "Written",
    "apply_plans",
    "request_status",
    "result_check",
    "result_identity",
    "with_run",
    "written_results",
]
