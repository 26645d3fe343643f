"""The ``delete`` executor: "delete this", "get rid of this draft" never destroy text.

An approved delete archives the subject exactly as ``archive`` does (the note's
archive location, ``%s_archive`` by default) and says where it went, so anything
deleted can be brought back from the archive file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orgrouter.skills.archive import archive_plan
from orgrouter.skills.base import Context
from orgrouter.skills.executor import ExecutorSkill, Plan, resolve_subjects


class DeleteSkill(ExecutorSkill):
    """Delete by archiving: the subtree leaves the note and is kept in its archive."""

    name = "delete"

    def plan(self, payload: Mapping[str, Any], ctx: Context) -> Plan:
        """Return the archive plan that stands in for deleting ``payload``'s subject."""
        document, subjects, _how = resolve_subjects(str(payload.get("object", "")), ctx)
        plan = archive_plan(document, subjects, ctx, "delete")
        lines = tuple(f"{line} (deleted from this note, kept there)" for line in plan.lines)
        title = plan.summary.replace("Archived", "Deleted", 1) + ": moved to the archive"
        return Plan(plan.moves, lines, plan.binding, (), title)


SKILL = DeleteSkill()
