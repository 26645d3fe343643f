"""The instruction grammar: structure from the segmenter's terminals, refusals as errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.route.grammar import Clause, Delegation, GrammarError, Group, Parse, parse


def test_sequence_of_coordinated_clauses() -> None:
    terminals = [("HEAD", 0, 3), ("WORD", 4, 6), ("_AND", 7, 10), ("HEAD", 11, 14),
                 ("_SEQ", 14, 15), ("HEAD", 16, 20)]
    assert parse(terminals) == Parse(False, (
        Group(clauses=(Clause((0, 3), ((4, 6),)), Clause((11, 14), ()))),
        Group(clauses=(Clause((16, 20), ()),)),
    ))


def test_numbered_steps_and_an_empty_step() -> None:
    terminals = [("NUM", 0, 2), ("HEAD", 3, 6), ("NUM", 7, 9), ("NUM", 10, 12), ("HEAD", 13, 15)]
    assert parse(terminals) == Parse(True, (
        Group(clauses=(Clause((3, 6), ()),)),
        Group(clauses=(Clause((13, 15), ()),)),
    ))


def test_delegations() -> None:
    terminals = [("DELEGATE", 0, 3), ("MENTION", 4, 10), ("_TO", 11, 13), ("HEAD", 14, 20),
                 ("_ANDAGENT", 21, 24), ("MENTION", 25, 32)]
    assert parse(terminals) == Parse(False, (
        Group(delegations=(
            Delegation((0, 3), (4, 10), (Clause((14, 20), ()),)),
            Delegation(None, (25, 32), None),
        )),
    ))


@pytest.mark.parametrize("terminals", [
    [("WORD", 0, 2)],
    [("HEAD", 0, 2), ("HEAD", 3, 5)],
    [("HEAD", 0, 2), ("_AND", 3, 6)],
    [("_SEQ", 0, 1), ("HEAD", 2, 4)],
    [("HEAD", 0, 2), ("NUM", 3, 5)],
    [("DELEGATE", 0, 3), ("HEAD", 4, 6)],
])
def test_refusals_are_grammar_errors(terminals: list[tuple[str, int, int]]) -> None:
    with pytest.raises(GrammarError):
        parse(terminals)


KINDS = ["HEAD", "WORD", "_AND", "_SEQ", "NUM", "DELEGATE", "MENTION", "_TO", "_ANDAGENT"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(KINDS), max_size=12))
def test_any_terminals_parse_or_refuse(kinds: list[str]) -> None:
    terminals = [(kind, at, at + 1) for at, kind in enumerate(kinds)]
    try:
        parsed = parse(terminals)
    except GrammarError:
        return
    heads = [c.head for g in parsed.groups for c in g.clauses]
    heads += [c.head for g in parsed.groups for d in g.delegations for c in d.clauses or ()]
    assert len(heads) == kinds.count("HEAD")  # every HEAD became one clause
