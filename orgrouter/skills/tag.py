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
from orgrouter.skills.references import named_heading
from orgrouter.skills.wording import word_set

_TAG_GROUP = re.compile(r"(?<!\S):([^\s:]+(?::[^\s:]+)*):(?!\S)")
_NOISE = word_set(
    "a add also an and as both day entry heading headline it item label mark note one page "
    "part please post section tag tagged tags that the them these this those to under with"
)
# "tag this as urgent", "label it with work and health": the tags follow as/with.
_NAMED_AFTER = re.compile(r"\b(?:as|with|under)\s+(.+)$", re.IGNORECASE)


class TagSkill(BaseSkill):
    """Tag the request's parent headline (or the request itself at top level)."""

    name = "tag"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the retag and a result saying what was tagged.

        Tags typed at the end of the request (``** @agent tag this :health:``) are Org
        tags of the request headline, so they are not in the instruction: they are
        the tags the user means, for the section the request sits in.
        """
        stimulus = proposal_stimulus(proposal)
        request = ctx.request
        said = str(stimulus.payload.get("object") or "") or stimulus.text
        target: tuple[int, str] | None = None
        if request is not None:
            target = (request.parent_line or request.line, request.parent_title or "?")
            if not request.parent_line:  # a top-level request: its own headline
                target = (request.line, "this headline")
            # "tag the Bookings heading :travel:": a headline of the section, by title.
            named = named_heading(_TAG_GROUP.sub(" ", said), request.outline)
            if named is not None:
                heading = request.outline[named]
                target = (heading.line, heading.title)
                said = re.sub(re.escape(heading.title), " ", said, flags=re.IGNORECASE)
        # Tags the instruction names win ("tag it as release :ops:"); typed ones
        # serve when it names none ("tag this entry :training:").
        typed = list(request.own_tags) if request is not None else []
        tags = tags_named(said) or typed
        if not tags or target is None:
            return clarify(
                "Clarification needed: which tags?",
                f"I understood {stimulus.text!r} as tagging but found no tag "
                "name. Write =@agent tag this :work:urgent:= or "
                "=@agent tag this as urgent=.",
            )
        line, title = target
        # Said in words: a tag group in a result's title would tag the result itself,
        # and agenda tag searches would find it.
        listed = ", ".join(f"={tag}=" for tag in tags)
        return Emit(
            (Result(title=f"Tagged {title} with {listed}"),),
            retags=(Retag((line,), tuple(tags)),),
        )


def tags_named(text: str) -> list[str]:
    """Return the Org tags ``text`` names (``:a:b:`` groups, else the words after as/with)."""
    groups = _TAG_GROUP.findall(text)
    after = _NAMED_AFTER.search(text)
    plain = (after.group(1) if after else text).split()
    words = [w for g in groups for w in g.split(":")] if groups else plain
    tags: list[str] = []
    for word in words:
        cleaned = "".join(c if is_tag_char(c) and c != ":" else "_" for c in word.strip(",.;"))
        cleaned = cleaned.strip("_")
        if cleaned and (groups or cleaned.lower() not in _NOISE) and cleaned not in tags:
            tags.append(cleaned)
    return tags


SKILL = TagSkill()
