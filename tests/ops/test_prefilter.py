"""The bytes prefilter: never misses a request or an answered approval."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.config import AgentConfig, Config
from orgrouter.prefilter import make_prefilter, prefilter_for
from orgrouter.route.request import find_address

AGENT = make_prefilter([], ["APPROVED", "REJECTED"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"* @agent summarize this\n", True),
        (b"** TODO [#A] @Agent do it :tag:\n", True),
        (b"* please @AGENT, now\n", True),
        (b"* @agent\nbody\n", True),
        (b"*** x @agent", True),  # no final newline
        (b"* x @agent\r\n", True),  # CRLF
        (b"* mail bob@agent.org\n", False),
        (b"* me@agent\n", False),
        (b"* see .@agent\n", False),
        (b"* @agents are many\n", False),
        (b"* @agent_x\n", False),
        (b"@agent at line start but not a headline\n", False),
        (b" * @agent indented is a list item\n", False),
        (b"*@agent no space after stars\n", False),
        (b"text\n#+begin_src\n* @agent inside a block is a headline\n#+end_src\n", True),
        (b"* caf\xc3\xa9@agent is after a letter but bytes cannot tell\n", True),
        (b"* nothing here\nbody @agent\n", False),
        (b"", False),
    ],
)
def test_address_on_headline_lines(text: bytes, expected: bool) -> None:
    assert AGENT.matches(text) is expected


def test_configured_names_and_sub_agents_case_insensitively() -> None:
    config = Config(agent=AgentConfig(name="Hal", sub_agents=["coder", "Ärger"]))
    prefilter = prefilter_for(config)
    assert prefilter.addresses == ("agent", "hal", "coder", "ärger")
    assert prefilter.matches(b"* @hal do it\n")
    assert prefilter.matches(b"* @CODER fix\n")
    assert prefilter.matches("* @ärger x\n".encode())
    assert prefilter.matches("* @ÄRGER x\n".encode())
    assert not prefilter.matches(b"* @bob do it\n")


def test_answered_approvals_and_pending_waiting() -> None:
    assert AGENT.matches(b"* parent\n** APPROVED delete the old notes\n")
    assert AGENT.matches(b"** REJECTED\n")
    assert not AGENT.matches(b"** APPROVEDX not a keyword\n")
    assert not AGENT.matches(b"** approved lower case is not the keyword\n")
    assert not AGENT.matches(b"** WAITING on the plumber\n")
    assert AGENT.matches(b"** WAITING approve?\n:PROPERTIES:\n:ORGROUTER_RESULT: x\n:END:\n")
    custom = prefilter_for(Config(agent=AgentConfig(approve_keyword="OK", reject_keyword="NO")))
    assert custom.matches(b"* OK go\n")
    assert not custom.matches(b"* APPROVED go\n")


def test_per_file_agent_keyword() -> None:
    text = b"#+ORGROUTER_AGENT: Bob\n* @bob summarize\n"
    assert AGENT.matches(text)
    assert AGENT.matches(text.replace(b"#+ORGROUTER_AGENT", b"#+orgrouter_agent"))
    assert not AGENT.matches(b"#+ORGROUTER_AGENT: Bob\n* @alice summarize\n")
    assert not AGENT.matches(b"* @bob summarize\n")


def test_signature_changes_with_names() -> None:
    assert make_prefilter(["hal"], ["APPROVED"]).signature != AGENT.signature
    assert make_prefilter([], ["APPROVED", "REJECTED"]).signature == AGENT.signature
    assert make_prefilter(["@Hal", "hal"], []).addresses == ("agent", "hal")


TITLE_PIECES = st.sampled_from(
    [
        "@agent",
        "@Agent",
        "@AGENT",
        "@hal",
        "@HAL",
        "@ärger",
        "@ÄRGER",
        "agent",
        "@",
        ".",
        "_",
        "x",
        " ",
        "é",
        "ß",
        "-",
        ":",
        "~",
        "=",
        "bob",
        "[[",
        "]]",
        "\t",
        "\r",
        "@agents",
        "1",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(TITLE_PIECES, max_size=8),
    stars=st.integers(min_value=1, max_value=4),
    before=st.sampled_from(["", "text\n", "\ufeff", "#+TITLE: t\n"]),
)
def test_never_misses_what_the_router_calls_an_address(
    pieces: list[str],
    stars: int,
    before: str,
) -> None:
    """Whenever the router finds an address in a headline title, the prefilter matched."""
    names = ("agent", "hal", "ärger")
    title = "".join(pieces)
    data = (before + "*" * stars + " " + title + "\nbody\n").encode("utf-8")
    prefilter = make_prefilter(["hal", "Ärger"], ["APPROVED", "REJECTED"])
    if find_address(title, names) is not None:
        assert prefilter.matches(data), data


def test_agrees_with_the_router_on_every_corpus_headline(corpus_dir: Path) -> None:
    """On real notes, a file the prefilter passes over has no addressed headline."""
    names = ("agent",)
    checked = passed_over = 0
    for path in sorted(corpus_dir.rglob("*.org")):
        data = path.read_bytes()
        if AGENT.matches(data):
            continue
        passed_over += 1
        text = data.decode("utf-8", "replace")
        for line in text.splitlines():
            if line.startswith("*") and line.lstrip("*").startswith(" "):
                checked += 1
                assert find_address(line.lstrip("*"), names) is None, (path, line)
    assert passed_over > 1000 and checked > 10_000


LINE_PIECES = st.sampled_from(
    [
        *["@agent", "@HAL", "@hal", "x@agent", ".@hal", "@agents", "@", "* ", "** ", "*"],
        *[" ", "\t", "word", ":@home:", "\r", "\ufeff", "é", "_", "mail@example.org"],
        *["\n", "\n* ", "\n"],
    ]
)
_REFERENCE = re.compile(rb"(?<![\w.])@(?:agent|hal)(?!\w)", re.IGNORECASE)
_REFERENCE_HEADLINE = re.compile(rb"(?:\xef\xbb\xbf)?\*+ ")


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(LINE_PIECES, max_size=30))
def test_the_address_test_is_the_plain_line_by_line_definition(pieces: list[str]) -> None:
    """Each line is looked at as the module docstring says, however many @ a note has."""
    data = "".join(pieces).encode("utf-8")
    lines = data if b"\n" in data else data.replace(b"\r", b"\n")  # CR-only: mac EOL
    expected = any(
        _REFERENCE_HEADLINE.match(line) and _REFERENCE.search(line) for line in lines.split(b"\n")
    )
    prefilter = make_prefilter(["hal"], ["APPROVED", "REJECTED"])
    assert prefilter.matches(data) is expected, data
