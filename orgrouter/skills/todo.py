"""The ``todo`` skill: TODO children for the items named, or the section's action items."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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
from orgrouter.skills.orgtext import Item, read_prose
from orgrouter.skills.references import resolve
from orgrouter.skills.wording import REMIND, WS, task_title, word_set

MAX_TODOS = 50
# Words that point at the section instead of naming items ("todos for the action items").
_POINTERS = word_set(
    "a action actions all above any below each every follow follow-up followups for "
    "from here in it item items list meeting next note notes of open section step "
    "steps task tasks that the them these this those to todo todos up"
)
_SPLIT = re.compile(rf"{WS}?[,;]\s*(?:and\s+|then\s+)?", re.IGNORECASE)
# "buying milk and bread" is one item; "calling Bob and booking flights" is two.
_AND = re.compile(rf"{WS}(?:and|then)\s+(?=\S+\s+\S)", re.IGNORECASE)
_LEAD = re.compile(r"^(?:TODO|action(?: item)?|AI|next step|follow[- ]up)\s*[:\-]\s*", re.I)
_LEAD_TODO = re.compile(r"^TODO\s+")
_INFINITIVE = re.compile(r"^to\s+", re.IGNORECASE)  # "... and to pay rent"
_DUE = re.compile(r"\b(?:due|deadline)\b", re.IGNORECASE)
# The request asks for several todos: "todos", "tasks", "each", "every", "one per".
_MANY = re.compile(
    r"\b(?:todos|to-dos|tasks|action items|each|every|all|per|tâches|aufgaben|tareas)\b",
    re.IGNORECASE,
)
# Verbs that ask for a todo rather than name the task ("remind me to", "jot down").
_RECORDING = re.compile(
    r"^(?:todo|remind|remember|track|jot|note|write|put|capture|make|create|add|turn|"
    r"generate|extract|list|pull|set up|convert|i\b|i'|don'?t let|dont let|crée|créer|"
    r"crear|crea|erstelle|recuérdame|rappelle|ricordami)",
    re.IGNORECASE,
)
_ACTION_CONTEXT = re.compile(r"action|todo|to do|next step|follow[- ]?up|tasks", re.I)
_ASKING_NOUNS = (
    r"(?:(?:a|an|some|one|des|une)\s+)?"
    r"(?:(?:todos?|to-dos?|tasks?|action items?|tâches?|aufgaben|tareas?)\b)?\s*"
    r"(?:(?:for each|for every|for|from|out of|of|to|about|per|pour|für|para)\b|:)?\s*"
)
_VERB_PREFIX = re.compile(
    r"^(?:please\s+)?(?:(?:create|make|add|write|turn|generate|"
    r"extract|list|pull|put|jot down|note down|set up|crée|créer|erstelle|crea)\b)?\s*"
    + _ASKING_NOUNS,
    re.IGNORECASE,
)
# The same words once the request's verb is gone ("remind me to" + "turn the compost"):
# a verb left at the start is the task's own ("turn the compost", "make dinner").
_NOUN_PREFIX = re.compile("^" + _ASKING_NOUNS, re.IGNORECASE)


class TodoSkill(BaseSkill):
    """Turn named items, or the action items of the section, into TODO headlines."""

    name = "todo"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return one TODO result per item, or a clarification when there are none.

        A phrase that points at the section ("the unchecked boxes", "these") is
        resolved against its elements; a date said once ("due on the 20th") goes on
        every item, and an item's own date wins.
        """
        stimulus = proposal_stimulus(proposal)
        named = _task(stimulus.payload, stimulus.text)
        prefix = _NOUN_PREFIX if _verb_consumed(stimulus.payload) else _VERB_PREFIX
        named = REMIND.sub("", named, count=1)
        shared = find_date(named, ctx.now)
        pointing = strip_date(named, shared) if shared is not None else named
        pointing = prefix.sub("", pointing, count=1)
        request = ctx.request
        outline = request.outline if request is not None else ()
        many = bool(_MANY.search(stimulus.text))
        # "the action items", "the open tasks": the section's action items, however
        # written (checkboxes, an "Action items:" list, "TODO:" lines).
        generic = _ACTION_CONTEXT.search(pointing) and not named_items(pointing)
        resolved = None if generic else resolve(pointing, ctx.subject(), outline, many=many)
        if generic:
            items = action_items(ctx.subject())
        elif resolved is not None:
            items = _unique(_clean(item) for item in resolved.items)
        else:
            shared = None  # the named items carry their own dates
            items = named_items(prefix.sub("", named, count=1))
        if not items:
            items = action_items(ctx.subject())
        if not items:
            return clarify(
                "Clarification needed: which todos?",
                "I found no action items in this section (unchecked "
                'checkboxes, items under an "Action items:" line, or lines '
                'starting with "TODO" or "Action:").\n'
                "Name them instead: =@agent create todos for X, Y and Z=.",
            )
        return Emit(tuple(dated(item, ctx, shared) for item in items[:MAX_TODOS]))


def _verb_consumed(payload: Mapping[str, object]) -> bool:
    """Return whether the intent's object already lacks the verb that asked for a todo."""
    verb = str(payload.get("verb") or "")
    return bool(payload.get("object")) and bool(verb) and _RECORDING.match(verb) is not None


def _task(payload: Mapping[str, object], text: str) -> str:
    """Return what the intent asks to record: its object after a recording verb
    ("remind me to X", "make todos for X"), else the whole clause, the verb being
    part of the task ("check the tent poles", "buy batteries").
    """
    obj = str(payload.get("object") or "")
    verb = str(payload.get("verb") or "")
    if not obj or not verb or _RECORDING.match(verb):
        return obj or text
    return text if text.lower().startswith(verb.lower()) else f"{verb} {obj}"


def dated(item: str, ctx: Context, shared: Found | None = None) -> Result:
    """Return the TODO for ``item``, SCHEDULED (or DEADLINE) when it names a date.

    The item's own date wins over ``shared``, the date the request gave them all.
    """
    found = find_date(item, ctx.now)
    title = item
    if found is not None:
        title = strip_date(item, found)
        if not task_title(title).strip(" ,.;"):  # "remind me tomorrow": about the section
            request = ctx.request
            title = (request.parent_title if request is not None else "") or item
    else:
        found = shared
    if found is None:
        return Result(title=_tidy(title), todo="TODO")
    keyword = "DEADLINE" if found.deadline or _DUE.search(item) else "SCHEDULED"
    return Result(title=_tidy(title), todo="TODO", planning=f"{keyword}: {found.timestamp()}")


def _tidy(title: str) -> str:
    """Return ``title`` without the words that asked for it or a date left at its ends."""
    return task_title(title).strip(" ,.;")


def named_items(text: str) -> list[str]:
    """Return the items ``text`` names, or [] when it only points at the section."""
    words = re.findall(r"[\w'-]+", text.lower())
    if all(word in _POINTERS for word in words):
        return []
    parts = [piece for part in _SPLIT.split(text) for piece in _AND.split(part)]
    return _unique(_INFINITIVE.sub("", part.strip(" .")) for part in parts if part.strip(" ."))


def action_items(section: str) -> list[str]:
    """Return the action items written in ``section``, in order."""
    prose = read_prose(section)
    found = [_clean(item.text) for item in prose.items if _is_action(item)]
    # One per line: consecutive "Action:" lines are one paragraph, not one sentence.
    found.extend(_clean(text) for label, text in prose.labelled if _LEAD.match(f"{label}: "))
    return _unique(found)


def _is_action(item: Item) -> bool:
    """Return whether a list item is an action item."""
    return (
        item.checkbox == " "
        or bool(_LEAD.match(item.text) or _LEAD_TODO.match(item.text))
        or (item.checkbox is None and bool(_ACTION_CONTEXT.search(item.after)))
    )


def _clean(text: str) -> str:
    """Return an item's text without its ``TODO``/``Action:`` lead or final period."""
    return _LEAD_TODO.sub("", _LEAD.sub("", text.strip())).rstrip(" .")


def _unique(items: Iterable[str]) -> list[str]:
    """Return the non-empty ``items`` in order, without repeats (case-insensitive)."""
    first: dict[str, str] = {}
    for item in items:
        first.setdefault(item.casefold(), item)
    return [item for key, item in first.items() if key]


SKILL = TodoSkill()
