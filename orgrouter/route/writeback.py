"""Write results back as child headlines of their request.

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
replaced by the new ones; edited ones stay (``orgrouter.route.results`` tells them
apart). Each step plans edits with ``orgrouter.org.edit`` against the bytes the step
before produced, so every offset is exact, and the caller writes the final bytes once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from orgrouter.config import LimitsConfig
from orgrouter.marks import RESULT_KEY
from orgrouter.org.drawer import line_span
from orgrouter.org.edit import (
    AddTag,
    AppendChild,
    Edit,
    SetProperty,
    Shift,
    Splice,
    apply_splices,
    check_child,
    check_tag,
    child_level,
    plan_edits,
)
from orgrouter.org.escape import cap_body, cap_line, safe_line, strip_controls
from orgrouter.org.outline import content_end, inside, subtree_end
from orgrouter.records import field, record, replace
from orgrouter.route.request import HASH_KEY, FoundRequest
from orgrouter.route.results import (
    CHECK_KEY,
    INTENT_KEY,
    KIND_KEY,
    RUN_KEY,
    check_with,
    locate_results,
    text_check,
)
from orgrouter.skills.base import Result


@record
class NewResult:
    """A result to append under a request."""

    identity: str
    result: Result
    intent: str  # the ORGROUTER_INTENT value


@record
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


def apply_plans(
    data: bytes,
    plans: Sequence[RequestPlan],
    newline: bytes,
    *,
    odd_levels: bool = False,
    stages: list[list[Splice]] | None = None,
) -> bytes:
    """Return ``data`` with every plan's edits made (the same bytes when none change).

    ``odd_levels`` (``#+STARTUP: odd``): results go two stars deeper, to the next odd
    level, where Org reads them as children. ``stages``, when given, receives each
    splice list in the order it was applied (each against the bytes the one before
    produced): an editor applies those edits instead of comparing the whole text.

    Stale results go first, so a result routed again can take their place; the
    appends plan against the bytes that leaves, each new result with its check
    (a hash of its text as the planner writes it), so a note is spliced at most twice.
    """
    record = stages if stages is not None else []
    removals = [s for plan in plans for s in _removals(data, newline, plan, odd_levels)]
    data = _apply(data, removals, record)

    moved = Shift(removals)
    gone = sorted((s.begin, s.end) for s in removals)  # bisected: one scan each was quadratic
    windows: list[_Window] = []
    for plan in plans:
        entry = plan.request.entry
        begin = moved(entry.begin)
        window = _Window(begin, moved(entry.subtree_end))
        window.edits.extend(SetProperty(begin, key, value) for key, value in plan.properties)
        window.edits.extend(
            SetProperty(moved(at), key, value)
            for at, key, value in plan.marks
            if not inside(at, gone)
        )
        level = child_level(entry.level, odd_levels)
        window.edits.extend(_append(begin, new, level, plan.request.hash) for new in plan.results)
        windows.append(window)
    for plan in plans:  # a tag's line: planned with the request's window holding it, if any
        for at, tag in ((moved(at), tag) for at, tag in plan.tags if not inside(at, gone)):
            windows.append(_Window(at, line_span(data, at)[1], [AddTag(at, tag)]))
    return _apply(data, _ranked_splices(data, windows, newline), record)


@record
class _Window:
    """A stretch of the file (a request's subtree) and the edits planned inside it."""

    begin: int
    end: int
    edits: list[Edit] = field(default_factory=list)


def _ranked_splices(data: bytes, windows: Sequence[_Window], newline: bytes) -> list[Splice]:
    """Plan each outermost window's edits against its own bytes; return the splices, in order.

    ``plan_edits`` indexes every headline of the bytes it is given; a route edits a
    few subtrees, so each is planned alone and a 5 MB file is not indexed per step.
    A window inside another (a request below a request) is planned with it, in one
    index: planned alone, each of 1,000 nested requests indexed its whole subtree.
    """
    groups: list[_Window] = []
    for window in sorted(windows, key=lambda w: (w.begin, -w.end)):
        if groups and window.end <= groups[-1].end:
            groups[-1].edits.extend(window.edits)
        else:
            groups.append(_Window(window.begin, window.end, list(window.edits)))
    splices: list[Splice] = []
    for group in (group for group in groups if group.edits):
        local = [edit._replace(headline=edit.headline - group.begin) for edit in group.edits]
        piece = data[group.begin : group.end]
        for splice in plan_edits(piece, local, newline=newline):
            begin, end = splice.begin + group.begin, splice.end + group.begin
            splices.append(Splice(begin, end, splice.text))
    return splices


def _append(
    parent: int, new: NewResult, level: int | None = None, request_hash: str | None = None
) -> AppendChild:
    """Return the edit that appends ``new`` under the headline at ``parent``, at ``level``."""
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
        # A request below with the same instruction (hence hash) has its own results.
        fence=(HASH_KEY, request_hash) if request_hash else None,
        body=result.body,
        properties=tuple(properties),
        tags=result.tags,
        todo=result.todo,
        org_safe=result.org_safe,
        level=level,
        planning=(_split_planning(result.planning),) if result.planning else (),
        check=(CHECK_KEY, text_check),  # of the text as written: no second pass reads it
    )


_KEYWORD = re.compile(r"[^\s*]+")  # a TODO keyword: one word (no line break, no star)


def result_problem(result: Result) -> str | None:
    """Return why ``result`` cannot be written (a bad tag, key or timestamp), or None.

    The edit planner's own checks decide, so a skill's malformed result becomes an
    error result instead of failing the whole file.
    """
    if not result.title.strip():
        return "empty title (a headline needs one)"
    if result.todo is not None and not _KEYWORD.fullmatch(result.todo):
        return f"invalid TODO keyword {result.todo!r}"
    try:  # a body fails only to encode (a lone surrogate): else it need not be escaped
        shown = replace(result, body="") if result.body.encode() else result
    except UnicodeEncodeError:
        shown = result  # the planner's own error says which character
    try:
        check_child(_append(0, NewResult("probe/1", shown, "probe")))
    except ValueError as error:
        return str(error)
    return None


def tag_problem(tag: str) -> str | None:
    """Return why ``tag`` cannot be added to a headline, or None."""
    try:
        check_tag(tag)
    except ValueError as error:
        return str(error)
    return None


def cap_results(plans: Iterable[RequestPlan], limits: LimitsConfig, run: str) -> None:
    """Bound what every new result adds (body, title, property values); stamp its run.

    Skills and models may return anything (a 1 MB reply, a 40 MB instruction echoed in
    a title and in ORGROUTER_INTENT); a note must stay readable and under the file
    limit, so each is cut with a visible mark (``limits.result_bytes``, ``echo_chars``).
    A property holding data (an approval's held intent) gets the body's limit: cut, it
    no longer reads back, and an unreadable approval is refused, never run. The run's
    ``ORGROUTER_RUN`` goes first, in place of any a skill gave.
    """
    for plan in plans:
        for new in plan.results:
            result = new.result
            data = tuple(
                (k, cap_line(strip_controls(v), limits.result_bytes))
                for k, v in result.properties
                if k != RUN_KEY
            )
            new.intent = cap_line(safe_line(new.intent), limits.echo_chars)
            new.result = replace(
                result,
                title=cap_line(result.title, limits.echo_chars),
                body=cap_body(result.body, limits.result_bytes),
                properties=((RUN_KEY, run), *data),
            )


def _split_planning(planning: str) -> tuple[str, str]:
    """Return ``("SCHEDULED", "<2026-12-04 Fri>")`` for a skill's planning line."""
    keyword, _, timestamp = planning.partition(":")
    return keyword.strip(), timestamp.strip()


def _apply(data: bytes, splices: list[Splice], record: list[list[Splice]]) -> bytes:
    """Return ``data`` with ``splices`` applied (the same object when there are none).

    A non-empty ``splices`` is appended to ``record``, the stages ``apply_plans`` made.
    """
    if not splices:
        return data
    record.append(splices)
    return apply_splices(data, splices)


def _removals(data: bytes, newline: bytes, plan: RequestPlan, odd_levels: bool) -> list[Splice]:
    """Return the splices removing the plan's stale results that nobody edited."""
    if not plan.stale:
        return []
    entry = plan.request.entry
    level = child_level(entry.level, odd_levels)
    found = locate_results(data, newline, plan.stale, within=entry, level=level)
    splices: list[Splice] = []
    for head in found.values():
        if head.value(CHECK_KEY) != check_with(data, head, b""):
            continue  # edited since it was written: the user's now, and it stays
        begin = head.headline.begin
        end = content_end(data, begin, subtree_end(data, head.headline))
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

