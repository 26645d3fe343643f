"""The plain path of the decomposer: the same intents as lark's parse, without lark."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.route.decompose import _Lexer, decompose, plain_groups, tokenize
from orgrouter.route.rules import default_rules

RULES = default_rules()
WORDS = [
    "summarize", "and", "then", "tag", "this", "@writer", "ask", "to", ",", ";", "1)", "2)",
    "delete", "the", "notes", "please", "hi", "after that", "/compact", "?", "@agent", "tell",
    "@b:", "and then", "3.", "\n", "create", "todos", "for", "list", "pros", "cons", "have",
    "hey", "@agent,", "please ask", "@c,", "then please", "can you", "schedule", "monday",
    "it", "is", "used", "by", "explain", ":", "remind", "me", "summarise", "taggg", "&",
]  # fmt: skip


def same(text: str) -> bool:
    """Check the plain path against lark's parse; return whether the plain path ran."""
    fast = decompose(text, RULES, fast=True)
    slow = decompose(text, RULES, fast=False)
    assert fast.to_json() == slow.to_json(), text
    assert fast.to_sexp() == slow.to_sexp(), text
    lexer = _Lexer(tokenize(text), RULES, frozenset({"agent"}))
    return plain_groups(lexer.run()) is not None


def test_plain_groups_take_only_what_the_grammar_accepts_without_lark() -> None:
    terminals = [("HEAD", 0, 3), ("WORD", 4, 6), ("_AND", 7, 10), ("HEAD", 11, 14)]
    assert plain_groups(terminals) == [[((0, 3), [(4, 6)]), ((11, 14), [])]]
    assert plain_groups([*terminals, ("_SEQ", 14, 15), ("HEAD", 16, 20)]) == [
        [((0, 3), [(4, 6)]), ((11, 14), [])],
        [((16, 20), [])],
    ]
    assert plain_groups([("NUM", 0, 2), ("HEAD", 3, 6)]) is None  # steps: lark
    assert plain_groups([("MENTION", 0, 6), ("HEAD", 7, 9)]) is None  # delegation: lark
    assert plain_groups([("WORD", 0, 2)]) is None  # refused by the grammar too
    assert plain_groups([("HEAD", 0, 2), ("HEAD", 3, 5)]) is None
    assert plain_groups([("HEAD", 0, 2), ("_AND", 3, 6)]) is None


def test_the_usual_shapes_are_plain_and_the_same() -> None:
    assert same("summarize this section, then create todos for the action items")
    assert same("summarize and tag this section")
    assert same("create a todo to renew the passport")
    assert not same("1) summarize this 2) tag it")
    assert not same("ask @coder to refactor the parser and @writer to polish the intro")


def test_every_golden_instruction_reads_the_same() -> None:
    golden = resources.files("orgrouter.golden")
    texts = [
        case["text"]
        for entry in golden.iterdir()
        if entry.name.endswith(".toml")
        for case in tomllib.loads(entry.read_text("utf-8")).get("case", [])
        if isinstance(case.get("text"), str)
    ]
    assert len(texts) > 50
    plain = sum(same(text) for text in texts)
    assert plain > len(texts) // 2  # most are plain: the path is worth having


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=14))
def test_word_salad_reads_the_same(words: list[str]) -> None:
    same(" ".join(words))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=list("ab @1).,;:!?\n\t'\"-~é東"), max_size=40))
def test_any_text_reads_the_same(text: str) -> None:
    same(text)


def test_real_headlines_read_the_same(corpus_dir: Path) -> None:
    files = sorted(corpus_dir.rglob("*.org"))[::10]
    titles = [
        found.group(1)
        for path in files
        for found in re.finditer(r"(?m)^\*+ (.*)$", path.read_bytes().decode("utf-8", "replace"))
    ]
    assert len(titles) > 500
    for title in titles:
        same(title)
