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

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.marks import RESULT_KEY
from orgrouter.neuro.privacy import is_private
from orgrouter.org.document import Document
from orgrouter.org.headline import ARCHIVE_TAG
from orgrouter.records import record, replace
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Retag,
    clarify,
    proposal_stimulus,
)

if TYPE_CHECKING:
    from orgrouter.route.binding import Effect

# What org-get-outline-path drops from a title: statistics cookies, and links' targets.
_COOKIE = re.compile(r"\[[0-9]+%\]|\[[0-9]+/[0-9]+\]")
_LINK = re.compile(r"\[\[([^\]]*)\](?:\[([^\]]*)\])?\]")
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
_KINDS = r"(?:heading|headline|section|subtree|entry|item|tree|line|bullet|part)s?"
_POSITION = re.compile(
    r"\s+(?:(?:right|just|directly)\s+)?(?:above|below|up\s+there|down\s+there|here)$", re.I
)
_KIND_AFTER = re.compile(rf"\s+{_KINDS}$", re.IGNORECASE)
_KIND_BEFORE = re.compile(rf"^{_KINDS}\s+(?:called\s+|named\s+|titled\s+)?", re.IGNORECASE)


class Unclear(Exception):
    """The subject or target cannot be told for sure: ask, listing the candidates."""

    def __init__(self, title: str, body: str) -> None:
        super().__init__(title)
        self.title = title
        self.body = body


@record(frozen=True)
class Subject:
    """One subtree of the request's document an executor acts on."""

    begin: int  # first star, in the document's bytes
    end: int  # the subtree's end (next headline of its level or above)
    line: int
    title: str  # its raw title (without TODO keyword, priority and tags)
    rank: int  # how many identical headline lines come before it (to find it again)
    headline: bytes  # the headline line's bytes, without its line end
    result: bool = False  # one of orgrouter's results (ranked among those only)


@record(frozen=True)
class Move:
    """One subtree to move: where it is and where it goes (see archive and refile)."""

    subject: Subject
    kind: str  # "archive" or "refile"
    target: str  # the target file (absolute); "" for the same file
    heading: str = ""  # archive: the location's heading ("* Archived Tasks"), if any
    olpath: tuple[str, ...] = ()  # refile: the outline path of the target headline
    context: tuple[tuple[str, str], ...] = ()  # archive: ARCHIVE_* properties, in order
    tags: tuple[str, ...] = ()  # archive into the same file: all tags, set on it
    # Privacy tags it only inherited: added to it where it lands, so it stays private.
    private: tuple[str, ...] = ()
    approval: str = ""  # the digest of the approval that let it run (put back if it waits)


@record(frozen=True)
class Plan:
    """What an approved executor will do, as shown on its approval headline."""

    moves: tuple[Move, ...]
    lines: tuple[str, ...]  # one line per subject: "Website (line 4) -> a.org_archive"
    binding: Effect  # what the approval binds to (orgrouter.route.binding)
    retag: tuple[int, ...] = ()  # lines to tag :ARCHIVE: instead of moving anything
    summary: str = ""  # the result's title once done

    def describe(self) -> str:
        """Return the approval body's description of what moves where."""
        return "\n".join(f"- {line}" for line in self.lines)


class ExecutorSkill(BaseSkill):
    """An executor: it asks for approval itself (bound to its plan) and runs it once approved."""

    priority = 60
    binds_approvals = True  # the guardian leaves its intents to it (route/binding.py)

    def plan(self, payload: Mapping[str, Any], ctx: Context) -> Plan:
        """Return the plan for ``payload`` in ``ctx``'s request, or raise Unclear."""
        raise NotImplementedError

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the approval to ask for, or run the approved plan."""
        return run_executor(self, proposal_stimulus(proposal).payload, ctx)


def document_of(ctx: Context) -> Document:
    """Return the document the request sits in (the pipeline puts it in the context)."""
    document = ctx.document
    if document is None or ctx.request is None:
        raise Unclear(
            "Clarification needed: no note to act on",
            "Archive, refile and delete act on the note the request sits in; "
            "route the file itself (not text given on the command line).",
        )
    return document


def index_at_line(document: Document, line: int) -> int:
    """Return the index of the indexed headline on 1-based ``line``."""
    found = next((entry.index for entry in document.entries if entry.line == line), None)
    if found is None:
        raise ValueError(f"no indexed headline on line {line}")
    return found


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
    result = is_result(document, index)
    rank = sum(
        1
        for other in document.entries[:index]
        if document.data[other.begin : other.end].rstrip(b"\r\n") == line
        and is_result(document, other.index) == result
    )
    raw = document.headline(index).raw
    return Subject(entry.begin, entry.subtree_end, entry.line, raw, rank, line, result)


def is_result(document: Document, index: int) -> bool:
    """Return whether headline ``index`` is one of orgrouter's results (it has the drawer).

    A subject is found again among the headlines like it (results or not): results
    written before it in the same run must not take its place.
    """
    head = document.head(index)
    return head.drawer is not None and head.drawer.get(RESULT_KEY) is not None


def literal_object(text: str) -> str:
    """Return an intent's object as said: no quotes or leading article, nothing else dropped."""
    text = " ".join(text.split()).strip(" .!?;:,")
    text = text.strip(_QUOTES).strip()
    return re.sub(r"^(?:the|my|our)\s+(?=\S)", "", text, flags=re.IGNORECASE)


def clean_object(text: str) -> str:
    """Return an intent's object as a title: no quotes, article, kind word or position.

    "the 2023 receipts heading", "the section Old quotes above": words that say what
    kind of thing the subject is or where it sits are not part of its title.
    """
    text = literal_object(text)
    bare = _POSITION.sub("", text).strip()
    bare = _KIND_AFTER.sub("", bare).strip()
    bare = _KIND_BEFORE.sub("", bare).strip().strip(_QUOTES).strip()
    return bare or text


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
    # A headline really titled as said wins ("archive the section heading" over a
    # headline "Section heading"); else the words that say what kind of thing it is or
    # where it sits are dropped ("clean out the 2023 receipts heading").
    literal, clean = literal_object(phrase), clean_object(phrase)
    try:
        return document, [named(document, literal, own)], "named"
    except Unclear:
        if clean == literal:
            raise
    return document, [named(document, clean, own)], "named"


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
    """Return the done children of the section the request sits in (in order).

    As ``org-archive-all-done``: a done child with an open TODO under it stays.
    """
    parent = document.entries[own].parent
    todo = document.settings.todo
    done = [
        entry
        for entry in document.entries
        if entry.parent == parent
        and entry.index != own
        and document.headline(entry.index).todo in todo.done
    ]
    found = [subject_at(document, e.index) for e in done if not _open_below(document, e.index)]
    if not found:
        where = "the file's top level" if parent is None else document.headline(parent).raw
        kept = " (the done ones hold an open TODO under them)" if done else ""
        raise Unclear(
            "Clarification needed: no done items here",
            f"No headline directly under {where!r} is in a done state "
            f"({', '.join(todo.done)}){kept}; nothing to act on.",
        )
    return found


def _open_below(document: Document, index: int) -> bool:
    """Return whether a headline under headline ``index`` has a TODO state not done."""
    entry = document.entries[index]
    todo = document.settings.todo
    return any(
        entry.begin < other.begin < entry.subtree_end
        and (state := document.headline(other.index).todo) is not None
        and not todo.is_done(state)
        for other in document.entries
    )


def outline_title(raw: str) -> str:
    """Return a title as ``org-get-outline-path`` gives it (cookies out, links shown)."""
    text = _COOKIE.sub("", raw)
    text = _LINK.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(1), text)
    return text.strip(" \t\r\n")


def named(document: Document, title: str, own: int) -> Subject:
    """Return the headline titled ``title`` (case-insensitive), or raise Unclear.

    The title as written or as Org shows it (a link's description, no cookies): the
    headline ``* [[https://example.org][Site]] [1/2]`` is "Site".
    """
    wanted = title.casefold()

    def titles(index: int) -> tuple[str, str]:
        raw = document.headline(index).raw
        return raw.casefold(), outline_title(raw).casefold()

    matches = [e.index for e in document.entries if e.index != own and wanted in titles(e.index)]
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
    line = _text_line(document, own, wanted)
    if line is not None:
        raise Unclear(
            f"Clarification needed: {title!r} is a line of the text, not a headline",
            f"The line {line!r} is part of a section's text. Delete, archive and refile "
            "act on whole headlines and never edit the text you wrote: remove the line "
            "yourself, or make it a headline of its own and ask again.",
        )
    listed = "\n".join(f"- {t}" for t in near[:12]) or "- (none is close)"
    raise Unclear(
        f"Clarification needed: no headline called {title!r}",
        f"No headline of this note has that title. Headlines that come close:\n{listed}",
    )


def _text_line(document: Document, own: int, wanted: str) -> str | None:
    """Return the line of the request's section text (not a headline) holding ``wanted``."""
    parent = document.entries[own].parent
    entry = document.entries[own if parent is None else parent]
    text = document.data[entry.begin : entry.subtree_end].decode("utf-8", "replace")
    for line in text.splitlines()[1:]:
        if wanted and not line.startswith("*") and wanted in line.casefold():
            return line.strip()
    return None


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
        if is_result(document, entry.index):
            kept.append(text[position : entry.begin])
            position = skip_until = entry.subtree_end
    kept.append(text[position:])
    # Trailing blanks aside: results appended to a note without a final newline add one.
    return EMPTY_DRAWER.sub(b"", RESULT_MARK.sub(b"", b"".join(kept))).rstrip(b" \t\r\n")


def binding(kind: str, data: bytes, subjects: Sequence[Subject], target: str) -> Effect:
    """Return what an approval binds to: the action and target, and each subject's text."""
    from orgrouter.route.binding import Effect

    items = {
        f"{n}. {subject.title}": subject.headline + b"\n" + subject_text(data, subject)
        for n, subject in enumerate(subjects, 1)
    }
    return Effect.of(f"{kind} -> {target or 'this file'}", items)


def write_problem(ctx: Context, target: Path) -> str | None:
    """Return why an approved move may never write ``target`` (io/policy.py), or None."""
    from orgrouter.io.policy import Forbidden, check_routed_write

    if ctx.request is None or ctx.request.path is None or ctx.notes_root is None:
        return "no note and notes root are known, so no other file may be written"
    if not re.search(r"\.org(?:_archive)?$", target.name, re.IGNORECASE):
        return f"{target.name} is not an Org file (.org or .org_archive)"
    verdict = check_routed_write(ctx.notes_root, ctx.request.path, target)
    if isinstance(verdict, Forbidden):
        return verdict.reason
    if target.is_file():
        from orgrouter.errors import InputError
        from orgrouter.io.text import read_org_file

        try:
            read_org_file(target)
        except InputError as error:
            return f"{target.name} is not an Org note orgrouter can edit ({error.message})"
    return None


def where_note(ctx: Context, target: Path) -> str:
    """Return a warning for the approval when ``target`` lies outside the note's tree."""
    from orgrouter.io.policy import NeedsApproval, check_routed_write

    if ctx.request is None or ctx.request.path is None or ctx.notes_root is None:
        return ""
    verdict = check_routed_write(ctx.notes_root, ctx.request.path, target)
    outside = isinstance(verdict, NeedsApproval) and "outside" in verdict.reason
    return f" (NOTE: {verdict.reason})" if outside else ""


def inherited_privacy(document: Document, subject: Subject, ctx: Context) -> tuple[str, ...]:
    """Return the privacy tags ``subject`` inherits but does not carry itself.

    Org's archive and refile drop inherited tags (outside the same file); a private
    subtree must stay private wherever it goes, so these go onto its headline.
    """
    index = index_at_line(document, subject.line)
    own = set(document.own_tags(index))
    private = ctx.config.privacy.tags
    return tuple(t for t in document.tags(index) if is_private((t,), private) and t not in own)


def relative_name(path: Path, ctx: Context) -> str:
    """Return ``path`` as shown to the user: relative to the notes root when inside it."""
    try:
        return os.fspath(path) if ctx.notes_root is None else os.path.relpath(path, ctx.notes_root)
    except ValueError:  # another drive (Windows)
        return os.fspath(path)


def bound_name(path: Path, ctx: Context) -> str:
    """Return ``path`` as an approval binds it: its name, and where a symlink leads.

    A symlink pointed elsewhere after the approval (a ``git pull`` can do that) is
    another target, so the approval must not cover it.
    """
    name = relative_name(path, ctx)
    real = os.path.realpath(path)
    root = ctx.notes_root
    # Only links met below the notes root count: a root reached through a link
    # (~/notes -> /data/notes) names every target the same way on every run.
    same = real == os.path.abspath(path) or (
        root is not None and os.path.normpath(os.path.join(os.path.realpath(root), name)) == real
    )
    return name if same else f"{name} (-> {real})"


def run_executor(skill: ExecutorSkill, payload: Mapping[str, Any], ctx: Context) -> Emit:
    """Run the plan the user approved exactly (route/binding.py); otherwise ask (again)."""
    from orgrouter.route.binding import require_approval

    try:
        plan = skill.plan(payload, ctx)
    except Unclear as unclear:
        return clarify(unclear.title, unclear.body)
    reason = str(payload.get("risk_reason") or f"{skill.name} changes the notes beyond results")
    # The approval holds this executor's name, so the approved intent comes back to it
    # ("tag it archived" arrives as a tag intent).
    asked = require_approval({**payload, "skill": skill.name}, ctx, plan.binding, reason)
    if asked is not None:
        body = f"{plan.describe()}\n{asked.body}"
        return Emit((replace(asked, body=body),))
    done = (Result(title=plan.summary, body=plan.describe()),)
    if plan.retag:
        return Emit(done, retags=(Retag(plan.retag, (ARCHIVE_TAG,)),))
    digest = plan.binding.digest
    ctx.handback.moves.extend(replace(move, approval=digest) for move in plan.moves)
    return Emit(done)
