"""The lark reader for the Lisp plists models reply with."""

from __future__ import annotations

import pytest

from orgrouter.errors import ModelError
from orgrouter.neuro.plist import as_dict, extract_form, loads
from orgrouter.sexp import Keyword, Symbol, dumps


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("(:a 1 :b -2.5 :c 1e3)", [Keyword("a"), 1, Keyword("b"), -2.5, Keyword("c"), 1000.0]),
        ('("x \\"y\\" \\\\ z\\n")', ['x "y" \\ z\n']),
        ("(nil t NIL foo-bar :K)", [None, True, None, Symbol("foo-bar"), Keyword("K")]),
        ("'(1 (2 (3)))", [1, [2, [3]]]),
        ("()", []),
        ("[1 2]", [1, 2]),
        ("(a ; a comment\n b)", [Symbol("a"), Symbol("b")]),
        ("(1abc +)", [Symbol("1abc"), Symbol("+")]),
        ('(:text "multi\nline")', [Keyword("text"), "multi\nline"]),
    ],
)
def test_loads(text: str, value: object) -> None:
    assert loads(text) == value


def test_round_trips_what_sexp_dumps() -> None:
    value = {"type": Keyword("MULTI-DELEGATION"), "intents": [{"skill": "todo", "order": 2}]}
    assert loads(dumps(value)) == [
        Keyword("type"),
        Keyword("MULTI-DELEGATION"),
        Keyword("intents"),
        [[Keyword("skill"), "todo", Keyword("order"), 2]],
    ]


@pytest.mark.parametrize(
    ("reply", "form"),
    [
        ("Sure!\n```lisp\n(:a 1)\n```\nDone.", "(:a 1)"),
        ("Here you go: (:a (1 2)) hope it helps", "(:a (1 2))"),
        ("```\n(:b 2)\n```", "(:b 2)"),
    ],
)
def test_extract_form(reply: str, form: str) -> None:
    assert extract_form(reply) == form


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(:a 1", "cannot read the reply as a Lisp plist: "),
        ("(:a 1))", "cannot read the reply as a Lisp plist: "),
        ('(:a "unterminated)', "cannot read the reply as a Lisp plist: "),
    ],
)
def test_malformed_is_a_model_error(text: str, message: str) -> None:
    with pytest.raises(ModelError) as caught:
        loads(text)
    assert str(caught.value).startswith(message)


def test_no_form_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="no Lisp form"):
        extract_form("I cannot help with that.")


def test_as_dict_lowercases_keys_and_rejects_non_plists() -> None:
    assert as_dict([Keyword("TYPE"), 1, Keyword("Intents"), []]) == {"type": 1, "intents": []}
    with pytest.raises(ModelError, match="expected a plist"):
        as_dict([Keyword("a")])
    with pytest.raises(ModelError, match="expected a keyword in the plist, found 1"):
        as_dict([1, 2])
