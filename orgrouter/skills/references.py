"""Resolve what a request points at in its section: "the unchecked boxes", "these".

People do not name the items they want as todos; they point at them: "todos for the
unchecked boxes", "add these to my todos" over a body list, "turn the Action: lines
into todos", "the items below", "the open questions" (a list under an "Open
questions:" line), "the rows of the table", "the open boxes under Pilot episode" (a
child headline). ``resolve`` reads such a phrase against the section's elements and
returns the items it means, or None when the phrase names items itself. A checked
box (``[X]``) is done: it is never an item unless the phrase asks for the checked ones.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from orgrouter.records import NamedTuple
from orgrouter.skills.base import Heading
from orgrouter.skills.orgtext import Item, Prose, read_prose, tables
from orgrouter.skills.wording import WS, stem, word_set

_WORD = re.compile(r"[^\W_][\w'-]*")
_OPEN = word_set(
    "open unchecked unticked undone remaining outstanding pending unfinished empty "
    "incomplete uncompleted left offenen offene ouvertes abiertas"
)
_DONE = word_set("checked ticked done finished completed crossed")
_BOXES = word_set("box boxes checkbox checkboxes check-boxes checklist tickboxes")
_ITEMS = word_set("item items bullet bullets point points list entries things ones lines steps")
_LINE_NOUNS = "lines?|notes?|entries|comments?|items?|bits?|markers?"
_ROWS = word_set("row rows table tables")
_HEADINGS = word_set(
    "heading headings headline headlines subheading subheadings subsections children "
    "sections entries"
)
_POINTERS = word_set("these those them they below above following listed here all everything")
_DETERMINERS = word_set(
    "the these those all every each my our la les le des die der das den de het el los las"
)
# Words a label shares with any phrase; they say nothing about which list is meant.
_GENERIC = word_set(
    "the a an of for to and my our this that list items item things points lines notes "
    "la le les de des du à a die der das"
)
_SCOPE = re.compile(
    r"\b(?:under|in|from|of|beneath|below)\s+(?:the\s+)?(?P<title>.+?)"
    r"(?:\s+(?:section|heading|headline|part))?\s*$",
    re.IGNORECASE,
)
# "into todos", "as todos", "to my todo list": where the items go, not which.
_DESTINATION = re.compile(
    rf"{WS}?\b(?:into|as|to|in|onto)\s+(?:my\s+|the\s+|an?\s+)?(?:real\s+|proper\s+|separate\s+)?"
    r"(?:todos?|to-?dos?|tasks?|todo\s+list|task\s+list|agenda)\b.*$"
    rf"|{WS}?\bshould\s+become\b.*$|{WS}?\bbecomes?\s+(?:a\s+)?todos?\b.*$",
    re.IGNORECASE,
)


class Resolved(NamedTuple):
    """The items a phrase points at, and what they are (for messages)."""

    items: tuple[str, ...]
    what: str  # "unchecked boxes", "list under 'Open questions:'", "TODO: lines", ...


def resolve(
    phrase: str, section: str, outline: Sequence[Heading] = (), *, many: bool = False
) -> Resolved | None:
    """Return the items ``phrase`` points at in ``section`` (and its headlines), or None.

    ``many`` says the request asks for several results ("todos", "each"): then a
    plural noun with a determiner ("the ingredients") may point at the section's list
    too; otherwise only a phrase that starts by pointing ("these", "the items") does.
    """
    phrase = _DESTINATION.sub("", phrase).strip(" .,;:")
    scoped = _narrow(phrase, outline)
    if scoped is not None:
        return _select(*scoped, many=many, scoped=True)
    found = _select(phrase, section, outline, many=many, scoped=False, fallback=False)
    named = _named_heading(phrase, outline)
    if found is None and named is not None:  # "the Aufgaben": a child headline's items
        return _select(*named, many=many, scoped=True)
    return found or _select(phrase, section, outline, many=many, scoped=False)


def _select(
    phrase: str,
    section: str,
    outline: Sequence[Heading],
    *,
    many: bool,
    scoped: bool,
    fallback: bool = True,
) -> Resolved | None:
    """Return what ``phrase`` selects among one section's elements."""
    words = [w.lower() for w in _WORD.findall(phrase)]
    prose = read_prose(section)
    found = (
        _by_label(words, prose)
        or _by_line_label(phrase, words, prose)
        or _by_state(words, prose)
        or _by_kind(words, prose, section, outline)
    )
    if found is not None or not fallback:
        return found
    return _any(words, prose, section, outline) if scoped or _points(words, many) else None


def _narrow(phrase: str, outline: Sequence[Heading]) -> tuple[str, str, tuple[Heading, ...]] | None:
    """Return the phrase, body and headlines of the child headline "under X" names."""
    match = _SCOPE.search(phrase)
    if match is None or not outline:
        return None
    wanted = " ".join(match.group("title").lower().split())
    for index, heading in enumerate(outline):
        if " ".join(heading.title.lower().split()) == wanted:
            return phrase[: match.start()].strip(), heading.body, _below(outline, index)
    return None


def _named_heading(
    phrase: str, outline: Sequence[Heading]
) -> tuple[str, str, tuple[Heading, ...]] | None:
    """Return the rest of the phrase, body and headlines of the child headline it names."""
    index = named_heading(phrase, outline)
    if index is None:
        return None
    title = " " + _spoken(outline[index].title) + " "
    rest = (" " + _spoken(phrase) + " ").replace(title, " ")
    return rest.strip(), outline[index].body, _below(outline, index)


def named_heading(phrase: str, outline: Sequence[Heading]) -> int | None:
    """Return the index of the headline whose whole title ``phrase`` says (the longest)."""
    said = " " + _spoken(phrase) + " "
    best: tuple[int, int] | None = None
    for index, heading in enumerate(outline):
        title = _spoken(heading.title)
        longer = best is None or len(title) > best[1]
        if title and title not in _GENERIC and f" {title} " in said and longer:
            best = (index, len(title))
    return None if best is None else best[0]


def _spoken(text: str) -> str:
    """Return the words of ``text``, lower-cased, one space apart."""
    return " ".join(w.lower() for w in _WORD.findall(text))


def _below(outline: Sequence[Heading], index: int) -> tuple[Heading, ...]:
    """Return the headlines inside the subtree of ``outline[index]``."""
    depth = outline[index].depth
    return tuple(itertools.takewhile(lambda h: h.depth > depth, outline[index + 1 :]))


def _points(words: list[str], many: bool) -> bool:
    """Return whether the words point ("these", "the items below", "the ingredients")."""
    head = words[: 3 if words[:1] and words[0] in _DETERMINERS else 1]
    if any(w in _POINTERS or w in _ITEMS or w in _BOXES for w in (words if many else head)):
        return True
    if not many:
        return False
    # "the ingredients", "the Aufgaben": a determiner and a plural noun name a set.
    for first, second in itertools.pairwise(words):
        if first in _DETERMINERS and (second.endswith(("s", "en", "x")) and len(second) > 3):
            return True
    return False


def _open_items(items: Sequence[Item], words: list[str]) -> list[str]:
    """Return the items' texts, without checked boxes (only those, when asked for)."""
    if any(w in _DONE for w in words) and not any(w in _OPEN for w in words):
        return [i.text for i in items if i.checkbox == "X"]
    return [i.text for i in items if i.checkbox != "X"]


def _by_label(words: list[str], prose: Prose) -> Resolved | None:
    """Return the list whose label the phrase repeats ("the open questions", "À faire")."""
    said = {stem(w) for w in words if w not in _GENERIC}
    wanted = {stem(w) for w in words if w not in _GENERIC and w not in _OPEN}
    best: tuple[int, str] | None = None
    labels = (item.after for item in prose.items if item.after.rstrip().endswith(":"))
    for label in dict.fromkeys(labels):
        label_words = {stem(w) for w in _WORD.findall(label) if w.lower() not in _GENERIC}
        # A state word ("open") only ranks labels that share a word of substance.
        shared = len(label_words & said) if label_words & wanted else 0
        if shared and (best is None or shared > best[0]):
            best = (shared, label)
    if best is None:
        return None
    items = _open_items([i for i in prose.items if i.after == best[1]], words)
    return Resolved(tuple(items), f"the list under {best[1]!r}") if items else None


def _by_line_label(phrase: str, words: list[str], prose: Prose) -> Resolved | None:
    """Return the lines labelled as the phrase says ("the TODO: notes", "Action lines")."""
    labels = {label.lower() for label, _ in prose.labelled}
    for label in labels:
        spoken = re.search(rf"\b{re.escape(label)}s?\b:?\s*(?:{_LINE_NOUNS})\b", phrase, re.I)
        named = spoken is not None or f"{label}:" in phrase.lower()
        if named and label not in _GENERIC:
            items = tuple(text for name, text in prose.labelled if name.lower() == label)
            return Resolved(items, f"the {label}: lines")
    return None


def _by_state(words: list[str], prose: Prose) -> Resolved | None:
    """Return the checkboxes in the state the phrase names ("open", "unchecked")."""
    boxed = [item for item in prose.items if item.checkbox is not None]
    if not boxed:
        return None
    if any(w in _OPEN for w in words):
        items = [i.text for i in boxed if i.checkbox != "X"]
        return Resolved(tuple(items), "the unchecked boxes") if items else None
    if any(w in _BOXES for w in words):
        return Resolved(tuple(_open_items(boxed, words)), "the checkboxes")
    return None


def _by_kind(
    words: list[str], prose: Prose, section: str, outline: Sequence[Heading]
) -> Resolved | None:
    """Return the rows of a table, or the child headlines, when the phrase names them."""
    if any(w in _ROWS for w in words) and (rows := _table_rows(section)) is not None:
        return rows
    if any(w in _HEADINGS for w in words) and outline:
        return Resolved(_open_headings(outline), "the headlines")
    return None


def _any(
    words: list[str], prose: Prose, section: str, outline: Sequence[Heading]
) -> Resolved | None:
    """Return the section's items of any kind, for a phrase that only points."""
    items = _open_items(prose.items, words)
    if items:
        return Resolved(tuple(items), "the list items")
    if prose.labelled:
        return Resolved(tuple(text for _, text in prose.labelled), "the labelled lines")
    rows = _table_rows(section)
    if rows is not None:
        return rows
    if outline:
        return Resolved(_open_headings(outline), "the headlines")
    return None


def _table_rows(section: str) -> Resolved | None:
    """Return the rows of the section's tables, each as its cells' text, or None."""
    rows = [row for table in tables(section) for row in table.rows]
    if not rows:
        return None
    return Resolved(tuple(" ".join(c for c in row if c) for row in rows), "the table rows")


def _open_headings(outline: Sequence[Heading]) -> tuple[str, ...]:
    """Return the titles of the top headlines of ``outline`` not marked done."""
    top = min(h.depth for h in outline)
    done = ("DONE", "CANCELLED", "CANCELED")
    return tuple(h.title for h in outline if h.depth == top and h.todo not in done)
