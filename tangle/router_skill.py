# [[file:../notes/skills/router.org::*Module head][Module head:1]]
"""Router Agent: the seed's Lisp router (003) in Python, as a literate user skill.

Tangled from notes/skills/router.org; edit the note, not this file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Inject,
    Log,
    Sensor,
    Stimulus,
    delegation,
)
# Module head:1 ends here

# [[file:../notes/skills/router.org::*Request Perception][Request Perception:1]]
def find_agent_request(ast: Mapping[str, Any], agent_name: str) -> str | None:
    """Search the AST recursively for the first addressed headline's instruction."""
    if not isinstance(ast, Mapping):
        return None
    title = str(ast.get("properties", {}).get("title") or "")
    if ast.get("type") == "headline":
        lowered = title.lower()
        for address in ("@agent", f"@{agent_name.lower()}"):
            at = lowered.find(address)
            if at >= 0:
                return title[at + len(address) :].strip(" \t")
    for child in ast.get("contents", []) or []:
        found = find_agent_request(child, agent_name)
        if found is not None:
            return found
    return None
# Request Perception:1 ends here

# [[file:../notes/skills/router.org::*Symbolic Delegation][Symbolic Delegation:1]]
def verify_skill_router(proposed: Mapping[str, Any]) -> Action:
    """Execute delegation by injecting new stimuli."""
    kind = proposed.get("type")
    if kind == "MULTI-DELEGATION":
        return Inject(tuple(delegation(intent) for intent in proposed["intents"]))
    if kind == "DELEGATION":
        return Inject((delegation(proposed["payload"]),))
    return Log("Router failed to classify.")
# Symbolic Delegation:1 ends here

# [[file:../notes/skills/router.org::*Routing Logic][Routing Logic:1]]
_STEP = re.compile(r"\s*(?:;|,?\s+and then\s+|,?\s+then\s+)\s*", re.IGNORECASE)


def trigger_skill_router(stimulus: Stimulus) -> bool:
    """Trigger on user-command or chat-message stimuli."""
    return stimulus.sensor in (Sensor.USER_COMMAND, Sensor.CHAT_MESSAGE)


def neuro_skill_router(text: str) -> dict[str, Any]:
    """Decompose ``text`` into atomic intents (the seed's neural stage, offline)."""
    steps = [step.strip(" .") for step in _STEP.split(text) if step.strip(" .")]
    intents = [
        {"order": i, "verb": step.split()[0].lower(), "text": step}
        for i, step in enumerate(steps, 1)
    ]
    if not intents:
        return {"type": "UNKNOWN"}
    if len(intents) == 1:
        return {"type": "DELEGATION", "payload": intents[0]}
    return {"type": "MULTI-DELEGATION", "intents": intents}
# Routing Logic:1 ends here

# [[file:../notes/skills/router.org::*Registration][Registration:1]]
class LiterateRouterSkill(BaseSkill):
    """The seed's router: trigger, neuro (decompose), symbolic (inject delegations)."""

    name = "literate-router"
    priority = 5  # below the built-in router (10): a mirror, not a replacement

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether this is a user command or chat message."""
        return trigger_skill_router(stimulus)

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Return the decomposition proposal for the stimulus text."""
        return neuro_skill_router(stimulus.text)

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the injection (or log) for the proposal."""
        if not isinstance(proposal, Mapping):
            return None
        return verify_skill_router(proposal)


SKILLS = [LiterateRouterSkill()]
# Registration:1 ends here
