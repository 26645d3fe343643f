"""Validate a candidate: which edits may be applied, and why each other one is dropped.

The limits are seed 002's: at most 3 edits, 1,200 bytes per edit, 15% growth per file;
an edit may touch only a file on the write allowlist (``refine.files``; empty means
nothing is writable), and its ``before`` must match exactly once (else it is stale:
written against text that is no longer there).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass

from orgrouter.errors import ConfigError
from orgrouter.refine.candidate import Candidate, Edit
from orgrouter.refine.tree import RulesTree, normalize_rel

MAX_EDITS = 3
MAX_EDIT_BYTES = 1200
MAX_GROWTH = 0.15

# Drop reasons, stable words for --json and the state database.
NOT_ALLOWED = "not_allowed"
MISSING = "missing_file"
TOO_MANY = "too_many_edits"
TOO_LARGE = "too_large"
STALE = "stale"
TOO_MUCH_GROWTH = "too_much_growth"
_SECTION_START = re.compile(rb"\n[\[*]")


@dataclass(frozen=True)
class Dropped:
    """An edit left out of the candidate, with the reason."""

    index: int  # 0-based position in the candidate's edits
    file: str
    reason: str
    detail: str

    def to_json(self) -> dict[str, object]:
        """Return the drop as a JSON-ready dict (edit numbered from 1)."""
        fields = {key: value for key, value in vars(self).items() if key != "index"}
        return {"edit": self.index + 1, **fields}


@dataclass(frozen=True)
class Validation:
    """The edits kept (with their positions), the ones dropped, and the files' bytes."""

    kept: tuple[tuple[int, Edit], ...]
    dropped: tuple[Dropped, ...]
    originals: dict[str, bytes]  # effective bytes of each edited file before
    results: dict[str, bytes]  # and after the kept edits

    @property
    def edits(self) -> tuple[Edit, ...]:
        """Return the kept edits in candidate order."""
        return tuple(edit for _, edit in self.kept)


def locate(content: bytes, edit: Edit) -> tuple[int, int] | str:
    """Return the byte span ``edit`` rewrites in ``content``, or why it is stale."""
    start, stop = 0, len(content)
    if edit.anchor is not None:
        section = anchor_section(content, edit.anchor.encode())
        if isinstance(section, str):
            return section
        start, stop = section
    if edit.op == "append" and edit.before == "":
        return (stop, stop)
    before = edit.before.encode()
    begin = _find_once(content, before, "before", start, stop)
    if isinstance(begin, str):
        return begin
    end = begin + len(before)
    return (begin, end) if edit.op == "replace" else (end, end)


def anchor_section(content: bytes, anchor: bytes) -> tuple[int, int] | str:
    """Return the span of the section after ``anchor`` (which must occur once), or why not."""
    at = _find_once(content, anchor, "anchor", 0, len(content))
    if isinstance(at, str):
        return at
    return at + len(anchor), section_end(content, at + len(anchor))


def apply_edit(content: bytes, edit: Edit) -> bytes | str:
    """Return ``content`` with ``edit`` applied, or why it is stale."""
    span = locate(content, edit)
    if isinstance(span, str):
        return span
    begin, end = span
    return content[:begin] + edit.after.encode() + content[end:]


def validate(candidate: Candidate, tree: RulesTree, allowlist: Iterable[str]) -> Validation:
    """Check every edit of ``candidate`` against the live rules and the limits."""
    allowed = set()
    for entry in allowlist:
        name = normalize_rel(entry)
        if name is None:
            raise ConfigError(
                f"refine.files: {entry!r} is not a path inside the rules dir "
                "(relative, without `..`)"
            )
        allowed.add(name)
    kept: list[tuple[int, Edit]] = []
    dropped: list[Dropped] = []
    originals: dict[str, bytes] = {}
    results: dict[str, bytes] = {}
    for index, edit in enumerate(candidate.edits):
        rel = normalize_rel(edit.file)
        reason = _static_reason(index, edit, rel, allowed, tree)
        if reason is not None:
            dropped.append(Dropped(index, edit.file, *reason))
            continue
        assert rel is not None
        if rel not in results:
            content = tree.read(rel)
            if content is None:
                detail = "no such rules file, in the rules dir or the package"
                dropped.append(Dropped(index, edit.file, MISSING, detail))
                continue
            originals[rel] = results[rel] = content
        outcome = apply_edit(results[rel], edit)
        if isinstance(outcome, str):
            dropped.append(Dropped(index, edit.file, STALE, outcome))
            continue
        size, growth = len(originals[rel]), len(outcome) - len(originals[rel])
        limit = int(size * MAX_GROWTH)
        if growth > limit:
            detail = f"{rel} would grow by {growth} bytes, over 15% of its {size} ({limit} bytes)"
            dropped.append(Dropped(index, edit.file, TOO_MUCH_GROWTH, detail))
            continue
        results[rel] = outcome
        kept.append((index, dataclasses.replace(edit, file=rel)))
    touched = {edit.file for _, edit in kept}
    return Validation(
        kept=tuple(kept),
        dropped=tuple(dropped),
        originals={rel: data for rel, data in originals.items() if rel in touched},
        results={rel: data for rel, data in results.items() if rel in touched},
    )


def reapply(edits: Iterable[Edit], tree: RulesTree) -> dict[str, bytes]:
    """Return the files with ``edits`` applied again; raise StaleEdit if one no longer fits."""
    results: dict[str, bytes] = {}
    for number, edit in enumerate(edits, start=1):
        if edit.file not in results:
            content = tree.read(edit.file)
            if content is None:
                raise StaleEdit(number, edit.file, "the file is gone")
            results[edit.file] = content
        outcome = apply_edit(results[edit.file], edit)
        if isinstance(outcome, str):
            raise StaleEdit(number, edit.file, outcome)
        results[edit.file] = outcome
    return results


class StaleEdit(Exception):
    """An edit that no longer matches the live file (raised by ``reapply``)."""

    def __init__(self, number: int, file: str, detail: str) -> None:
        super().__init__(f"edit {number} ({file}): {detail}")
        self.number = number
        self.file = file
        self.detail = detail


def _static_reason(
    index: int, edit: Edit, rel: str | None, allowed: set[str], tree: RulesTree
) -> tuple[str, str] | None:
    """Return the (reason, detail) that drops ``edit`` before reading any file."""
    if index >= MAX_EDITS:
        return (TOO_MANY, f"a candidate may carry at most {MAX_EDITS} edits")
    if rel is None or rel not in allowed:
        return (NOT_ALLOWED, f"{edit.file} is not on the write allowlist (refine.files)")
    if tree.live is not None and not tree.inside_live(rel):
        return (NOT_ALLOWED, f"{edit.file} leads outside the rules dir")
    size = max(len(edit.before.encode()), len(edit.after.encode()))
    if size > MAX_EDIT_BYTES:
        return (TOO_LARGE, f"{size} bytes, over the limit of {MAX_EDIT_BYTES} per edit")
    return None


def _find_once(content: bytes, needle: bytes, what: str, start: int, stop: int) -> int | str:
    """Return where ``needle`` is in ``content[start:stop]`` if it occurs once (overlaps
    count), else how ``what`` (``before``/``anchor``) failed to match exactly once."""
    at = content.find(needle, start, stop)
    if at < 0:
        return f"`{what}` is not in the file (stale)"
    if content.find(needle, at + 1, stop) >= 0:
        return f"`{what}` occurs more than once in the file (ambiguous)"
    return at


def section_end(content: bytes, start: int) -> int:
    """Return where the section holding ``start`` ends: the next table or headline line."""
    # Rules files are TOML tables (a section ends at the next `[table]` line) and Org
    # skill notes (it ends at the next headline); either way, the start of that line.
    found = _SECTION_START.search(content, start)
    return len(content) if found is None else found.start() + 1
