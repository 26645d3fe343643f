"""Finding requests: addresses, instructions, bodies, what is never a request."""

from __future__ import annotations

import subprocess
import sys

import pytest

from orgrouter.address import address_names
from orgrouter.org.document import Document
from orgrouter.route.request import (
    find_address,
    find_requests,
    instruction_hash,
)

NAMES = address_names("Coder", ["writer", "coder"])


@pytest.mark.parametrize(
    ("title", "agent"),
    [
        ("@agent summarize", "agent"),
        ("TODO @Agent do it", "agent"),
        ("(@AGENT) do", "agent"),
        ("ask @coder to refactor", "coder"),
        ("@writer: polish", "writer"),
        ("@agent-x hi", "agent"),
        ("[[file:x.org][docs]] @agent summarize", "agent"),
        ("see [[@agent][the docs]], then @coder review", "coder"),
        ("[[a][b @agent", "agent"),  # not closed: no link, so its text counts
        ("see <https://x.org> then @agent summarize", "agent"),
        ("https://x.org @agent summarize", "agent"),
        ("<remind @agent> later", "agent"),  # no link type: not an angle link
        ("nohttps://x.org/@agent", "agent"),  # a type only counts at a word start
    ],
)
def test_addresses(title: str, agent: str) -> None:
    found = find_address(title, NAMES)
    assert found is not None and found.agent == agent


@pytest.mark.parametrize(
    "title",
    [
        "mail bob@agent.org today",
        "@agents meeting",
        "@agent_x notes",
        "x.@agent y",
        "use ~@agent~ in a headline",
        "use =@agent= in a headline",
        "see [[@agent][the docs]]",
        "see [[https://x.org/@agent]]",
        "See [[file:x.org][@agent docs]]",
        "[[file:x.org::*Tasks][notes for @coder]] and [[id:1][@writer]]",
        "[[x\\]y][@agent]] escaped bracket in the target",
        "@nobody do it",
        "see <https://x.org/@agent> now",
        "see <mailto:team@example.org?cc=x/@agent>",
        "see https://example.com/@agent/foo today",
        "see file:notes/@agent.org first",
    ],
)
def test_not_addresses(title: str) -> None:
    assert find_address(title, NAMES) is None


def test_names_default_and_configured() -> None:
    assert address_names(None, []) == ("agent",)
    assert NAMES == ("agent", "coder", "writer")


DOC = b"""\
#+TODO: TODO WAITING | DONE
* Project :work:
** TODO [#A] @agent summarize this section, then create todos :urgent:
** Deep
*** @Coder refactor the parser
* @agent
- buy milk
- call Bob
* @agent
:PROPERTIES:
:ORGROUTER_HASH: abc
:END:
First paragraph is the instruction.

Second is not.
** child
* Example
#+begin_src org
* @agent not a request, it is code
#+end_src
* Result
:PROPERTIES:
:ORGROUTER_RESULT: result
:END:
** @agent nested in a result is still a headline of its own
* COMMENT Disabled
** @agent never
* bob@agent.org wrote
"""


def test_find_all_requests() -> None:
    found = find_requests(Document(DOC, "t.org"), NAMES)
    assert [(r.line, r.agent, r.instruction, r.items) for r in found] == [
        (3, "agent", "summarize this section, then create todos", ()),
        (5, "coder", "refactor the parser", ()),
        (6, "agent", "buy milk; call Bob", ("buy milk", "call Bob")),
        (9, "agent", "First paragraph is the instruction.", ()),
        (25, "agent", "nested in a result is still a headline of its own", ()),
    ]
    assert found[3].recorded("ORGROUTER_HASH") == "abc"
    assert found[0].recorded("ORGROUTER_HASH") is None


def test_a_non_ascii_name_is_found_in_any_case() -> None:
    doc = Document("* @Ärger do this\n* @ärger do that\n".encode())
    found = find_requests(doc, address_names("Ärger", []))
    assert [(r.agent, r.instruction) for r in found] == [("ärger", "do this"), ("ärger", "do that")]


def test_instruction_hash_ignores_spacing_not_words() -> None:
    assert instruction_hash("agent", "do  it ") == instruction_hash("Agent", "do it")
    assert instruction_hash("agent", "do it") != instruction_hash("coder", "do it")
    assert instruction_hash("agent", "do it") != instruction_hash("agent", "do that")
    assert len(instruction_hash("agent", "x")) == 16


def test_body_items_are_orgs_list_items() -> None:
    doc = Document(
        b"* @agent\n"
        b"#+begin_src text\n- not an item, code\n#+end_src\n"
        b"- [ ] create todos for milk\n  and bread\n  - a nested note\n"
        b"- schedule the market for saturday\n"
        b"** child\n- child's own list\n",
        "t.org",
    )
    (found,) = find_requests(doc, NAMES)
    assert found.items == ("create todos for milk and bread", "schedule the market for saturday")
    assert found.instruction == "create todos for milk and bread; schedule the market for saturday"


def test_body_paragraph_when_no_list() -> None:
    doc = Document(b"* @agent\n:PROPERTIES:\n:ID: x\n:END:\n\nPlease   summarize\nthis.\n", "t.org")
    (found,) = find_requests(doc, NAMES)
    assert (found.instruction, found.items) == ("Please summarize this.", ())


def test_a_closed_headline_is_not_a_request() -> None:
    data = (
        b"#+TODO: TODO | DONE CANCELLED\n"
        b"* DONE @agent tag this\n"
        b"* CANCELLED @agent summarize this\n"
        b"* TODO @agent create a todo for milk\n"
        b"* @agent greet me\n"
    )
    found = find_requests(Document(data, "x.org"), NAMES)
    assert [r.instruction for r in found] == ["create a todo for milk", "greet me"]


def test_a_link_description_is_no_request_and_the_prefilter_still_sees_real_ones() -> None:
    from orgrouter.prefilter import make_prefilter

    linked = b"* Notes\n** See [[file:x.org][@agent docs]]\n"
    assert find_requests(Document(linked), NAMES) == []
    both = linked + b"** [[file:x.org][@agent docs]] @agent summarize x.org\n"
    (found,) = find_requests(Document(both), NAMES)
    assert (found.line, found.instruction) == (3, "summarize x.org")
    # The bytes prefilter never reads links: it says yes to both (a superset).
    prefilter = make_prefilter(["coder", "writer"], ["APPROVED", "REJECTED"])
    assert prefilter.matches(linked) and prefilter.matches(both)


def test_long_titles_of_link_openers_are_linear() -> None:
    # An unclosed "[[" target scanned to the line's end from each opener was quadratic:
    # a 200 KB title of "[[" took minutes.
    assert find_address("[[" * 100_000 + " @agent x", NAMES) is not None
    assert find_address("<https:" * 100_000 + " @agent x", NAMES) is not None
    assert find_address("https:" * 100_000 + " @agent x", NAMES) is not None


@pytest.mark.parametrize("opener", ["[[a][b", "[[a][[", "~a ", "=a "])
def test_long_titles_of_unclosed_spans_are_linear(opener: str) -> None:
    # A link description or verbatim span that nothing closes was scanned to the end of
    # the line from each opener: 50,000 of them took two minutes. Run in a process of
    # its own with a guard, so a regression fails instead of hanging the suite.
    code = (
        "from orgrouter.route.request import find_address\n"
        f"title = {opener!r} * 100_000 + ' @agent x'\n"
        "print(find_address(title, ['agent']) is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "True"


def test_a_long_title_still_hides_code_near_the_address() -> None:
    filler = "word " * 20_000
    assert find_address(filler + "~@agent~ x", NAMES) is None
    assert find_address(filler + "[[https://x.org][@agent x]]", NAMES) is None
    assert find_address(filler + "@agent x", NAMES) is not None


def test_requests_between_and_inside_many_blocks_as_written() -> None:
    block = "#+begin_example\n* @agent in a block, {0}\n#+end_example\n"
    text = "".join(block.format(i) + f"* @agent ask {i}\n" for i in range(3))
    text += "#+begin_src\n* @agent unclosed: a request\n"
    found = find_requests(Document(text.encode(), "t.org"), NAMES)
    assert [r.instruction for r in found] == ["ask 0", "ask 1", "ask 2", "unclosed: a request"]
