"""Route one Org document: find its requests, run them, and plan the write-back.

``route_document`` takes a file's bytes and returns the bytes it should have, plus a
report per request; it never touches the disk (the runner and the stdin filter do).
A request whose ``ORGROUTER_HASH`` matches its instruction is left alone unless the
user decided an approval since; otherwise it goes through the kernel (router, gate,
guardian, skills) and its results are planned as child headlines.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from orgrouter.address import address_offsets, keyword_lines
from orgrouter.config import AgentConfig
from orgrouter.io.text import CR, LF
from orgrouter.neuro.budget import RunTimeSpent
from orgrouter.org.document import Document
from orgrouter.org.edit import Splice
from orgrouter.org.settings import InBufferSettings
from orgrouter.records import NamedTuple, field, record, replace
from orgrouter.route import kernel
from orgrouter.route.binding import DIGEST_KEY, withdraw
from orgrouter.route.context import RouteEnv, request_context
from orgrouter.route.guardian import decisions, recheck
from orgrouter.route.request import HASH_KEY, STATUS_KEY, FoundRequest, find_requests
from orgrouter.route.results import APPROVAL_KEY, KIND_KEY, RUN_KEY, Written, written_results
from orgrouter.route.writeback import (
    NewResult,
    RequestPlan,
    apply_plans,
    cap_results,
    request_status,
    result_identity,
    result_problem,
    tag_problem,
)
from orgrouter.skills.base import Heading, Result, Sensor, Stimulus, StimulusType

if TYPE_CHECKING:
    from orgrouter.route.gate import GateResult

RETRY_AFTER = timedelta(minutes=15)  # between tries of a request whose run failed


@record
class RequestReport:
    """What happened to one request (one ``--json`` object)."""

    file: str
    line: int
    agent: str
    instruction: str
    status: str  # done / clarify / waiting / error / unchanged / deferred; skipped / failed
    gate: dict[str, Any] | None = None
    intents: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    reason: str | None = None  # why the file was not written (status skipped / failed)
    moves: list[Any] = field(default_factory=list)  # approved executors' Moves

    def to_json(self) -> dict[str, Any]:
        """Return the ``--json`` object of this request (``reason`` only when skipped)."""
        data = {
            "file": self.file,
            "line": self.line,
            "agent": self.agent,
            "instruction": self.instruction,
            "gate": self.gate,
            "intents": self.intents,
            "results": self.results,
            "status": self.status,
        }
        if self.reason is not None:
            data["reason"] = self.reason
        return data


@record
class DocumentOutcome:
    """The routed bytes of one document and what happened to each request."""

    data: bytes
    requests: list[RequestReport]
    deferred: bool = False  # work left for a later run (a retry, an approval awaited)
    writes: list[Any] = field(default_factory=list)  # other files' bytes (route/moves.py)
    # The splice lists that made ``data``, in order, each against the bytes the one
    # before produced (``apply_plans``'s stages); empty when nothing changed, and
    # short of ``data`` when a move changed the note after them (an editor then
    # takes one splice over what differs).
    stages: list[list[Splice]] = field(default_factory=list)
    # Of that work, any that time alone may make due (a failed request's retry, model
    # time spent); without it, only the user's edit (an answered approval) changes anything.
    retry: bool = False

    @property
    def results(self) -> int:
        """Return how many results the routed requests produced."""
        return sum(len(r.results) for r in self.requests)

    @property
    def routed(self) -> int:
        """Return how many requests were routed (not left unchanged)."""
        return sum(1 for r in self.requests if r.status not in ("unchanged", "deferred"))


class Found(NamedTuple):
    """A document and its requests (``requests_in``), with what the run's gate said of them."""

    document: Document
    requests: list[FoundRequest]
    # The gate's verdicts ``Router.plan`` reached, by the request's headline index.
    gates: dict[int, GateResult]


def route_document(
    data: bytes,
    path: str | None,
    env: RouteEnv,
    *,
    newline: bytes = b"\n",
    requests: Found | None = None,
    setting_line: bool | None = None,
) -> DocumentOutcome:
    """Return ``data`` with every request in it routed, and a report per request.

    ``requests``: ``requests_in``'s answer for these bytes, if already asked;
    ``setting_line``: whether a routing setting line is in them, if already known.
    """
    if newline == CR:
        return _route_mac(data, path, env, setting_line)
    document, found, gates = requests or requests_in(data, path, env, newline, setting_line)
    lines = frozenset(request.line for request in found)  # once, not once per request
    outlines: dict[int, tuple[Heading, ...]] = {}  # by scope: siblings share their parent's
    plans: list[RequestPlan] = []
    reports: list[RequestReport] = []
    later: set[str] = set()  # why requests wait: "retry", "waiting"
    for request in found:
        if env.within is not None and not env.within[0] <= request.entry.begin < env.within[1]:
            continue
        try:
            verdict = gates.pop(request.index, None)  # taken: held no longer than needed
            plan, report, why = _route_request(
                document, request, found, env, lines, outlines, verdict
            )
        except RunTimeSpent as spent:
            # Nothing is written, not even the hash: the request is still due next run.
            plan, why = None, "retry"
            report = _report(document, request, "deferred", [spent.message])
        reports.append(report)
        later.add(why)
        if plan is not None:
            plans.append(plan)
    deferred, retry = bool(later - {""}), "retry" in later
    if not plans:
        return DocumentOutcome(data, reports, deferred, retry=retry)
    cap_results(plans, env.config.limits, env.run)
    stages: list[list[Splice]] = []
    routed = apply_plans(
        data, plans, newline, odd_levels=document.settings.odd_levels, stages=stages
    )
    moves = [move for report in reports for move in report.moves]
    if not moves:
        return DocumentOutcome(routed, reports, deferred, stages=stages, retry=retry)
    from orgrouter.route.moves import apply_moves

    moved, writes = apply_moves(routed, moves, path, newline)
    return DocumentOutcome(moved, reports, deferred, writes, stages, retry)


def requests_in(
    data: bytes,
    path: str | None,
    env: RouteEnv,
    newline: bytes = LF,
    setting_line: bool | None = None,
) -> Found:
    """Return the document of ``data`` (LF or CRLF lines) and the requests in it.

    ``setting_line``: ``configload.keywords_in_bytes``'s answer, if the caller asked it.
    """
    names = env.names()
    # Only the addressed headlines' subtrees and ancestors: a note of thousands of
    # headlines with one request is not indexed whole.
    offsets = address_offsets(data, names)
    # No #+TODO, #+FILETAGS or #+SETUPFILE line anywhere: Org's defaults are the
    # settings, so skip decoding and scanning the whole file to find none.
    if setting_line is None:
        setting_line = keyword_lines(data)[1]
    settings = None if setting_line else InBufferSettings()
    document = Document.around(data, offsets, path, newline=newline, settings=settings)
    return Found(document, find_requests(document, names, offsets), {})


def _route_mac(
    data: bytes, path: str | None, env: RouteEnv, setting_line: bool | None
) -> DocumentOutcome:
    """Route a CR-only note (Emacs visits it with mac EOL) in its own line ends."""
    # CR and LF are one byte each, so the note's LF view has the same offsets: route
    # it, then give every line end back as a CR. The user's bytes (no LF among them)
    # come back exactly, and each line written ends as theirs do (inserted text holds
    # no CR: control characters are stripped from it).
    routed = route_document(data.replace(CR, LF), path, env, newline=LF, setting_line=setting_line)
    stages = [
        [Splice(s.begin, s.end, s.text.replace(LF, CR)) for s in stage] for stage in routed.stages
    ]
    return replace(routed, data=routed.data.replace(LF, CR), stages=stages)


def _report(
    document: Document, request: FoundRequest, status: str, logs: list[str] | None = None
) -> RequestReport:
    """Return the report of ``request`` so far: where it is, what it says, ``status``."""
    where = (document.name, request.line, request.agent, request.instruction)
    return RequestReport(*where, status, logs=logs or [])


def _route_request(
    document: Document,
    request: FoundRequest,
    found: list[FoundRequest],
    env: RouteEnv,
    lines: frozenset[int],
    outlines: dict[int, tuple[Heading, ...]],
    verdict: GateResult | None = None,
) -> tuple[RequestPlan | None, RequestReport, str]:
    """Route one request (or act on its approvals); return its plan, report and ``_later``.

    ``verdict``: the gate's on this request, if the run reached it already.
    """
    written = written_results(document, request)
    report = _report(document, request, "unchanged")
    answered = request.recorded(HASH_KEY) == request.hash
    # --force routes again, but never over a decision the user made: a request whose
    # approval they answered keeps it (re-routing would ask again, WAITING anew).
    forced = env.force and not (answered and _decided(request, written, env.config.agent))
    again = forced or (answered and _retry_due(request, written, env.now))
    if answered and not again:
        plan, report, later = _act_on_approvals(document, request, written, env, report)
        # A failed request inside its retry window is still work for a later run: the
        # scan cache must not settle the file, or the retry never comes.
        return plan, report, "retry" if request.recorded(STATUS_KEY) == "error" else later
    ctx = request_context(document, request, found, written, env, lines, outlines)
    if verdict is not None:
        ctx.classified = (request.instruction, request.items, verdict)
    payload: dict[str, Any] = {"sensor": Sensor.USER_COMMAND.value, "text": request.instruction}
    if request.items:
        payload["items"] = list(request.items)
    outcome = (
        _too_long(len(request.instruction), limit)
        if len(request.instruction) > (limit := env.config.limits.instruction_chars)
        else kernel.run(Stimulus(StimulusType.EVENT, payload), env.skills, ctx)
    )
    env.rules = env.rules or ctx.rules  # the tables are loaded once per run
    gate = ctx.handback.gate
    emitted = list(outcome.emitted)
    if gate is not None and gate.spawn.skip == "rate_limit":
        title = "Handled directly: specialist rate limit reached"
        note = Result(title=title, body=gate.reason or "")
        emitted.append(kernel.Emitted(note, "router", "", 0))
    plan = RequestPlan(request)
    # Results nobody edited give way to the new ones: those of an older instruction,
    # or all of them when an unchanged one is routed again (--force, a failed run).
    ours = request.hash + "/"
    plan.stale = [
        w.identity for w in written if not w.edited and (again or not w.identity.startswith(ours))
    ]
    kept = [w for w in written if w.identity not in plan.stale]
    first = max((_number(w.identity, request.hash) for w in kept), default=0) + 1
    emitted = [_usable(item) for item in emitted]
    for number, item in enumerate(emitted, first):
        label = _intent_label(item, request.instruction)
        plan.results.append(NewResult(result_identity(request.hash, number), item.result, label))
    _plan_retags(document, plan, outcome.retags)
    _, pending = decisions([w for w in kept if w.identity.startswith(ours)], env.config.agent)
    status = request_status((e.result.kind for e in emitted), pending)
    plan.properties = [(STATUS_KEY, status), (HASH_KEY, request.hash)]
    report.status = status
    report.gate = gate.to_json() if gate is not None else None
    report.intents = [_plain(i) for i in outcome.intents]
    report.results = [_result_json(e) for e in emitted]
    report.logs = list(outcome.logs) + ctx.handback.notes
    return plan, report, _later(status)


def _act_on_approvals(
    document: Document,
    request: FoundRequest,
    written: list[Written],
    env: RouteEnv,
    report: RequestReport,
) -> tuple[RequestPlan | None, RequestReport, str]:
    """Run the approvals the user granted, close the rejected ones; None if no change."""
    decided, pending = decisions(written, env.config.agent)
    if not decided:
        return None, report, "waiting" if pending else ""  # keeps the file due
    plan = RequestPlan(request)
    ctx = request_context(document, request, [request], written, env)
    numbers = [_number(w.identity, request.hash) for w in written]
    number = max(numbers, default=0)
    for decision in decided:
        mark = "approved" if decision.approved else "rejected"
        plan.marks.append((decision.written.begin, STATUS_KEY, mark))
        if not decision.approved:
            withdraw(ctx, decision.written.get(DIGEST_KEY) or "")
            continue
        if decision.stimulus is None:
            emitted = [kernel.Emitted(_unreadable_approval(), "guardian", "", 0)]
        elif (again := recheck(decision.stimulus, ctx)) is not None:
            # Not what orgrouter asked (edited, copied, forged): ask again, run nothing.
            order = decision.stimulus.payload.get("order")
            order = order if isinstance(order, int) else 0
            emitted = [kernel.Emitted(again, "guardian", decision.stimulus.text, order)]
        else:
            outcome = kernel.run(decision.stimulus, env.skills, ctx)
            emitted = list(outcome.emitted)
            _plan_retags(document, plan, outcome.retags)
            report.intents.extend(_plain(i) for i in outcome.intents)
        for item in map(_usable, emitted):
            number += 1
            identity = result_identity(request.hash, number)
            plan.results.append(NewResult(identity, item.result, _intent_label(item)))
            report.results.append(_result_json(item))
    report.moves = list(ctx.handback.moves)
    kinds = [r["kind"] for r in report.results]
    report.status = request_status(kinds, pending)
    plan.properties = [(STATUS_KEY, report.status)]
    return plan, report, _later(report.status)


def _later(status: str) -> str:
    """Return why a request of ``status`` is work for a later run: "retry", "waiting" or ""."""
    # An error is retried once its window passes; a WAITING approval awaits the user.
    return {"error": "retry", "waiting": "waiting"}.get(status, "")


def _decided(request: FoundRequest, written: list[Written], agent: AgentConfig) -> bool:
    """Return whether the user approved or rejected one of this instruction's approvals."""
    ours = request.hash + "/"
    return any(
        w.identity.startswith(ours)
        and w.get(KIND_KEY) == "approval"
        and w.keyword in (agent.approve_keyword, agent.reject_keyword)
        for w in written
    )


def _too_long(size: int, limit: int) -> kernel.Outcome:
    """Answer a request too long to route: deciding on it would take minutes (issue 10)."""
    note = Result(
        "Clarification needed: the request is too long",
        f"The request holds {size:,} characters; orgrouter routes requests of up to "
        f"{limit:,} (limits.instruction_chars). Shorten it, or put the text in the "
        "body of a section and ask about that section.",
        kind="clarification",
    )
    return kernel.Outcome(emitted=[kernel.Emitted(note, "router", "", 0)])


def _retry_due(request: FoundRequest, written: list[Written], now: datetime) -> bool:
    """Return whether a request whose last run failed should run again now.

    A failure (a model timeout, a spent token budget) is worth another try, but a
    lasting one must not rewrite the note on every cron run: wait RETRY_AFTER.
    """
    if request.recorded(STATUS_KEY) != "error":
        return False
    stamps = [w.get(RUN_KEY) or "" for w in written if w.identity.startswith(request.hash + "/")]
    try:
        last = max(datetime.fromisoformat(stamp) for stamp in stamps if stamp)
    except ValueError:  # no stamp, or one a user edited into something else
        return True
    if (last.tzinfo is None) != (now.tzinfo is None):
        last = last.replace(tzinfo=now.tzinfo)
    return now - last >= RETRY_AFTER


def _plan_retags(document: Document, plan: RequestPlan, retags: Sequence[Any]) -> None:
    """Add the tags skills asked for, on the headlines at the lines they named."""
    begins = document.line_begins()
    for retag in retags:
        tags = [tag for tag in retag.tags if tag_problem(tag) is None]  # never a broken line
        for line in retag.lines:
            begin = begins.get(line)
            if begin is None and not document.complete:
                begin = document.headline_begin(line)  # a headline the route did not index
            if begin is not None:
                plan.tags.extend((begin, tag) for tag in tags)


def _usable(item: kernel.Emitted) -> kernel.Emitted:
    """Return ``item``, or an error result in its place when it cannot be written."""
    problem = result_problem(item.result)
    if problem is None:
        return item
    error = Result(
        title=f"Error in skill {item.skill}: its result cannot be written",
        body=f"{problem}. Nothing of it was written.",
        kind="error",
    )
    return item._replace(result=error)


def _intent_label(item: kernel.Emitted, instruction: str = "") -> str:
    """Return the ``ORGROUTER_INTENT`` value: order, skill and the intent's text."""
    if not item.intent:  # an answer to the whole request (a clarification, a note)
        return f"{item.skill}: {' '.join(instruction.split())}".rstrip(": ")
    who = f" @{item.agent}" if item.agent else ""
    # An approval is the guardian's answer; anything else answers the intent's skill.
    skill = item.skill if item.result.kind == "approval" else item.intent_skill or item.skill
    return f"{item.order} {skill}{who}: {' '.join(item.intent.split())}"


def _result_json(item: kernel.Emitted) -> dict[str, Any]:
    """Return one result as ``--json`` shows it."""
    return {
        "title": item.result.title,
        "kind": item.result.kind,
        "skill": item.skill,
        "intent": item.intent,
        "agent": item.agent or None,
        "order": item.order,
    }


def _plain(intent: dict[str, object]) -> dict[str, Any]:
    """Return an intent as JSON-ready data (without the kernel's bookkeeping)."""
    return {k: v for k, v in intent.items() if k not in ("sensor", "approved")}


def _number(identity: str, request_hash: str) -> int:
    """Return N of ``HASH/N`` for this request's hash, or 0."""
    prefix, _, number = identity.partition("/")
    return int(number) if prefix == request_hash and number.isdigit() else 0


def _unreadable_approval() -> Result:
    """Return the error for an approval headline whose held intent cannot be read."""
    return Result(
        title="Error: cannot run the approved intent",
        body=f"The approval's {APPROVAL_KEY} property no longer holds a readable intent; "
        "nothing ran. Edit the request to route it again.",
        kind="error",
    )


__all__ = ["DocumentOutcome", "RequestReport", "RouteEnv", "route_document"]
