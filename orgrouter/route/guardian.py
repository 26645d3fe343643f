"""The guardian: risky intents wait for the user's approval, in the note itself.

An intent the decomposer (rules or model) marked ``needs_approval`` (delete, move,
refile, shell, send, write outside the notes root...) is never run unattended: the
guardian skill, which outranks every other, answers it with a ``WAITING`` child
headline that holds the intent. The user changes ``WAITING`` to ``APPROVED`` (config
``agent.approve_keyword``) and the next run runs it; ``REJECTED`` closes it. Either
way the approval headline gets ``ORGROUTER_STATUS`` so it is acted on only once.

Every approval is bound to what it shows (``orgrouter.route.binding``): its drawer holds
``ORGROUTER_APPROVES``, the digest of the effect. A skill that can say exactly what it
will write (``binds_approvals = True``: tangle, archive, refile) asks for approval
itself, with that effect, and the guardian leaves its intents to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orgrouter.config import AgentConfig
from orgrouter.records import NamedTuple
from orgrouter.route.binding import (
    APPROVED_DIGEST,
    APPROVED_FLAG,
    DIGEST_KEY,
    Effect,
    intent_subject,
    require_approval,
)
from orgrouter.route.request import STATUS_KEY
from orgrouter.route.results import APPROVAL_KEY, KIND_KEY, Written
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Sensor,
    Stimulus,
    delegation,
    proposal_stimulus,
)

FREE_FORM = frozenset({"ask", "draft", "rewrite", "explain", "translate", "summarize"})


class GuardianSkill(BaseSkill):
    """Hold every risky delegation for approval."""

    name = "guardian"
    priority = 100

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` is a risky delegation nobody approved yet."""
        payload = stimulus.payload
        return (
            stimulus.sensor == Sensor.DELEGATION
            and not payload.get(APPROVED_FLAG)
            and bool(payload.get("needs_approval"))
            and str(payload.get("skill", "")).lower() not in ctx.self_binding
        )

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the WAITING approval headline for the held intent, bound to its text."""
        asked = _ask_for(proposal_stimulus(proposal).payload, ctx)
        return None if asked is None else Emit((asked,))


class ApprovedSkill(BaseSkill):
    """Say so plainly when an approved risky intent has no skill that can carry it out.

    The decomposer hands verbs with no skill of their own (delete, send, run) to the
    free-form skills; once approved, answering them with prose would pretend that
    something happened. A user skill for the verb (priority above 70) takes it instead.
    """

    name = "approved"
    priority = 70

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` is an approved intent only a free-form skill took."""
        payload = stimulus.payload
        return (
            stimulus.sensor == Sensor.DELEGATION
            and bool(payload.get(APPROVED_FLAG))
            and str(payload.get("skill", "")).lower() in FREE_FORM
        )

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the result saying nothing was done, and what the user can do."""
        payload = proposal_stimulus(proposal).payload
        verb = str(payload.get("verb") or "do")
        text = str(payload.get("text", ""))
        result = Result(
            f"Approved, but nothing was done: no skill can {verb}",
            f"You approved {text!r}, but orgrouter has no skill that can "
            f"{verb} things, so nothing was changed. Do it by hand, or add a "
            f"skill that handles {verb!r} in a skills.paths directory.",
        )
        return Emit((result,))


class Decision(NamedTuple):
    """The user's answer on one approval headline."""

    written: Written
    approved: bool
    stimulus: Stimulus | None  # the held intent, approved, when it can be run


def decisions(written: list[Written], agent: AgentConfig) -> tuple[list[Decision], bool]:
    """Return the approvals the user decided since the last run, and whether any still wait."""
    found: list[Decision] = []
    pending = False
    for result in written:
        if result.get(KIND_KEY) != "approval" or result.get(STATUS_KEY) is not None:
            continue
        keyword = result.keyword
        if keyword == agent.approve_keyword:
            found.append(Decision(result, True, _held_stimulus(result)))
        elif keyword == agent.reject_keyword:
            found.append(Decision(result, False, None))
        else:
            pending = True
    return found, pending


def _held_stimulus(result: Written) -> Stimulus | None:
    """Return the approved delegation an approval headline holds, or None if unreadable."""
    import json

    try:
        held = json.loads(result.get(APPROVAL_KEY) or "")
    except ValueError:
        return None
    if not isinstance(held, dict) or not isinstance(held.get("text"), str):
        return None
    return delegation({**held, APPROVED_FLAG: True, APPROVED_DIGEST: result.get(DIGEST_KEY) or ""})


def recheck(stimulus: Stimulus, ctx: Context) -> Result | None:
    """Return a new approval when an approved intent is not the one orgrouter asked.

    A skill that binds its own approvals checks them against what it would do now;
    any other held intent must still be the words its approval's digest covers, and
    the approval must be one orgrouter asked in this note.
    """
    payload = stimulus.payload
    if str(payload.get("skill", "")).lower() in ctx.self_binding:
        return None
    return _ask_for(payload, ctx)


def _ask_for(payload: Mapping[str, Any], ctx: Context) -> Result | None:
    """Return the approval a held intent needs, bound to its words (None: it has one)."""
    reason = str(payload.get("risk_reason") or f"{payload.get('verb', 'this')} is risky")
    return require_approval(payload, ctx, Effect(subject=intent_subject(payload)), reason)


SKILL = GuardianSkill()
APPROVED_SKILL = ApprovedSkill()

