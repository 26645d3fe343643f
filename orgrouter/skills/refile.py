"""The ``refile`` executor ("refile this to projects.org under Website", "move this ...").

As ``org-refile`` (Org 9.5) does, checked live in tests/executors: under a target
headline the subtree becomes its last child (one level deeper, inserted where the
target's subtree ends); to a file alone it goes at the end, at level 1. Every shifted
headline gets its tags re-aligned, and the moved headline's tags are aligned too
(``org-auto-align-tags``). A target that is unknown or ambiguous gets a clarification
listing the candidates; nothing is moved into itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from orgrouter.neuro.privacy import is_private
from orgrouter.org.document import Document
from orgrouter.org.subtree import at_level, realign_first
from orgrouter.skills.base import Context
from orgrouter.skills.executor import (
    ExecutorSkill,
    Move,
    Plan,
    Unclear,
    binding,
    bound_name,
    document_of,
    inherited_privacy,
    outline_title,
    relative_name,
    resolve_subjects,
    where_note,
    write_problem,
)

MAX_LISTED = 12
_SPLIT = re.compile(r"^(?P<subject>.*?)\s*\b(?:to|into|onto|in)\s+(?P<target>.+)$", re.I)
_UNDER = re.compile(r"^(?P<subject>.*?)\s*\b(?:under|below|beneath)\s+(?P<path>.+)$", re.I)
_FILE = re.compile(
    r"^(?:the\s+)?(?:file\s+)?(?P<file>[^\s]+?\.org(?:_archive)?)(?:\s+file)?$", re.I
)
_NEXT_WEEK = re.compile(r"^(?:the\s+)?next\s+week'?s?\s+(?:file|note|notes|journal)$", re.I)
_ARCHIVE = re.compile(r"^(?:the\s+|my\s+)?archives?(?:\s+file)?$", re.I)
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_WEEK = re.compile(r"(\d{4})-?W(\d{1,2})", re.I)


def parse_object(words: str) -> tuple[str, str, str]:
    """Return (subject words, target file words, outline path words) of an object."""
    words = " ".join(words.split()).strip(" .!?")
    subject, target = words, ""
    found = _SPLIT.match(words)
    if found is not None:
        subject, target = found.group("subject"), found.group("target")
    path = ""
    for part in (target, subject) if target else (subject,):
        under = _UNDER.match(part)
        if under is not None:
            if part is target:
                target, path = under.group("subject"), under.group("path")
            else:
                subject, path = under.group("subject"), under.group("path")
            break
    return subject.strip(), target.strip(" ,"), path.strip().strip("\"'“”")


def org_files(root: Path | None, ctx: Context | None = None) -> tuple[str, ...]:
    """Return the Org files under ``root`` (hidden ones left out), sorted: once per run."""
    if root is None:
        return ()
    memo = _memo(ctx)
    key = f"refile:org_files:{root}"
    cached = memo.get(key)
    if isinstance(cached, tuple):
        return cached
    found: list[str] = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        folder = os.path.join(directory, "")  # as os.path.join(directory, name) starts
        found.extend(folder + n for n in sorted(names) if n.endswith(".org") and n[0] != ".")
    files = memo[key] = tuple(found)
    return files


def _memo(ctx: Context | None) -> dict[str, object]:
    """Return the run's memo (a throwaway one outside a run)."""
    memo = getattr(ctx.state, "run_memo", None) if ctx is not None else None
    return memo if isinstance(memo, dict) else {}


def resolve_file(words: str, source: Path, ctx: Context) -> Path:
    """Return the file ``words`` names (relative to the note, then the notes root)."""
    root = ctx.notes_root
    if _NEXT_WEEK.match(words):
        return _next_week_file(ctx.now, org_files(root, ctx))
    named = _FILE.match(words)
    name = named.group("file") if named is not None else None
    for base in (source.parent, root):
        if name is None or base is None:
            continue
        candidate = Path(os.path.abspath(base / os.path.expanduser(name)))
        if candidate.is_file():
            return candidate  # named as it is: no walk of the notes root
    files = org_files(root, ctx)
    if name is not None:
        wanted = Path(name).name.casefold()
        # Once per run and name: ten refiles to one missing file look through the paths once.
        memo, key = _memo(ctx), f"refile:named:{root}:{wanted}"
        matches = memo.get(key)
        if not isinstance(matches, list):
            matches = memo[key] = [p for p in files if os.path.basename(p).casefold() == wanted]
        if len(matches) == 1:
            return Path(matches[0])
    shown = [relative_name(Path(p), ctx) for p in files[: MAX_LISTED + 1]]
    listing = _listing(shown, len(files))
    raise Unclear(
        f"Clarification needed: no file {words!r}",
        f"No Org file of the notes is called {words!r}. Files there:\n{listing}",
    )


def _next_week_file(now: datetime, files: tuple[str, ...]) -> Path:
    """Return the one note named for a day (or the ISO week) of next week."""
    monday = (now + timedelta(days=7 - now.weekday())).date()
    days = {(monday + timedelta(days=n)).isoformat() for n in range(7)}
    year, week, _ = monday.isocalendar()
    found: list[Path] = []
    for path in map(Path, files):
        dates = {"-".join(m.groups()) for m in _DATE.finditer(path.name)}
        weeks = {(int(y), int(w)) for y, w in _WEEK.findall(path.name)}
        if dates & days or (year, week) in weeks:
            found.append(path)
    if len(found) == 1:
        return found[0]
    which = "several notes are" if found else "no note is"
    listing = _listing([p.name for p in found] or list(map(os.path.basename, files)))
    raise Unclear(
        "Clarification needed: which file is next week's?",
        f"Next week is {monday.isoformat()} to {(monday + timedelta(days=6)).isoformat()} "
        f"(week {week}), and {which} named for it. Name the file:\n{listing}",
    )


def _listing(names: list[str], count: int | None = None) -> str:
    """Return up to MAX_LISTED names (of ``count``, default all) as an Org list."""
    count = len(names) if count is None else count
    shown = [f"- {n}" for n in names[:MAX_LISTED]] or ["- (none)"]
    if count > MAX_LISTED:
        shown.append(f"- ... and {count - MAX_LISTED} more")
    return "\n".join(shown)


def find_heading(
    document: Document,
    path: str,
    label: str,
    *,
    exact: bool = False,
    private_tags: Collection[str] = (),
) -> tuple[int, tuple[str, ...]]:
    """Return the headline whose outline path ends with ``path`` ("A/B"), and its path.

    ``exact``: the whole outline path from the top (what an approved plan recorded).
    ``private_tags``: headlines these make private are never listed in a clarification
    (it is written under a request that is not private itself).
    """
    wanted = [p.strip().casefold() for p in path.split("/") if p.strip()]
    matches: list[tuple[int, tuple[str, ...]]] = []
    for entry in document.entries:
        chain = (entry.index, *document.outline.ancestors(entry.index))
        olpath = [outline_title(document.headline(at).raw) for at in reversed(chain)]
        if [p.casefold() for p in olpath[-len(wanted) :]] == wanted and len(olpath) >= len(wanted):
            matches.append((entry.index, tuple(olpath)))
    if exact:
        matches = [m for m in matches if len(m[1]) == len(wanted)]
    if len(matches) == 1:
        return matches[0]
    def shown(index: int) -> bool:
        return not private_tags or not is_private(document.tags(index), private_tags)

    if matches:
        listing = _listing(
            ["/".join(p) + f" (line {document.entries[i].line})" for i, p in matches if shown(i)]
        )
        raise Unclear(
            f"Clarification needed: several headlines match {path!r} in {label}",
            f"Which one? Give more of its outline path (Parent/{path}):\n{listing}",
        )
    tops = [
        document.headline(e.index).raw
        for e in document.entries
        if e.parent is None and shown(e.index)
    ]
    raise Unclear(
        f"Clarification needed: no headline {path!r} in {label}",
        f"{label} has no headline with that outline path. Its top-level headlines:\n"
        + _listing(tops),
    )


def paste(target: bytes, text: bytes, level: int, point: int, newline: bytes) -> tuple[bytes, int]:
    """Return ``target`` with ``text`` pasted at ``point`` at ``level``, and where it starts."""
    if point == len(target) and target and not target.endswith(b"\n"):
        target += newline
        point = len(target)
    block = realign_first(at_level(text, level, newline))
    return target[:point] + block + target[point:], point


def insertion(document: Document | None, data: bytes, index: int | None) -> tuple[int, int]:
    """Return (level, point) where a subtree refiled under headline ``index`` goes."""
    if document is None or index is None:
        return 1, len(data)
    entry = document.entries[index]
    return entry.level + 1, entry.subtree_end


class RefileSkill(ExecutorSkill):
    """Refile (move) the subject to a file, an outline path, or both; approved only."""

    name = "refile"

    def plan(self, payload: Mapping[str, Any], ctx: Context) -> Plan:
        """Return what refiling ``payload``'s subject would do."""
        subject_words, file_words, path = parse_object(str(payload.get("object", "")))
        document, subjects, _how = resolve_subjects(subject_words, ctx)
        if _ARCHIVE.match(file_words) and not path:  # "move this to the archive"
            from orgrouter.skills.archive import archive_plan

            return archive_plan(document, subjects, ctx, "archive")
        source = Path(os.path.abspath(document_of(ctx).path or "."))
        if not file_words and not path:
            raise Unclear(
                "Clarification needed: refile where?",
                'Say where to: "refile this to projects.org", "... to projects.org '
                'under Website" or "... under Website".',
            )
        target = resolve_file(file_words, source, ctx) if file_words else source
        same = target == source
        if not same:
            problem = write_problem(ctx, target)
            if problem is not None:
                raise Unclear("Clarification needed: that file may not be written", problem)
        where = "this file" if same else relative_name(target, ctx)
        olpath: tuple[str, ...] = ()
        if path:
            holder = document if same else Document.from_file(target)
            hide = () if ctx.private else ctx.config.privacy.tags
            index, olpath = find_heading(holder, path, where, private_tags=hide)
            if same:
                begin = holder.entries[index].begin
                for subject in subjects:
                    if subject.begin <= begin < subject.end:
                        raise Unclear(
                            "Clarification needed: cannot refile into itself",
                            f"{'/'.join(olpath)!r} is inside {subject.title!r}, which would "
                            "move into itself. Pick a headline outside it.",
                        )
        under = f" under {'/'.join(olpath)!r}" if olpath else " (at the end, level 1)"
        warn = "" if same else where_note(ctx, target)
        lines = tuple(f"{s.title} (line {s.line}) -> {where}{under}{warn}" for s in subjects)
        digest = binding(
            "refile", document.data, subjects, f"{bound_name(target, ctx)}::{'/'.join(olpath)}"
        )
        dest = "" if same else str(target)
        moves = tuple(
            Move(s, "refile", dest, "", olpath, private=inherited_privacy(document, s, ctx))
            for s in subjects
        )
        count = len(subjects)
        title = f"Refiled {count} subtrees" if count > 1 else f"Refiled {subjects[0].title!r}"
        return Plan(moves, lines, digest, (), f"{title} to {where}")


SKILL = RefileSkill()
