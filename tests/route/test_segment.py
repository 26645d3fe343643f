"""The segmenter: step markers, courtesy and context clauses, and risk by meaning."""

from __future__ import annotations

import pytest

from orgrouter.route.decompose import decompose
from orgrouter.route.greeting import is_greeting
from orgrouter.route.risk import retimes
from orgrouter.route.rules import default_rules
from orgrouter.route.segment import ordinals, tokenize

RULES = default_rules()


def skills(text: str) -> list[str]:
    return [i.skill for i in decompose(text, RULES, selves=("agent", "otto")).intents]


@pytest.mark.parametrize(
    ("marker", "numbers"),
    [("1.", {1}), ("(2)", {2}), ("b)", {2}), ("(c)", {3}), ("i.", {1, 9}), ("(iv)", {4}),
     ("step 3:", {3}), ("Step 2 -", {2}), ("step two:", {2}), ("x)", {24, 10})],
)
def test_marker_ordinals(marker: str, numbers: set[int]) -> None:
    assert ordinals(marker) == numbers


def test_markers_are_tokens_and_tldr_is_one_word() -> None:
    kinds = [(t.kind, t.text) for t in tokenize("(a) x b) y step 3: z tl;dr :) w - v")]
    assert kinds == [
        ("num", "(a)"), ("word", "x"), ("num", "b)"), ("word", "y"), ("num", "step 3:"),
        ("word", "z"), ("word", "tl;dr"), ("punct", ":)"), ("word", "w"), ("punct", "-"),
        ("word", "v"),
    ]


def test_a_lone_marker_is_a_word() -> None:
    assert skills("schedule the call for 3. december") == ["schedule"]
    assert skills("(a) summarize it (b) tag it :x:") == ["summarize", "tag"]


def test_courtesy_clauses_are_not_intents() -> None:
    result = decompose("Hi otto! Please summarize this. Thanks, ta", RULES, selves=("otto",))
    assert [i.skill for i in result.intents] == ["summarize"]
    assert result.context == ["otto", "Thanks", "ta"]  # "Hi" is skipped as a filler


def test_context_is_kept_when_it_is_all_there_is() -> None:
    result = decompose("the meeting ran long", RULES)
    assert [(i.skill, i.basis) for i in result.intents] == [("ask", "unknown")]


def test_an_unknown_verb_after_and_is_not_merged_when_it_is_a_typo() -> None:
    assert skills("summarize this and mkae todos") == ["summarize", "todo"]


def test_greetings_and_courtesy() -> None:
    assert is_greeting("thanks, that's perfect!", RULES)
    assert is_greeting("hi otto", RULES, ("otto",))
    assert not is_greeting("hi otto", RULES)
    assert not is_greeting("please", RULES)
    assert is_greeting("please and thank you", RULES)
    assert is_greeting("ta", RULES, courtesy_only=True)
    assert not is_greeting("ta da", RULES, courtesy_only=True)


@pytest.mark.parametrize(
    ("verb", "obj", "expected"),
    [("move", "the standup to 10am tomorrow", True), ("push", "the review to friday", True),
     ("move", "this subtree to archive.org", False), ("push", "these notes to the wiki", False),
     ("delete", "the meeting tomorrow", False)],
)
def test_moving_in_time_is_a_reschedule(verb: str, obj: str, expected: bool) -> None:
    assert retimes(verb, obj, RULES) is expected


def test_hostile_runs_decompose_with_exact_spans() -> None:
    for text in ["word, " * 3000, "summarize this and " * 1000, "(a) x " * 1000,
                 "i need the " + "open " * 3000, "thanks, " * 3000, "would you " * 2000]:
        result = decompose(text, RULES)
        assert result.error is None
        assert all(text[i.start : i.end] == i.text for i in result.intents)


def test_invisible_marks_and_symbols_before_the_verb() -> None:
    for text in ["\ufeffsummarize this", "sum\u200b up this", "👍 summarize this", "*** summarize"]:
        result = decompose(text, RULES)
        assert [i.skill for i in result.intents] == ["summarize"], text
        assert all(text[i.start : i.end] == i.text for i in result.intents)
    assert skills("tldr + tag :read:") == ["summarize", "tag"]  # "+" still joins


def test_the_object_leaves_out_a_late_verb_and_a_split_particle() -> None:
    def obj(text: str) -> str:
        return decompose(text, RULES).intents[0].object

    assert obj("jot the new words down as todos") == "the new words as todos"
    assert obj("clear all the DONE items out of this list") == "all the DONE items out of this list"
    assert obj("tomorrow morning remind me to call the bank") == "tomorrow morning call the bank"


def test_blocks_are_one_word_where_org_parses_a_block() -> None:
    quote = "#+begin_quote\nyes, and no; then\n#+end_quote\r"
    words = [t.text for t in tokenize(f"tag this:\n{quote}\nthen x")]
    assert words == ["tag", "this", ":", "\n", quote, "\n", "then", "x"]
    # "#+end_src bash" closes nothing for Org, so the lines are prose.
    assert [t.text for t in tokenize("#+begin_src\na, b\n#+end_src bash")][:3] == [
        "#+begin_src", "\n", "a"]
    fence = "```\n#+begin_src\na, b\n```"
    assert [t.text for t in tokenize(fence + "\n#+end_src")] == [fence, "\n", "#+end_src"]
