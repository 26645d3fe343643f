"""The ``tag`` skill: add Org tags to the headline the request sits under."""

from __future__ import annotations

import re

from orgrouter.org.headline import is_tag_char
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Retag,
    clarify,
    proposal_stimulus,
)

_TAG_GROUP = re.compile(r"(?<!\S):([^\s:]+(?::[^\s:]+)*):(?!\S)")
_NOISE_WORDS = (
    "a add an and as it label mark please section tag tagged tags that the this to under with"
)
_NOISE = frozenset(_NOISE_WORDS.split())


class TagSkill(BaseSkill):
    """Tag the request's parent headline (or the request itself at top level)."""

    name = "tag"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the retag and a result saying what was tagged."""
        stimulus = proposal_stimulus(proposal)
        tags = tags_named(str(stimulus.payload.get("object") or "") or stimulus.text)
        request = ctx.request
        if not tags or request is None:
            return clarify(
                "Clarification needed: which tags?",
                (
                    f"I understood {stimulus.text!r} as tagging but found no tag "
                    "name. Write =@agent tag this :work:urgent:= or "
                    "=@agent tag this as urgent=."
                ),
            )
        line = request.parent_line or request.line
        title = (request.parent_title if request.parent_line else request.headline) or "?"
        group = ":" + ":".join(tags) + ":"
        return Emit(
            (Result(title=f"Tagged {title} {group}"),),
            retags=(Retag((line,), tuple(tags)),),
        )


def tags_named(text: str) -> list[str]:
    """Return the Org tags ``text`` names (``:a:b:`` groups, else plain words)."""
    groups = _TAG_GROUP.findall(text)
    words = [w for g in groups for w in g.split(":")] if groups else text.split()
    tags: list[str] = []
    for word in words:
        cleaned = "".join(c if is_tag_char(c) and c != ":" else "_" for c in word.strip(",.;"))
        cleaned = cleaned.strip("_")
        if cleaned and (groups or cleaned.lower() not in _NOISE) and cleaned not in tags:
            tags.append(cleaned)
    return tags


SKILL = TagSkill()
