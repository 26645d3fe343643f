"""The ``schedule`` skill: a TODO with SCHEDULED or DEADLINE from the date named."""

from __future__ import annotations

import re

from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    clarify,
    proposal_stimulus,
)
from orgrouter.skills.dates import find_date, org_timestamp

_DEADLINE = re.compile(r"\b(?:deadline|due|by|before|no later than)\b", re.IGNORECASE)
_VERB = re.compile(
    r"^(?:please\s+)?(?:schedule|plan|remind me(?: to| about)?|set (?:a )?(?:deadline|"
    r"reminder)(?: for)?|put|book|add a deadline(?: for)?|deadline(?: for)?)\s+",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"\b(?:for|on|at|by|due|before|no later than|deadline|is|are)\s*$"
    r"|^\s*(?:for|to|the)\b\s*",
    re.IGNORECASE,
)
_POINTER = re.compile(r"^(?:this|it|that|this section|this task|this item)?$", re.IGNORECASE)


class ScheduleSkill(BaseSkill):
    """Create a TODO headline with a SCHEDULED or DEADLINE date."""

    name = "schedule"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the dated TODO, or a clarification when no date is named."""
        stimulus = proposal_stimulus(proposal)
        text = stimulus.text
        found = find_date(text, ctx.now.date())
        if found is None:
            return clarify(
                "Clarification needed: when?",
                (
                    f"I understood {text!r} as scheduling, but found no date. "
                    "Say =today=, =tomorrow=, =friday=, =next monday=, "
                    "=in 3 days= or =2026-12-24=."
                ),
            )
        keyword = "DEADLINE" if _DEADLINE.search(text) else "SCHEDULED"
        what = text[: found.start] + " " + text[found.end :]
        what = _VERB.sub("", " ".join(what.split()))
        for _ in range(3):
            what = _FILLER.sub("", what).strip(" ,.")
        if _POINTER.match(what):
            request = ctx.request
            what = (request.parent_title if request else "") or "Follow up"
        planning = f"{keyword}: {org_timestamp(found.day, found.time)}"
        return Emit((Result(title=what[:1].upper() + what[1:], todo="TODO", planning=planning),))


SKILL = ScheduleSkill()
