"""What a request's skills see: the run's shared environment and the request's context.

``request_context`` turns an addressed headline into the ``Context`` the kernel hands
to skills: the section "this" refers to, the parent's, inherited tags (and so
whether the subtree is private), earlier results, and the model backend, which a
private request never gets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.address import address_names
from orgrouter.config import Config
from orgrouter.marks import MARK
from orgrouter.neuro.privacy import is_private
from orgrouter.org.document import Document
from orgrouter.org.headline import parse_headline
from orgrouter.org.scan import HEADLINE_RE
from orgrouter.records import record
from orgrouter.route.request import FoundRequest, find_address
from orgrouter.route.results import RUN_KEY, Written, written_results
from orgrouter.skills.base import Context, Heading, Request, ResultRef, Skill
from orgrouter.skills.orgtext import prose_lines
from orgrouter.skills.registry import targets

if TYPE_CHECKING:
    from orgrouter.neuro.backend import NeuroBackend
    from orgrouter.route.ratelimit import RateLimiter
    from orgrouter.route.rules import Rules
    from orgrouter.state import StateDB

_COMPACT = re.compile(r"^\s*/compact\b", re.IGNORECASE)
MAX_OUTLINE = 200  # headlines a skill is shown; a huge subtree is cut, not read whole
MAX_OUTLINE_BYTES = 512 * 1024


@record
class RouteEnv:
    """What every request of a run shares."""

    config: Config
    skills: Sequence[Skill]
    now: datetime
    notes_root: Path | None = None
    state: StateDB | None = None
    limiter: RateLimiter | None = None
    backend_for: Callable[[str], NeuroBackend | None] = lambda _agent: None
    force: bool = False
    dry_run: bool = False  # skills with side effects (tangle) only report them
    file_agent: str | None = None  # #+ORGROUTER_AGENT: of the document being routed
    rules: Rules | None = None  # loaded once per run (by the first request, if not here)
    write_lock: Callable[[], None] | None = None  # see Context.write_lock
    # Route only requests whose headline starts in this byte range (an editor's
    # "route the subtree at point"); the rest of the document is context only.
    within: tuple[int, int] | None = None

    @property
    def run(self) -> str:
        """Return the run's ``ORGROUTER_RUN`` stamp (from the clock, so --now fixes it)."""
        return self.now.isoformat(timespec="seconds")

    def selves(self) -> tuple[str, ...]:
        """Return the agent's own names (sub-agents are others, delegated to)."""
        return address_names(self.file_agent or self.config.agent.name, ())

    def names(self) -> tuple[str, ...]:
        """Return the addresses the agent answers to in this document."""
        agent = self.config.agent
        subs = [*agent.sub_agents, *self.config.agents]
        return address_names(self.file_agent or agent.name, subs)


def request_context(
    document: Document,
    request: FoundRequest,
    found: list[FoundRequest],
    written: list[Written],
    env: RouteEnv,
    lines: frozenset[int] | None = None,
    outlines: dict[int, tuple[Heading, ...]] | None = None,
) -> Context:
    """Return the context skills see for ``request`` (``lines``: the requests' lines)."""
    entry = request.entry
    tags = document.tags(request.index)
    private = is_private(tags, env.config.privacy.tags)
    parent = entry.parent
    results = tuple(_ref(w, request.line) for w in written)
    if _COMPACT.match(request.instruction):
        results = _compact_scope(document, request, found)
    path = Path(document.path) if document.path is not None else None
    own = _own_section(document, request.index, request.head.body_begin)
    headline = document.headline(request.index)
    address = find_address(headline.raw, env.names())
    said = headline.raw[address.end :] if address is not None else headline.raw
    if request.items or not said.strip(" \t:,;.!-"):
        own = ""  # the body is the instruction (a bare "* @agent"), not what it is about
    scope = request.index if own.strip() or parent is None else parent
    outlines = {} if outlines is None else outlines  # by scope: a parent's bare requests share it
    if scope not in outlines:
        outlines[scope] = outline(document, scope, lines or {r.line for r in found}, env.names())
    shaped = Request(
        path=path,
        line=request.line,
        headline=headline.raw,
        instruction=request.instruction,
        agent=request.agent,
        section=own,
        parent_section=_parent_section(document, parent),
        private=private,
        tags=tags,
        own_tags=tuple(headline.tags),
        parent_line=None if parent is None else document.entries[parent].line,
        parent_title="" if parent is None else document.headline(parent).raw,
        results=results,
        outline=outlines[scope],
    )
    backend = None if private else env.backend_for(request.agent)
    return Context(
        config=env.config,
        now=env.now,
        request=shaped,
        backend=backend,
        notes_root=env.notes_root,
        state=env.state,
        backend_for=env.backend_for,
        dry_run=env.dry_run,
        rules=env.rules,
        # Specialists are model calls: without a model nothing spawns, so nothing counts
        # against the session's rate window (and the gate handles the request directly).
        limiter=env.limiter if backend is not None else None,
        session=document.name,
        selves=env.selves(),
        targets=targets(env.skills),
        self_binding=frozenset(s.name for s in env.skills if getattr(s, "binds_approvals", False)),
        note_bytes=document.data,
        document=document,
        write_lock=env.write_lock,
    )


def outline(
    document: Document, index: int, requests: AbstractSet[int], names: tuple[str, ...]
) -> tuple[Heading, ...]:
    """Return the headlines below headline ``index``, without requests and results.

    The document may index only the requests' surroundings (``Document.around``), so
    this reads the subtree's bytes itself; a request's or a result's subtree is left
    out whole (results answer requests; they are not the user's content), in one step
    where the document indexed it (line by line, 1,000 nested requests took seconds).
    """
    data, entry = document.data, document.entries[index]
    end = min(entry.subtree_end, entry.end + MAX_OUTLINE_BYTES)
    line, counted_to = entry.line + 1, entry.end
    headings: list[Heading] = []
    skip_below: int | None = None  # level of a left-out subtree we are inside
    marks = HEADLINE_RE.finditer(data, entry.end, end)
    mark = next(marks, None)
    while mark is not None and len(headings) < MAX_OUTLINE:
        following = next(marks, None)
        begin, level = mark.start(), len(mark.group(1))
        line += data.count(b"\n", counted_to, begin)
        counted_to = begin
        if skip_below is None or level <= skip_below:
            skip_below = None
            line_end = data.find(b"\n", begin, end)
            line_end = end if line_end < 0 else line_end
            body_end = following.start() if following else end
            head = data[begin:line_end].decode("utf-8", "replace").rstrip("\r")
            parsed = parse_headline(head, document.settings.todo)
            marked = data.find(MARK, line_end + 1, body_end) >= 0
            if line in requests or marked or find_address(parsed.raw, names):
                skip_below = level
                inside = document.outline.starting(begin)
                after = None if inside is None else document.outline.starting(inside.subtree_end)
                if inside is not None and inside.subtree_end >= end:
                    following = None
                elif after is not None:
                    counted_to, line = after.begin, after.line
                    marks = HEADLINE_RE.finditer(data, counted_to, end)
                    following = next(marks, None)
            else:
                body = data[line_end + 1 : body_end].decode("utf-8", "replace")
                depth, tags = level - entry.level, tuple(parsed.tags)
                headings.append(Heading(line, depth, parsed.raw, parsed.todo, tags, body))
        mark = following
    return tuple(headings)


def _compact_scope(
    document: Document, request: FoundRequest, found: list[FoundRequest]
) -> tuple[ResultRef, ...]:
    """Return the results ``/compact`` works on: its parent request's, else the file's."""
    by_index = {r.index: r for r in found}
    parent = request.entry.parent
    while parent is not None and parent not in by_index:
        parent = document.entries[parent].parent
    owners = [by_index[parent]] if parent is not None else [r for r in found if r is not request]
    refs: list[ResultRef] = []
    for owner in owners:
        refs.extend(_ref(w, owner.line) for w in written_results(document, owner))
    return tuple(refs)


def _ref(written: Written, owner: int) -> ResultRef:
    """Return a skill's view of one written result."""
    return ResultRef(written.line, written.title, written.get(RUN_KEY) or "", written.tags, owner)


def _own_section(document: Document, index: int, body_begin: int) -> str:
    """Return a headline's own section text (before its first child), without results."""
    entry = document.entries[index]
    end = entry.subtree_end
    if index + 1 < len(document.entries) and document.entries[index + 1].parent == index:
        end = document.entries[index + 1].begin
    return document.data[body_begin:end].decode("utf-8", "replace")


def _parent_section(document: Document, parent: int | None) -> str:
    """Return the parent's section text, or the text before the first headline."""
    if parent is None:
        first = document.entries[0].begin if document.entries else len(document.data)
        text = document.data[:first].decode("utf-8", "replace")
        return "\n".join(prose_lines(text))
    return _own_section(document, parent, document.head(parent).body_begin)
