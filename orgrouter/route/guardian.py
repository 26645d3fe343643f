"""The guardian: risky intents wait for the user's approval, in the note itself.

An intent the decomposer (rules or model) marked ``needs_approval`` (delete, move,
refile, shell, send, write outside the notes root...) is never run unattended: the
guardian skill, which outranks every other, answers it with a ``WAITING`` child
headline that holds the intent. The user changes ``WAITING`` to ``APPROVED`` (config
``agent.approve_keyword``) and the next run runs it; ``REJECTED`` closes it. Either
way the approval headline gets ``ORGROUTER_STATUS`` so it is acted on only once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orgrouter.config import AgentConfig
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

WAITING = "WAITING"
APPROVED_FLAG = "approved"  # payload key of a delegation the user approved
# What an approval headline keeps of the held intent: enough to run it, nothing more.
FREE_FORM = frozenset({"ask", "draft", "rewrite", "explain", "translate", "summarize"})
HELD_KEYS = ("order", "skill", "verb", "object", "agent", "text", "risk", "risk_reason", "binding")
# Skills that change notes beyond results (orgrouter.skills.executor): always held, and
# their approval shows what moves where.
EXECUTORS = ("archive", "refile", "delete")


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
            and (
                bool(payload.get("needs_approval"))
                or str(payload.get("skill", "")).lower() in EXECUTORS
            )
        )

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the WAITING approval headline for the held intent."""
        stimulus = proposal_stimulus(proposal)
        skill = str(stimulus.payload.get("skill", "")).lower()
        if skill in EXECUTORS:
            from orgrouter.skills.executor import hold

            return hold(skill, stimulus.payload, ctx)
        return Emit((approval_result(stimulus.payload, ctx.config.agent),))


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
        return Emit(
            (
                Result(
                    title=f"Approved, but nothing was done: no skill can {verb}",
                    body=(
                        f"You approved {text!r}, but orgrouter has no skill that can "
                        f"{verb} things, so nothing was changed. Do it by hand, or add a "
                        f"skill that handles {verb!r} in a skills.paths directory."
                    ),
                ),
            )
        )


def approval_result(payload: Mapping[str, Any], agent: AgentConfig, shows: str = "") -> Result:
    """Return the approval headline that holds ``payload`` until the user decides.

    ``shows`` is what an executor will do (what moves where), written above the
    instructions.
    """
    import json  # most routes hold no approval; json stays off their start-up

    text = str(payload.get("text", ""))
    reason = payload.get("risk_reason") or f"{payload.get('verb', 'this')} is risky"
    held = {k: payload[k] for k in HELD_KEYS if payload.get(k) not in (None, "", [])}
    return Result(
        title=f"Approve: {text}",
        body=(
            (f"{shows}\n" if shows else "")
            + f"Held for approval: {reason}. Nothing has run.\n"
            f"To run it, change {WAITING} to {agent.approve_keyword} and route again; "
            f"{agent.reject_keyword} closes it."
        ),
        kind="approval",
        todo=WAITING,
        properties=((APPROVAL_KEY, json.dumps(held, ensure_ascii=False, sort_keys=True)),),
    )


@dataclass(frozen=True)
class Decision:
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
    return delegation({**held, APPROVED_FLAG: True})


SKILL = GuardianSkill()
APPROVED_SKILL = ApprovedSkill()

