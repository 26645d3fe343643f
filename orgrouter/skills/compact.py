"""The ``compact`` skill (``/compact``): archive all but the latest run's results."""

from __future__ import annotations

from orgrouter.org.headline import ARCHIVE_TAG as ARCHIVE  # folded, skipped by agenda
from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result, Retag


class CompactSkill(BaseSkill):
    """Tag earlier result headlines of the request ``:ARCHIVE:``, keeping the latest."""

    name = "compact"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the retag of every result older than the latest run."""
        results = ctx.request.results if ctx.request else ()
        if not results:
            return Emit((Result(title="Nothing to compact: no earlier results"),))
        latest: dict[int, str] = {}
        for ref in results:
            latest[ref.owner] = max(latest.get(ref.owner, ""), ref.run)
        old = tuple(r.line for r in results if r.run != latest[r.owner] and ARCHIVE not in r.tags)
        if not old:
            return Emit((Result(title="Nothing to compact: only the latest results remain"),))
        from orgrouter.report import plural

        return Emit(
            (Result(title=f"Compacted: archived {plural(len(old), 'earlier result')}"),),
            retags=(Retag(old, (ARCHIVE,)),),
        )


SKILL = CompactSkill()
