"""The address rule in text and bytes, and the per-file agent keyword, from one definition."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.address import (
    ANY_ADDRESS_RE,
    address_bytes_re,
    address_names,
    address_offsets,
    address_re,
    file_agent_lines,
    follows_word,
    keyword_lines,
)


def test_names_are_lower_case_without_the_at_and_agent_comes_first() -> None:
    # A configured "@Bob" is valid (configload strips the "@" to check it): it is "bob".
    assert address_names(" @Bob ", ["writer", "@WRITER", "", "agent"]) == ("agent", "bob", "writer")
    assert address_names(None, ()) == ("agent",)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("@agent go", ["agent"]),
        ("ask @Bob, then @bobby", ["bob"]),  # bobby is no name; the longest name wins
        ("mail bob@agent.org or x.@agent", []),  # after a word character or a dot
        ("@agents and @agent_x", []),  # followed by a word character
        ("(@ärger) tells @ÄRGER", ["ärger", "ärger"]),
    ],
)
def test_text_and_bytes_forms_find_the_same_addresses(text: str, found: list[str]) -> None:
    names = ("agent", "bob", "ärger")
    assert [m.group(1).lower() for m in address_re(names).finditer(text)] == found
    data = text.encode()
    # The bytes form finds at least the text form's (the same here, where all is ASCII
    # around each address), at the same offsets once decoded.
    offsets = address_offsets(data, names)
    expected = [len(text[: m.start()].encode()) for m in address_re(names).finditer(text)]
    assert offsets == expected
    assert all(address_bytes_re(names).match(data, o) for o in offsets)


def test_the_bytes_form_errs_towards_an_address_next_to_non_ascii() -> None:
    # "é@agent" is no address as text (é is a word character); as bytes it may be one.
    assert not address_re(("agent",)).search("é@agent")
    assert address_offsets("é@agent".encode(), ("agent",)) == [2]
    assert follows_word(b"a@x", 1) and follows_word(b".@x", 1) and not follows_word(b"@x", 0)


def test_any_address_and_the_file_agent_keyword() -> None:
    assert ANY_ADDRESS_RE.search("ask @someone") and not ANY_ADDRESS_RE.search("me@home")
    data = b"#+TITLE: t\n  #+orgrouter_agent:  @Bob  \r\ntext #+ORGROUTER_AGENT: no\n"
    assert list(file_agent_lines(data)) == [(11, b"@Bob")]
    assert list(file_agent_lines(b"#+TITLE: t\n")) == []


KEYWORD_PIECES = (
    b"#+ORGROUTER_AGENT: bob", b"#+orgrouter_agent:", b"#+ORGROUTER_AGENT:  @Hal  \r",
    b"#+TODO: A | B", b"#+seq_todo:", b"#+FILETAGS: :x:", b"#+SETUPFILE: s.org",
    b"#+STARTUP: oddeven", b"#+STARTUP: overview", b"#+startup: odd", b"#+TITLE: t",
    b"\xef\xbb\xbf", b"\n", b"  ", b"\t", b"x ", b"* @agent go", b"#+", b"odd",
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(KEYWORD_PIECES), max_size=25))
def test_one_keyword_pass_answers_as_a_look_at_each_line(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    # A setting line: a routing keyword after blanks (and a BOM, which Emacs drops); a
    # STARTUP only when it may say odd (results' levels follow it).
    setting = re.compile(
        rb"(?:\xef\xbb\xbf)?[ \t]*#\+(?:(?:TODO|SEQ_TODO|TYP_TODO|FILETAGS|SETUPFILE):"
        rb"|STARTUP:[^\n]*odd)",
        re.IGNORECASE,
    )
    lines = data.split(b"\n")
    assert keyword_lines(data) == (
        list(file_agent_lines(data)),
        any(setting.match(line) for line in lines),
    )
