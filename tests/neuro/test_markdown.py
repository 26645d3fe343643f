"""Markdown from a model becomes Org that cannot create or break structure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.neuro.markdown import inline, markdown_to_org
from orgrouter.org.escape import escape_line

CASES = Path(__file__).resolve().parent.parent / "data" / "neuro" / "markdown"
HEADLINE = re.compile(r"^\*+ ", re.MULTILINE)
OUR_BLOCK_LINE = re.compile(r"^[ \t]*#\+(?:begin|end)_(?:src|example|quote)\b")


@pytest.mark.parametrize("name", sorted(p.stem for p in CASES.glob("*.md")))
def test_golden(name: str) -> None:
    expected = (CASES / f"{name}.org").read_text(encoding="utf-8").rstrip("\n")
    assert markdown_to_org((CASES / f"{name}.md").read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize(
    ("markdown", "org"),
    [
        ("**bold** and *it* and _it_", "*bold* and /it/ and /it/"),
        ("`a*b*c` stays code", "~a*b*c~ stays code"),
        ("[`code` link](http://x.org)", "[[http://x.org][~code~ link]]"),
        ("a_b_c and 3*4*5", "a_b_c and 3*4*5"),
        ("~~old~~ new", "+old+ new"),
    ],
)
def test_inline(markdown: str, org: str) -> None:
    assert inline(markdown) == org


@pytest.mark.parametrize(
    ("line", "escaped"),
    [
        ("* star", ",* star"),
        ("*** deep", ",*** deep"),
        ("*bold* start", "*bold* start"),
        ("  #+include: x", "  ,#+include: x"),
        (":END:", ",:END:"),
        ("# a comment", ",# a comment"),
        ("#hashtag", "#hashtag"),
    ],
)
def test_escape_line(line: str, escaped: str) -> None:
    assert escape_line(line) == escaped


def test_crlf_and_nul_are_normalised() -> None:
    assert markdown_to_org("# T\r\n\r\n* a\x00\r\n") == "*T*\n\n- a"


lines = st.lists(
    st.one_of(
        st.sampled_from(
            ["* x", "** y", "```", "```py", "~~~", "#+TITLE: t", "> * q", ":END:", "# h", ""]
        ),
        st.text(alphabet="*#+-_`>:| ~xa\t", max_size=12),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(lines)
def test_never_a_headline_and_blocks_balance(source: list[str]) -> None:
    org = markdown_to_org("\n".join(source))
    assert HEADLINE.search(org) is None
    opened: list[str] = []
    for line in org.split("\n"):
        if re.match(r"^[ \t]*#\+", line):
            assert OUR_BLOCK_LINE.match(line), line
            kind = line.split("_", 1)[1].split()[0]
            if "#+begin_" in line:
                assert not opened or opened[-1] == "quote", "a block inside a src block"
                opened.append(kind)
            else:
                assert opened.pop() == kind
    assert opened == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_converts_without_a_headline(text: str) -> None:
    assert HEADLINE.search(markdown_to_org(text)) is None
