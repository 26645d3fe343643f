"""The ``schedule`` skill: a TODO with SCHEDULED or DEADLINE from the date named.

The date comes from the instruction ("every monday at 18:00", "by Jan 15"); when the
instruction names none ("put the concert in my calendar"), from the sentence of the
section that speaks of the same thing and gives a date.
"""

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
from orgrouter.skills.dates import Found, find_date, strip_date
from orgrouter.skills.orgtext import read_prose, sentences
from orgrouter.skills.wording import task_title

_DEADLINE = re.compile(r"\b(?:deadline|due|no later than)\b", re.IGNORECASE)
_VERB = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would) you\s+)?"
    r"(?:schedule|plan|set (?:up )?(?:a |an )?(?:deadline|reminder|appointment)(?: for)?|"
    r"set up|arrange|organi[sz]e|"
    r"put|pencil in|add a deadline(?: for)?|deadline(?: for)?)\s+",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"\b(?:for|on|at|by|due|before|no later than|deadline|is|are)\s*$"
    r"|\s*\b(?:in|into|on|to)\s+(?:my|the)\s+(?:calendar|agenda|diary|planner)\b"
    r"|^\s*(?:for|to|the|a|an)\b\s*",
    re.IGNORECASE,
)
_POINTER = re.compile(r"^(?:this|it|that|this section|this task|this item)?$", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W\d_]{4,}")


class ScheduleSkill(BaseSkill):
    """Create a TODO headline with a SCHEDULED or DEADLINE date."""

    name = "schedule"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the dated TODO, or a clarification when no date is named."""
        stimulus = proposal_stimulus(proposal)
        text = stimulus.text
        found = find_date(text, ctx.now)
        what = strip_date(text, found) if found is not None else text
        what = task_title(_VERB.sub("", " ".join(what.split())))
        for _ in range(3):
            what = _FILLER.sub("", what).strip(" ,.")
        if found is None:
            found = _date_in_section(what, ctx)
        if found is None:
            return clarify(
                "Clarification needed: when?",
                f"I understood {text!r} as scheduling, but found no date. "
                "Say =today=, =tomorrow=, =friday=, =next monday=, "
                "=in 3 days=, =Dec 10= or =2026-12-24=.",
            )
        keyword = "DEADLINE" if found.deadline or _DEADLINE.search(text) else "SCHEDULED"
        if _POINTER.match(what):
            request = ctx.request
            what = (request.parent_title if request else "") or "Follow up"
        planning = f"{keyword}: {found.timestamp()}"
        return Emit((Result(title=what[:1].upper() + what[1:], todo="TODO", planning=planning),))


def _date_in_section(what: str, ctx: Context) -> Found | None:
    """Return the date of the section's first sentence that speaks of ``what``."""
    words = {w.lower() for w in _CONTENT.findall(what)}
    if not words:
        return None
    prose = read_prose(ctx.subject())
    said = [s for p in prose.paragraphs for s in sentences(p)] + [i.text for i in prose.items]
    for sentence in said:
        if words & {w.lower() for w in _CONTENT.findall(sentence)}:
            found = find_date(sentence, ctx.now)
            if found is not None:
                return found
    return None


SKILL = ScheduleSkill()
