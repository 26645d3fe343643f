"""The verb lexicon: phrases, phrasal verbs split by their object, inflections, typos."""

from __future__ import annotations

import pytest

from orgrouter.route.lexicon import base_forms, fuzzy, verb_at
from orgrouter.route.rules import default_rules

RULES = default_rules()


def read(text: str, inflected: bool = False) -> tuple[int, str, str] | None:
    words = text.lower().split()
    found = verb_at(words, 0, RULES, inflected=inflected)
    return None if found is None else (found[0], found[1].verb, found[1].skill)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("boil down the notes", (2, "boil down", "summarize")),
        ("boil it down", (1, "boil down", "summarize")),
        ("boil the long notes down", (1, "boil down", "summarize")),
        ("tidy the finished tasks away", (1, "tidy away", "refile")),  # not "tidy"
        ("tidy this section", (1, "tidy", "compact")),
        ("clear all the done items out", (1, "clear out", "delete")),
        ("get rid of it", (3, "get rid of", "delete")),
        ("dig up the manual", (2, "dig up", "search")),
        ("jot the words down", (1, "jot down", "todo")),
    ],
)
def test_phrasal_verbs_contiguous_or_split(text: str, expected: tuple[int, str, str]) -> None:
    assert read(text) == expected


def test_a_particle_is_not_looked_for_past_a_joiner() -> None:
    # "boil" is no verb alone: its "down" belongs to the next clause.
    assert read("boil the eggs and write down the times") is None


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("condensing", ["condens", "condense"]),
        ("jotting", ["jott", "jot", "jotte"]),
        ("tagging", ["tagg", "tag", "tagge"]),
        ("pulled", ["pull", "pul", "pulle"]),
        ("tidied", ["tidi", "tidie", "tidy"]),
        ("summarize", []),
    ],
)
def test_base_forms(word: str, forms: list[str]) -> None:
    assert base_forms(word) == forms


def test_inflected_forms_only_when_asked() -> None:
    assert read("condensing this") is None
    assert read("condensing this", inflected=True) == (1, "condense", "summarize")
    assert read("pulled out", inflected=True) == (2, "pull out", "summarize")


@pytest.mark.parametrize(
    ("word", "verb"),
    [
        ("summerize", "summarize"),
        ("remidn", "remind"),
        ("mkae", "make"),  # two swapped neighbours
        ("ttag", "tag"),  # a doubled key
        ("shedule", "schedule"),
    ],
)
def test_typos(word: str, verb: str) -> None:
    head = fuzzy(word, RULES)
    assert head is not None and head.verb == verb


@pytest.mark.parametrize("word", ["mole", "the", "abcd", "milk", "tagg3"])
def test_short_words_are_not_typos(word: str) -> None:
    # Four letters: only a swap or a doubled key ("mole" is one edit from "move").
    assert fuzzy(word, RULES) is None
