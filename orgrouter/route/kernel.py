"""The stimulus kernel: hand each stimulus to the highest-priority skill that wants it.

As in seed 003: ``trigger`` → ``neuro`` → ``symbolic``; a ``None`` from ``symbolic``
vetoes, and the next triggered skill gets its turn. Stimuli are handled first in,
first out, so results come out in the order the intents were written; injections
are bounded at depth 10. A delegation no skill accepts becomes a clarification,
never silence; a skill that fails becomes an error result naming it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from orgrouter.errors import LockedError, OrgRouterError
from orgrouter.records import NamedTuple, field, record
from orgrouter.skills.base import (
    Context,
    Emit,
    Inject,
    Log,
    Result,
    Retag,
    Sensor,
    Skill,
    Stimulus,
)

MAX_DEPTH = 10


class Emitted(NamedTuple):
    """A result, with the skill that wrote it and the intent it answers."""

    result: Result
    skill: str
    intent: str  # the delegation's text ('' when the request itself was answered)
    order: int  # the delegation's 1-based order (0 for the request itself)
    intent_skill: str = ""  # the skill the delegation named ('' for the request)
    agent: str = ""  # the sub-agent the delegation was addressed to, if any


@record
class Outcome:
    """Everything one kernel run produced, in the order it happened."""

    emitted: list[Emitted] = field(default_factory=list)
    retags: list[Retag] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    trace: list[tuple[str, str]] = field(default_factory=list)  # (skill, sensor)
    intents: list[dict[str, object]] = field(default_factory=list)  # delegations seen


class _Origin(NamedTuple):
    """The delegation a stimulus descends from, so results name their intent."""

    intent: str = ""
    order: int = 0
    skill: str = ""
    agent: str = ""


def run(stimulus: Stimulus, skills: Sequence[Skill], ctx: Context) -> Outcome:
    """Run ``stimulus`` and everything it injects through ``skills`` (priority order)."""
    outcome = Outcome()
    queue: deque[tuple[Stimulus, _Origin]] = deque([(stimulus, _Origin())])
    while queue:
        current, origin = queue.popleft()
        if current.sensor == Sensor.DELEGATION:
            skill, agent = (str(current.payload.get(key) or "") for key in ("skill", "agent"))
            origin = _Origin(current.text, _order(current, origin), skill, agent)
            outcome.intents.append(dict(current.payload))
        if current.depth > MAX_DEPTH:
            outcome.logs.append(f"stopped at depth {MAX_DEPTH}: {current.sensor}")
            _emit(outcome, "kernel", origin, _depth_error())
            continue
        _dispatch(current, origin, skills, ctx, outcome, queue)
    return outcome


def _dispatch(
    stimulus: Stimulus,
    origin: _Origin,
    skills: Sequence[Skill],
    ctx: Context,
    outcome: Outcome,
    queue: deque[tuple[Stimulus, _Origin]],
) -> None:
    """Offer ``stimulus`` to each triggered skill in turn until one acts."""
    ctx = ctx.for_stimulus(stimulus)
    for skill in skills:
        try:
            if not skill.trigger(stimulus, ctx):
                continue
            action = skill.symbolic(skill.neuro(stimulus, ctx), ctx)
        except LockedError:
            raise  # another run holds the notes root
        except OrgRouterError as error:
            _emit(outcome, skill.name, origin, _failure(skill.name, error.message))
            return
        except Exception as error:  # a skill's bug must not cost the other requests
            detail = f"{type(error).__name__}: {error}"
            outcome.logs.append(f"skill {skill.name} failed: {detail}")
            _emit(outcome, skill.name, origin, _failure(skill.name, detail))
            return
        if action is None:
            continue  # vetoed: the next skill that wants it gets its turn
        outcome.trace.append((skill.name, stimulus.sensor))
        if isinstance(action, Inject):
            for child in action.stimuli:
                depth = max(child.depth, stimulus.depth + 1)
                queue.append((Stimulus(child.type, child.payload, depth), origin))
        elif isinstance(action, Emit):
            for result in action.results:
                _emit(outcome, skill.name, origin, result)
            outcome.retags.extend(action.retags)
        elif isinstance(action, Retag):
            outcome.retags.append(action)
        elif isinstance(action, Log):
            outcome.logs.append(action.text)
        return
    if stimulus.sensor in (Sensor.DELEGATION, Sensor.USER_COMMAND, Sensor.CHAT_MESSAGE):
        _emit(outcome, "kernel", origin, unhandled(stimulus))


def unhandled(stimulus: Stimulus) -> Result:
    """Return the clarification for a stimulus no skill accepted."""
    text = stimulus.text or "(empty)"
    skill = str(stimulus.payload.get("skill", "") or "")
    known = f" (understood as skill {skill!r}, which is not available)" if skill else ""
    return Result(
        "Clarification needed",
        f"No skill can handle {text!r}{known}.\n"
        "Rephrase it with a verb such as summarize, todo, schedule, tag, search "
        "or ask, and edit the request headline to route it again.",
        kind="clarification",
    )


def _order(stimulus: Stimulus, origin: _Origin) -> int:
    """Return a delegation's 1-based order, inheriting its origin's when absent."""
    value = stimulus.payload.get("order")
    return value if isinstance(value, int) and not isinstance(value, bool) else origin.order


def _emit(outcome: Outcome, skill: str, origin: _Origin, result: Result) -> None:
    """Record ``result`` as answering ``origin``'s intent."""
    emitted = Emitted(result, skill, origin.intent, origin.order, origin.skill, origin.agent)
    outcome.emitted.append(emitted)


def _failure(skill: str, detail: str) -> Result:
    """Return the error result for a skill that failed."""
    return Result(title=f"Error in skill {skill}", body=detail, kind="error")


def _depth_error() -> Result:
    """Return the error result for a chain of delegations that never ends."""
    return Result(
        title="Error: delegation too deep",
        body=f"Skills kept delegating past depth {MAX_DEPTH}; stopped here.",
        kind="error",
    )
