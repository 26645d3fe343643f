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

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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
from orgrouter.route.request import HASH_KEY, RESULT_KEY, STATUS_KEY, FoundRequest
from orgrouter.skills.base import Result

KIND_KEY = "ORGROUTER_KIND"
INTENT_KEY = "ORGROUTER_INTENT"
RUN_KEY = "ORGROUTER_RUN"
CHECK_KEY = "ORGROUTER_CHECK"
APPROVAL_KEY = "ORGROUTER_APPROVAL"  # on approval results: the held intent, as JSON
MARK = b":" + RESULT_KEY.encode("ascii") + b":"


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
    check = result_check(document.data, entry.begin, head, end)
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


def result_check(data: bytes, begin: int, head: Head, end: int) -> str:
    """Return the hash of a result's text as written, its property drawer left out."""
    drawer = head.drawer
    assert drawer is not None
    text = data[begin : drawer.begin] + data[drawer.end : end]
    canonical = text.replace(b"\r\n", b"\n").rstrip()
    return hashlib.sha256(canonical).hexdigest()[:16]


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
    edits: list[Edit] = []
    for plan in plans:
        begin = moved(plan.request.entry.begin)
        edits.extend(SetProperty(begin, key, value) for key, value in plan.properties)
        edits.extend(AddTag(moved(at), tag) for at, tag in plan.tags if not _inside(at, gone))
        edits.extend(
            SetProperty(moved(at), key, value)
            for at, key, value in plan.marks
            if not _inside(at, gone)
        )
        edits.extend(_append(begin, new) for new in plan.results)
    data = _apply(data, plan_edits(data, edits, newline=newline))
    new = {n.identity: n.result for plan in plans for n in plan.results}
    if new:
        located = _locate(data, newline, new)
        planning = [
            SetPlanning(at.headline.begin, *_split_planning(new[identity].planning))
            for identity, at in located.items()
            if new[identity].planning
        ]
        data = _apply(data, plan_edits(data, planning, newline=newline))
        located = _locate(data, newline, new)
        checks = [
            SetProperty(head.headline.begin, CHECK_KEY, _check_at(data, head))
            for head in located.values()
        ]
        data = _apply(data, plan_edits(data, checks, newline=newline))
    return data


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
    """Return the head of each result headline named by ``identities``."""
    wanted = set(identities)
    document = Document(data, newline=newline)
    found: dict[str, Head] = {}
    position = data.find(MARK)
    while position >= 0 and len(found) < len(wanted):
        index = document.find(position)
        position = data.find(MARK, position + len(MARK))
        if index is None:
            continue
        entry = document.entries[index]
        head = locate_head(data, entry.scan_line, newline=newline)
        prop = head.drawer.get(RESULT_KEY) if head.drawer is not None else None
        if prop is not None and prop.value in wanted:
            found.setdefault(prop.value, head)
    return found


def _check_at(data: bytes, head: Head) -> str:
    """Return the check hash of the freshly written result at ``head``."""
    document = Document(data, newline=head.newline)
    index = document.find(head.headline.begin)
    assert index is not None
    entry = document.entries[index]
    return result_check(data, entry.begin, head, _content_end(data, entry.begin, entry.subtree_end))


def _removals(data: bytes, newline: bytes, identities: set[str]) -> list[Splice]:
    """Return the splices removing the unedited results named by ``identities``."""
    document = Document(data, newline=newline)
    splices: list[Splice] = []
    for identity, head in _locate(data, newline, identities).items():
        index = document.find(head.headline.begin)
        assert index is not None
        written = _written(document, index)
        if written is not None and not written.edited and written.identity == identity:
            splices.append(Splice(written.begin, written.end, b""))
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
