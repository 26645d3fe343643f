"""What the archive, refile and delete executors share: subject, binding, plans, policy.

The subject of "archive this" is what "this" means everywhere else: the request's own
subtree when the request has a body, else the headline the request sits under (the
section summarize reads). A named headline ("archive Old project") is found by title.
An executor first makes a :class:`Plan` (what moves where); the guardian shows it on
the approval headline and stores its :attr:`Plan.binding`, a hash of the subject's
text and the target. Once approved, the plan is made again and runs only if the
binding is unchanged: a subject edited or a target moved since means a new approval.

A plan never writes: the pipeline applies its :class:`Move` values to the routed bytes
(``apply_moves``), and the runner commits both files through the move journal.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from orgrouter.org.document import Document
from orgrouter.org.drawer import locate_head
from orgrouter.skills.base import Context, Emit, Result

DOCUMENT = "document"  # ctx.extra key: the Document the request sits in
MOVES = "moves"  # ctx.extra key: the Moves approved executors planned
BINDING = "binding"  # payload key: the binding the approval showed
EXECUTORS = ("archive", "refile", "delete")
RESULT_MARK = re.compile(rb"^[ \t]*:ORGROUTER_[A-Z_]+:.*(?:\r?\n|$)", re.MULTILINE | re.IGNORECASE)
EMPTY_DRAWER = re.compile(
    rb"^[ \t]*:PROPERTIES:[ \t]*\r?\n[ \t]*:END:[ \t]*(?:\r?\n|$)", re.M | re.I
)
_THIS = re.compile(
    r"^(?:(?:this|that|it|here)(?:\s+(?:one|section|subtree|entry|heading|headline|item|"
    r"note|draft|tree|project|task|part|page))?|these|those|them)$",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"^(?:all\s+)?(?:the\s+)?(?:done|finished|completed|closed)\s+"
    r"(?:items?|tasks?|entries|ones|todos?|headlines?|children)$",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’"


class Unclear(Exception):
    """The subject or target cannot be told for sure: ask, listing the candidates."""

    def __init__(self, title: str, body: str) -> None:
        super().__init__(title)
        self.title = title
        self.body = body

    def clarification(self) -> Emit:
        """Return the clarification result for this question."""
        return Emit((Result(title=self.title, body=self.body, kind="clarification"),))


@dataclass(frozen=True)
class Subject:
    """One subtree of the request's document an executor acts on."""

    begin: int  # first star, in the document's bytes
    end: int  # the subtree's end (next headline of its level or above)
    line: int
    title: str  # its raw title (without TODO keyword, priority and tags)
    rank: int  # how many identical headline lines come before it (to find it again)
    headline: bytes  # the headline line's bytes, without its line end


@dataclass(frozen=True)
class Move:
    """One subtree to move: where it is and where it goes (see archive and refile)."""

    subject: Subject
    kind: str  # "archive" or "refile"
    target: str  # the target file (absolute); "" for the same file
    heading: str = ""  # archive: the location's heading ("* Archived Tasks"), if any
    olpath: tuple[str, ...] = ()  # refile: the outline path of the target headline
    context: tuple[tuple[str, str], ...] = ()  # archive: ARCHIVE_* properties, in order
    tags: tuple[str, ...] = ()  # archive into the same file: all tags, set on it


@dataclass(frozen=True)
class Plan:
    """What an approved executor will do, as shown on its approval headline."""

    moves: tuple[Move, ...]
    lines: tuple[str, ...]  # one line per subject: "Website (line 4) -> a.org_archive"
    binding: str
    retag: tuple[int, ...] = ()  # lines to tag :ARCHIVE: instead of moving anything
    summary: str = ""  # the result's title once done

    def describe(self) -> str:
        """Return the approval body's description of what moves where."""
        return "\n".join(f"- {line}" for line in self.lines)


class Executor(Protocol):
    """An executor skill: it plans before approval and runs the plan after."""

    name: str

    def plan(self, payload: Mapping[str, Any], ctx: Context) -> Plan:
        """Return the plan for ``payload`` in ``ctx``'s request, or raise Unclear."""
        ...


def document_of(ctx: Context) -> Document:
    """Return the document the request sits in (the pipeline puts it in ``ctx.extra``)."""
    document = ctx.extra.get(DOCUMENT)
    if not isinstance(document, Document) or ctx.request is None:
        raise Unclear(
            "Clarification needed: no note to act on",
            "Archive, refile and delete act on the note the request sits in; "
            "route the file itself (not text given on the command line).",
        )
    return document


def index_at_line(document: Document, line: int) -> int:
    """Return the index of the indexed headline on 1-based ``line``."""
    for entry in document.entries:
        if entry.line == line:
            return entry.index
    raise ValueError(f"no indexed headline on line {line}")


def full(document: Document) -> Document:
    """Return ``document`` with every headline indexed (a route indexes only a few)."""
    if document.complete:
        return document
    whole = Document(document.data, document.path, newline=document.newline)
    whole.label = document.label
    return whole


def subject_at(document: Document, index: int) -> Subject:
    """Return headline ``index``'s subtree as a Subject."""
    entry = document.entries[index]
    line = document.data[entry.begin : entry.end].rstrip(b"\r\n")
    rank = sum(
        1
        for other in document.entries[:index]
        if document.data[other.begin : other.end].rstrip(b"\r\n") == line
    )
    return Subject(
        entry.begin,
        entry.subtree_end,
        entry.line,
        document.headline(index).raw,
        rank,
        line,
    )


def clean_object(text: str) -> str:
    """Return an intent's object without quotes, a leading article or final punctuation."""
    text = " ".join(text.split()).strip(" .!?;:,")
    text = text.strip(_QUOTES).strip()
    return re.sub(r"^(?:the|my|our)\s+(?=\S)", "", text, flags=re.IGNORECASE)


def resolve_subjects(words: str, ctx: Context) -> tuple[Document, list[Subject], str]:
    """Return the document, the subjects ``words`` name, and how they were read."""
    document = full(document_of(ctx))
    assert ctx.request is not None
    own = index_at_line(document, ctx.request.line)
    phrase = " ".join(words.split()).strip(" .!?;:,")
    if not phrase or _THIS.match(phrase):
        return document, [this_subject(document, own, ctx)], "this"
    if _DONE.match(phrase):
        return document, done_children(document, own, ctx), "done"
    return document, [named(document, clean_object(phrase), own)], "named"


def this_subject(document: Document, own: int, ctx: Context) -> Subject:
    """Return what "this" means: the request's own subtree if it has a body, else its parent."""
    assert ctx.request is not None
    if ctx.request.section.strip():
        return subject_at(document, own)
    parent = document.entries[own].parent
    if parent is None:
        raise Unclear(
            'Clarification needed: what is "this"?',
            'The request has no body and sits at the top of the file, so "this" '
            "names no headline. Put the request under the headline to act on, or "
            'name it: archive "Old project".',
        )
    return subject_at(document, parent)


def done_children(document: Document, own: int, ctx: Context) -> list[Subject]:
    """Return the done children of the section the request sits in (in order)."""
    parent = document.entries[own].parent
    todo = document.settings.todo
    found = [
        subject_at(document, entry.index)
        for entry in document.entries
        if entry.parent == parent
        and entry.index != own
        and document.headline(entry.index).todo in todo.done
    ]
    if not found:
        where = "the file's top level" if parent is None else document.headline(parent).raw
        raise Unclear(
            "Clarification needed: no done items here",
            f"No headline directly under {where!r} is in a done state "
            f"({', '.join(todo.done)}); nothing to act on.",
        )
    return found


def named(document: Document, title: str, own: int) -> Subject:
    """Return the headline titled ``title`` (case-insensitive), or raise Unclear."""
    wanted = title.casefold()
    matches = [
        entry.index
        for entry in document.entries
        if entry.index != own and document.headline(entry.index).raw.casefold() == wanted
    ]
    if len(matches) == 1:
        return subject_at(document, matches[0])
    if matches:
        listed = "\n".join(
            f"- line {document.entries[i].line}: {document.headline(i).raw}" for i in matches
        )
        raise Unclear(
            f"Clarification needed: several headlines are called {title!r}",
            f"Which one? Name it more precisely, or put the request under it:\n{listed}",
        )
    near = [
        document.headline(e.index).raw
        for e in document.entries
        if e.index != own and wanted and wanted in document.headline(e.index).raw.casefold()
    ]
    listed = "\n".join(f"- {t}" for t in near[:12]) or "- (none is close)"
    raise Unclear(
        f"Clarification needed: no headline called {title!r}",
        f"No headline of this note has that title. Headlines that come close:\n{listed}",
    )


def subject_text(data: bytes, subject: Subject) -> bytes:
    """Return a subject's bytes as the binding sees them: orgrouter's own lines left out.

    Result headlines and ``ORGROUTER_*`` properties change as the approval is written
    and decided; the user's text is what the approval binds to.
    """
    text = data[subject.begin : subject.end]
    kept: list[bytes] = []
    document = Document(text)
    skip_until = -1
    position = 0
    for entry in document.entries:
        if entry.begin < skip_until:
            continue
        head = locate_head(text, entry.scan_line, newline=document.newline)
        if head.drawer is not None and head.drawer.get("ORGROUTER_RESULT") is not None:
            kept.append(text[position : entry.begin])
            position = skip_until = entry.subtree_end
    kept.append(text[position:])
    return EMPTY_DRAWER.sub(b"", RESULT_MARK.sub(b"", b"".join(kept)))


def binding(kind: str, data: bytes, subjects: Sequence[Subject], target: str) -> str:
    """Return the hash an approval binds to: the action, the subjects' text, the target."""
    digest = hashlib.sha256(kind.encode() + b"\0" + target.encode("utf-8", "replace") + b"\0")
    for subject in subjects:
        digest.update(subject.headline + b"\0" + subject_text(data, subject) + b"\0")
    return digest.hexdigest()[:16]


@dataclass
class Policy:
    """Which files an approved move may write (until a shared write policy exists)."""

    root: Path | None
    forbidden: tuple[Path, ...] = field(default_factory=tuple)

    def problem(self, target: Path) -> str | None:
        """Return why ``target`` may not be written, or None when it may."""
        if self.root is None:
            return "no notes root is known, so no other file may be written"
        root = self.root.resolve()
        resolved = Path(os.path.realpath(target))
        if resolved != root and root not in resolved.parents:
            return f"{target} is outside the notes root {root}"
        relative = resolved.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            return f"{relative} is in a hidden directory or is a hidden file"
        if resolved.name == "orgrouter.toml" or resolved in self.forbidden:
            return f"{relative} is orgrouter's own configuration or state"
        if not re.search(r"\.org(?:_archive)?$", resolved.name, re.IGNORECASE):
            return f"{relative} is not an Org file (.org or .org_archive)"
        return None


def policy_for(ctx: Context) -> Policy:
    """Return the write policy of ``ctx``'s run."""
    state = getattr(ctx.state, "path", None)
    forbidden = (Path(state).resolve(),) if state is not None else ()
    return Policy(ctx.notes_root, forbidden)


def relative_name(path: Path, ctx: Context) -> str:
    """Return ``path`` as shown to the user: relative to the notes root when inside it."""
    root = ctx.notes_root
    if root is not None:
        try:
            return os.path.relpath(path, root)
        except ValueError:
            return os.fspath(path)
    return os.fspath(path)


ARCHIVE_TAG = "ARCHIVE"  # `org-archive-tag'


def executor_for(name: str) -> Executor:
    """Return the built-in executor skill called ``name``."""
    from orgrouter.skills.registry import load_builtin

    skill = load_builtin(name)
    if not hasattr(skill, "plan"):
        raise TypeError(f"skill {name!r} is not an executor")
    return skill  # type: ignore[return-value]


def hold(name: str, payload: Mapping[str, Any], ctx: Context) -> Emit:
    """Return the approval that shows what executor ``name`` would do (or a question)."""
    from orgrouter.route.guardian import approval_result

    try:
        plan = executor_for(name).plan(payload, ctx)
    except Unclear as unclear:
        return unclear.clarification()
    held = {**payload, BINDING: plan.binding}
    return Emit((approval_result(held, ctx.config.agent, plan.describe()),))


def run_executor(skill: Executor, payload: Mapping[str, Any], ctx: Context) -> Emit:
    """Run an approved plan whose binding is unchanged; otherwise ask (again)."""
    from orgrouter.route.guardian import APPROVED_FLAG, approval_result

    if not payload.get(APPROVED_FLAG):
        return hold(skill.name, payload, ctx)  # never unapproved, whatever routed it here
    try:
        plan = skill.plan(payload, ctx)
    except Unclear as unclear:
        return unclear.clarification()
    if payload.get(BINDING) != plan.binding:
        held = {k: v for k, v in payload.items() if k != APPROVED_FLAG}
        held[BINDING] = plan.binding
        note = (
            "What the approval showed has changed since (the subject's text or the "
            "target), so nothing ran. This is what it would do now:\n" + plan.describe()
        )
        return Emit((approval_result(held, ctx.config.agent, note),))
    if plan.retag:
        from orgrouter.skills.base import Retag

        return Emit(
            (Result(title=plan.summary, body=plan.describe()),),
            retags=(Retag(plan.retag, (ARCHIVE_TAG,)),),
        )
    ctx.extra.setdefault(MOVES, []).extend(plan.moves)
    return Emit((Result(title=plan.summary, body=plan.describe()),))
