"""Planning lines and property drawers are found exactly where Org accepts them."""

from __future__ import annotations

import pytest

from orgrouter.org.drawer import Head, locate_head
from orgrouter.org.scan import iter_headline_lines


def _head(data: bytes, index: int = 0, newline: bytes = b"\n") -> Head:
    return locate_head(data, list(iter_headline_lines(data))[index], newline=newline)


def test_planning_and_drawer() -> None:
    data = (
        b"* TODO a\n"
        b"SCHEDULED: <2024-01-02 Tue> DEADLINE: <2024-01-05 Fri 10:00>--<2024-01-06 Sat>\n"
        b":PROPERTIES:\n"
        b":ID:       abc\n"
        b":Empty:\n"
        b":a:b: c d \t\n"
        b":END:\n"
        b"body\n"
    )
    head = _head(data)
    assert head.planning is not None
    assert (head.planning.begin, head.planning.end, head.planning.line) == (9, 88, 2)
    assert [(e.keyword, e.timestamp) for e in head.planning.entries] == [
        ("SCHEDULED", "<2024-01-02 Tue>"),
        ("DEADLINE", "<2024-01-05 Fri 10:00>--<2024-01-06 Sat>"),
    ]
    entry = head.planning.entries[0]
    assert data[entry.begin : entry.end] == b"SCHEDULED: <2024-01-02 Tue>"
    drawer = head.drawer
    assert drawer is not None
    assert (drawer.begin, drawer.line, drawer.indent) == (88, 3, b"")
    assert data[drawer.end_line_begin : drawer.end] == b":END:\n"
    assert data[head.body_begin :] == b"body\n"
    props = [(p.key, p.value, p.line) for p in drawer.properties]
    assert props == [("ID", "abc", 4), ("Empty", "", 5), ("a:b", "c d", 6)]
    for prop in drawer.properties:
        assert data[prop.value_begin : prop.value_end].decode() == prop.value
    empty = drawer.get("EMPTY")
    assert empty is not None
    assert data[empty.begin : empty.end] == b":Empty:\n"
    assert empty.value_begin == empty.value_end == empty.begin + len(b":Empty:")
    assert drawer.get("missing") is None


@pytest.mark.parametrize(
    "data",
    [
        b"* a\n\n:PROPERTIES:\n:A: 1\n:END:\n",  # after a blank line
        b"* a\ntext\n:PROPERTIES:\n:A: 1\n:END:\n",  # after body text
        b"* a\n:PROPERTIES:\n:A: 1\n\n:END:\n",  # a blank line inside
        b"* a\n:PROPERTIES:\n:A:\t1\n:END:\n",  # a tab after the key
        b"* a\n:PROPERTIES:\nnot a property\n:END:\n",
        b"* a\n:PROPERTIES:\n:A: 1\n",  # never closed
        b"* a\n:PROPERTIES:\n:a\xc2\xa0b: 1\n:END:\n",  # NBSP is whitespace to Emacs
        b"* a\n:PROPERTIES:\r\n:A: 1\r\n:END:\r\n",  # \r is text when read as unix
        b"* a\nCLOCK: [2024-01-01 Mon 10:00]\n:PROPERTIES:\n:END:\n",
    ],
)
def test_no_drawer_where_org_refuses_one(data: bytes) -> None:
    head = _head(data)
    assert head.drawer is None
    expected = head.planning.end if head.planning else head.headline.end
    assert head.body_begin == expected


def test_case_folding_and_indentation() -> None:
    data = b"* a\n  scheduled: whenever\n  :properties:\n  :X: \xc3\xa9 y  \n  :end:  \n* b\n"
    head = _head(data)
    assert head.planning is not None
    assert head.planning.entries == ()  # lower-case keywords carry no entry in Org
    assert head.drawer is not None
    assert head.drawer.indent == b"  "
    assert [(p.key, p.value) for p in head.drawer.properties] == [("X", "é y")]
    assert data[head.body_begin :] == b"* b\n"


def test_end_line_inside_drawer_with_text_is_a_property() -> None:
    data = b"* a\n:PROPERTIES:\n:END: not the end\n:END:\n"
    head = _head(data)
    assert head.drawer is not None
    assert [(p.key, p.value) for p in head.drawer.properties] == [("END", "not the end")]


def test_crlf_file_when_visited_as_dos() -> None:
    data = b"* a\r\nDEADLINE: <2024-01-01 Mon>\r\n:PROPERTIES:\r\n:A: 1 \r\n:END:\r\nx\r\n"
    head = _head(data, newline=b"\r\n")
    assert head.planning is not None
    assert head.planning.end == data.index(b":PROPERTIES:")
    assert head.drawer is not None
    assert [(p.key, p.value) for p in head.drawer.properties] == [("A", "1")]
    assert data[head.drawer.end_line_begin : head.drawer.end] == b":END:\r\n"
    assert data[head.body_begin :] == b"x\r\n"


def test_drawer_at_end_of_file_without_newline() -> None:
    data = b"* a\n:PROPERTIES:\n:A: 1\n:END:"
    head = _head(data)
    assert head.drawer is not None
    assert head.drawer.end == head.body_begin == len(data)
    assert head.drawer.end_line_begin == len(data) - len(b":END:")


def test_headline_at_end_without_newline() -> None:
    data = b"x\n* last"
    head = _head(data)
    assert (head.planning, head.drawer, head.body_begin) == (None, None, len(data))


def test_empty_drawer_and_planning_at_eof() -> None:
    head = _head(b"* a\n:PROPERTIES:\n:END:\n")
    assert head.drawer is not None
    assert head.drawer.properties == ()
    head = _head(b"* a\nCLOSED: [2024-01-01 Mon 09:00]")
    assert head.planning is not None
    assert [(e.keyword, e.timestamp) for e in head.planning.entries] == [
        ("CLOSED", "[2024-01-01 Mon 09:00]")
    ]
    assert head.planning.end == head.body_begin == len(b"* a\nCLOSED: [2024-01-01 Mon 09:00]")


def test_second_headline() -> None:
    data = b"* a\n** b\n:PROPERTIES:\n:K: v\n:END:\n"
    head = _head(data, 1)
    assert head.headline.level == 2
    assert head.drawer is not None
    assert head.drawer.line == 3
    assert head.drawer.properties[0].line == 4


def test_unclosed_drawer_with_blank_tails_is_linear() -> None:
    # org-property-drawer-re run by a backtracking engine tries 2**n splits here.
    data = b"* a\n:PROPERTIES:\n" + b":K: v  \n" * 5000 + b"text\n"
    assert _head(data).drawer is None
    data = b"* a\n:PROPERTIES:\n:K: " + b" " * 1_000_000
    assert _head(data).drawer is None
    data = b"* a\n:PROPERTIES:\n:K: " + b" " * 1_000_000 + b"x \n:END:\n"
    drawer = _head(data).drawer
    assert drawer is not None
    assert [(p.key, p.value) for p in drawer.properties] == [("K", "x")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b":a:b: c", ("a:b", "c")),
        (b":a: b:", ("a", "b:")),
        (b":K:   ", ("K", "")),
        (b":K:\t\t", ("K", "")),
        (b"  :K: \tv\t ", ("K", "v")),
        (b":K:\tv", None),  # org-property-re accepts it, the drawer regexp does not
        (b":K:v", None),
        (b"::", None),
        (b":K", None),
    ],
)
def test_property_lines(line: bytes, expected: tuple[str, str] | None) -> None:
    head = _head(b"* a\n:PROPERTIES:\n" + line + b"\n:END:\n")
    if expected is None:
        assert head.drawer is None
    else:
        assert head.drawer is not None
        assert [(p.key, p.value) for p in head.drawer.properties] == [expected]
