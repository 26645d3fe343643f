"""Apply approved executors' moves to a routed document: cut here, paste there.

The pipeline first writes the request's results (the approval marked, "Archived ...")
into the document's bytes, then calls :func:`apply_moves`: each subject is found again
in those bytes (by its headline line and how many identical lines precede it), copied
with what was just written inside it, pasted into its target as Org does, and cut.
The bytes of every other file to write come back as :class:`FileWrite` values; the
runner commits them with the source through the move journal.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orgrouter.errors import InputError
from orgrouter.io.text import check_org, detect_newline, read_stable, refuse_cr_only
from orgrouter.org.document import Document
from orgrouter.org.subtree import Span, add_tags, subtree_span, without_local_variables
from orgrouter.skills.executor import Move, Subject


@dataclass(frozen=True)
class FileWrite:
    """New bytes for a file other than the routed one."""

    path: str
    before: bytes | None  # what the plan was made against; None: the file is new
    data: bytes


@dataclass
class _Targets:
    """The target files' bytes as the moves build them up."""

    before: dict[str, bytes | None] = field(default_factory=dict)
    now: dict[str, bytes] = field(default_factory=dict)

    def name(self, path: str) -> str:
        """Return the name ``path``'s file is written by: the first one a move gave it."""
        real = os.path.realpath(path)  # a symlink and its target are one file, one write
        return next((p for p in self.now if os.path.realpath(p) == real), path)

    def read(self, path: str, source: Path, kind: str) -> bytes:
        """Return the target's bytes so far, read as route reads a note (refused alike)."""
        if path not in self.now:
            data: bytes | None = None
            if os.path.exists(path):
                data = read_stable(path)[0]
                check_org(data, path)
            self.before[path] = data
            if data is None:
                from orgrouter.skills.archive import new_file_prefix

                self.now[path] = new_file_prefix(Path(path), source)
            elif not data and kind == "archive":
                from orgrouter.skills.archive import empty_file_prefix

                self.now[path] = empty_file_prefix(Path(path))
            else:
                self.now[path] = data
        return self.now[path]


def locate(data: bytes, subjects: Sequence[Subject]) -> list[int]:
    """Return where each subject's headline is in ``data`` (the write-back changed it)."""
    from orgrouter.skills.executor import is_result

    document = Document(data)
    heads = {s.headline for s in subjects}
    seen: dict[tuple[bytes, bool], list[int]] = {}
    for entry in document.entries:
        text = data[entry.begin : entry.end].rstrip(b"\r\n")
        if text in heads:
            key = (text, is_result(document, entry.index))
            seen.setdefault(key, []).append(entry.begin)
    begins = []
    for subject in subjects:
        found = seen.get((subject.headline, subject.result), [])
        if subject.rank >= len(found):
            raise InputError(f"cannot find {subject.title!r} again to move it; nothing was moved")
        begins.append(found[subject.rank])
    return begins


def apply_moves(
    data: bytes, moves: Sequence[Move], path: str | None, newline: bytes
) -> tuple[bytes, list[FileWrite]]:
    """Return the document's bytes with ``moves`` made, and the other files' new bytes."""
    if path is None:
        raise InputError("moves need the note's file (not text on stdin); nothing was moved")
    source = Path(os.path.abspath(path))
    targets = _Targets()
    chosen = _outermost(moves)
    # Every subject is found before the first move: a move changes the note (a cut, a
    # paste), and a subject found again by its rank among identical headline lines
    # after that would be another one (or none). Each move's edits carry the others along.
    begins = locate(data, [move.subject for move in chosen])
    order = _dependency_order(data, chosen, begins, newline)
    chosen, begins = [chosen[n] for n in order], [begins[n] for n in order]
    for number, move in enumerate(chosen):
        begin = begins[number]
        if not data.startswith(move.subject.headline, begin):
            raise InputError(
                f"cannot find {move.subject.title!r} again to move it; nothing was moved"
            )
        span = without_local_variables(data, subtree_span(data, begin))
        text = data[span.begin : span.end]
        before = data
        if not move.target:
            pasted, point = _paste(move, data, text, newline, source, span)
            pasted = add_tags(pasted, point, move.private) if move.private else pasted
            begin = span.begin + (len(pasted) - len(data) if point <= span.begin else 0)
            # Org cuts the subtree as it is after the paste: a heading appended right
            # after it (an archive heading not found) takes the blank lines before it.
            after = without_local_variables(pasted, subtree_span(pasted, begin))
            if after.begin <= point < after.end:  # the cut would take the pasted copy too
                raise InputError(
                    f"{move.subject.title!r} would be pasted into itself; nothing was moved"
                )
            data = pasted[: after.begin] + pasted[after.end :]
            edits = [_splice(before, pasted, point), (after.begin, after.end, after.begin)]
        else:
            name = targets.name(move.target)
            target = targets.read(name, source, move.kind)
            target_newline = detect_newline(target)  # a new file: LF, as Emacs makes it
            refuse_cr_only(target_newline, move.target)
            if target_newline != newline:  # Emacs decodes both files: lines take the target's
                # A note of mixed line ends is decoded as LF, its \r kept as a ^M character.
                lines = text.replace(b"\r\n", b"\n") if newline == b"\r\n" else text
                text = lines.replace(b"\n", target_newline)
            pasted, point = _paste(move, target, text, target_newline, source, None)
            targets.now[name] = (
                add_tags(pasted, point, move.private) if move.private else pasted
            )
            data = data[: span.begin] + data[span.end :]
            edits = [(span.begin, span.end, span.begin)]
        for edit in edits:
            begins = [_follow(b, edit) for b in begins]
    writes = [FileWrite(p, targets.before[p], targets.now[p]) for p in targets.now]
    return data, writes


def _splice(old: bytes, new: bytes, point: int) -> tuple[int, int, int]:
    """Return the one region a paste at ``point`` replaced: (start, old end, new end).

    Nothing before ``point`` but blanks changes (archive.paste, refile.paste), so the
    region starts at ``point`` at the latest: a pasted subtree that begins like the
    headline it goes before is not taken for that headline.
    """
    limit = min(len(old), len(new), point)
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    most = min(len(old), len(new)) - start
    tail = 0
    while tail < most and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    return start, len(old) - tail, len(new) - tail


def _follow(position: int, edit: tuple[int, int, int]) -> int:
    """Return where ``position`` is after ``edit`` (-1: in the region it replaced)."""
    start, old_end, new_end = edit
    if position < start:
        return position
    if position >= old_end:
        return position + new_end - old_end
    return -1


def _dependency_order(
    data: bytes, moves: Sequence[Move], begins: Sequence[int], newline: bytes
) -> list[int]:
    """Return the order to make ``moves`` in: a refile into a subtree another move takes first.

    "refile X under B/Child" and "archive B", both approved, can both be done only in
    that order (X then goes with B); the other way the target is gone and the file fails
    every run, asking both again. Otherwise the moves keep their order.
    """
    from orgrouter.skills import refile
    from orgrouter.skills.executor import Unclear

    spans = [subtree_span(data, begin) for begin in begins]
    first: dict[int, set[int]] = {n: set() for n in range(len(moves))}  # n after these
    document: Document | None = None
    for n, move in enumerate(moves):
        if move.kind != "refile" or move.target or not move.olpath:
            continue
        document = document or Document(data, newline=newline)
        try:
            index, _ = refile.find_heading(document, "/".join(move.olpath), "", exact=True)
        except Unclear:
            continue  # the move says so when it is made
        where = document.entries[index].begin
        for other, span in enumerate(spans):
            if other != n and span.begin <= where < span.end:
                first[other].add(n)
    order: list[int] = []

    def place(n: int, waiting: tuple[int, ...]) -> None:
        """Place move ``n`` after those it waits for, depth first (a cycle: as it comes)."""
        for m in sorted(first[n]):
            if m not in order and m not in waiting:
                place(m, (*waiting, n))
        order.append(n)

    for n in range(len(moves)):  # in order, each after the moves it waits for
        if n not in order:
            place(n, ())
    return order


def _outermost(moves: Sequence[Move]) -> list[Move]:
    """Return ``moves`` without those whose subject another one moves already (with it)."""
    kept: list[Move] = []
    for move in moves:
        begin, end = move.subject.begin, move.subject.end
        if not any(k.subject.begin <= begin < k.subject.end and end <= k.subject.end for k in kept):
            kept = [k for k in kept if not begin <= k.subject.begin < end] + [move]
    return kept


def _paste(
    move: Move, target: bytes, text: bytes, newline: bytes, source: Path, span: Span | None
) -> tuple[bytes, int]:
    """Return ``target`` with ``text`` pasted where ``move`` sends it, and where it starts."""
    if move.kind == "archive":
        from orgrouter.skills import archive

        pasted, point = archive.paste(target, text, move.heading, newline)
        return archive.finish(pasted, point, move, newline), point
    from orgrouter.skills import refile

    index = None
    document = Document(target, newline=newline)
    if move.olpath:
        from orgrouter.skills.executor import Unclear

        label = move.target or "this file"
        try:
            index, _ = refile.find_heading(document, "/".join(move.olpath), label, exact=True)
        except Unclear as unclear:  # the target changed since the plan: move nothing
            raise InputError(f"{unclear.title}; nothing was moved") from None
    level, point = refile.insertion(document, target, index)
    if span is not None and span.begin < point < span.end:
        raise InputError("the target moved inside the subtree; nothing was moved")
    return refile.paste(target, text, level, point, newline)
