"""Built-in skills that import their module only when a stimulus they may want arrives.

The kernel offers each stimulus to the skills in priority order, so every skill's
``trigger`` runs for a request the router (the lowest priority) handles; importing
all fifteen built-ins costs a start-up (``route --stdin``) about 10 ms for the one or
two that act. The registry knows, without importing, which stimuli a built-in can
want (its sensor, and the intent skills its trigger accepts); a ``LazySkill`` answers
``False`` for the others and imports the real skill for the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orgrouter.skills.base import Action, Context, Skill, Stimulus

REQUEST_SENSORS = ("user-command", "chat-message")


class LazySkill:
    """A built-in skill by name, priority and trigger facts; its module loads on demand."""

    def __init__(
        self,
        name: str,
        target: str,
        priority: int,
        *,
        requests: bool = False,
        wants: tuple[str, ...] | None = None,
        binds_approvals: bool = False,
    ) -> None:
        self.name = name
        self.target = target  # "module:attribute"
        self.priority = priority
        self.requests = requests  # it takes requests (the router), not delegations
        self.wants = wants  # the intent skills its trigger may accept; None: any
        self.binds_approvals = binds_approvals
        self._skill: Skill | None = None

    @property
    def skill(self) -> Skill:
        """Return the real skill, importing its module the first time."""
        if self._skill is None:
            module, attribute = self.target.split(":")
            self._skill = getattr(importlib.import_module(module), attribute)
        return self._skill

    def may_want(self, stimulus: Stimulus) -> bool:
        """Return False when the facts rule ``stimulus`` out (its trigger would say no)."""
        sensor = stimulus.payload.get("sensor", "")
        if (sensor in REQUEST_SENSORS) != self.requests:
            return False
        skill = str(stimulus.payload.get("skill", "")).lower()
        return self.wants is None or skill in self.wants

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether the skill wants ``stimulus`` (importing it only if it may)."""
        return self.may_want(stimulus) and self.skill.trigger(stimulus, ctx)

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Return the real skill's proposal."""
        return self.skill.neuro(stimulus, ctx)

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the real skill's action."""
        return self.skill.symbolic(proposal, ctx)
