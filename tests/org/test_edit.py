"""Edit planning: splices, escaping, validation, and the cases golden files do not show."""

from __future__ import annotations

import pytest

from orgrouter.org.edit import (
    AddTag,
    AppendChild,
    SetPlanning,
    SetProperty,
    Shift,
    Splice,
    apply_splices,
    check_child,
    check_tag,
    edit_bytes,
    plan_edits,
)
from orgrouter.org.escape import escape_plain, escape_safe, safe_line
from orgrouter.org.scan import iter_headline_lines


def test_apply_splices_in_reverse_safe_order() -> None:
    data = b"0123456789"
    splices = [Splice(8, 9, b"E"), Splice(2, 2, b"a"), Splice(2, 2, b"b"), Splice(0, 1, b"")]
    assert apply_splices(data, splices) == b"1ab234567E9"


@pytest.mark.parametrize(
    "splices",
    [
        [Splice(2, 5, b"x"), Splice(4, 6, b"y")],
        [Splice(2, 5, b"x"), Splice(3, 3, b"y")],
        [Splice(0, 11, b"")],
        [Splice(5, 4, b"")],
    ],
)
def test_overlapping_or_outside_splices_are_refused(splices: list[Splice]) -> None:
    with pytest.raises(ValueError, match="splice"):
        apply_splices(b"0123456789", splices)


def test_shift_offset() -> None:
    splices = [Splice(2, 2, b"ab"), Splice(5, 7, b"Z")]
    assert [Shift(splices)(o) for o in (0, 2, 3, 5, 7, 9)] == [0, 4, 5, 7, 8, 10]


def test_escape_body_as_org_does() -> None:
    text = "* h\n  ** h\n#+TITLE: t\n,* e\n,,#+x\n*bold*\nkeep * this\n#not keyword\n"
    assert escape_plain(text) == (
        ",* h\n  ,** h\n,#+TITLE: t\n,,* e\n,,,#+x\n,*bold*\nkeep * this\n#not keyword\n"
    )


def test_safe_body_still_escapes_headlines_and_settings() -> None:
    text = "* x\n#+TITLE: y\n#+SETUPFILE: z\n  #+todo: a b\n**\tnot a headline\n*bold*"
    assert escape_safe(text) == (
        ",* x\n,#+TITLE: y\n,#+SETUPFILE: z\n  ,#+todo: a b\n**\tnot a headline\n*bold*"
    )


@pytest.mark.parametrize(
    ("body", "escaped"),
    [
        # Balanced blocks stay; a headline inside code gets the comma Org removes.
        ("#+BEGIN_SRC sh\n* x\n,* y\n#+END_SRC", "#+BEGIN_SRC sh\n,* x\n,* y\n#+END_SRC"),
        # Unbalanced delimiters are escaped, the begin and the end alike.
        ("#+begin_src sh\necho", ",#+begin_src sh\necho"),
        ("text\n#+end_src", "text\n,#+end_src"),
        ("#+begin_src\n#+end_example", ",#+begin_src\n,#+end_example"),
        # Inside a src block a begin line is text; the block ends at the first end line.
        (
            "#+begin_src\n#+begin_quote\n#+end_src\n#+end_quote",
            "#+begin_src\n,#+begin_quote\n#+end_src\n,#+end_quote",
        ),
        # A greater block's contents are Org: a block inside it pairs within it only.
        (
            "#+begin_quote\n#+begin_example\nx\n#+end_example\n#+end_quote",
            "#+begin_quote\n#+begin_example\nx\n#+end_example\n#+end_quote",
        ),
        (
            "#+begin_quote\n#+begin_src\n#+end_quote\n#+end_src",
            "#+begin_quote\n,#+begin_src\n#+end_quote\n,#+end_src",
        ),
        # An end line with trailing text closes nothing.
        ("#+begin_src\n#+end_src x", ",#+begin_src\n,#+end_src x"),
        # Already escaped lines are not escaped twice; tables and lists are left alone.
        (",* a\n,#+TITLE: b\n| *x* |\n- * y", ",* a\n,#+TITLE: b\n| *x* |\n- * y"),
    ],
)
def test_safe_body_blocks(body: str, escaped: str) -> None:
    assert escape_safe(body) == escaped


def test_append_child_escapes_a_safe_body_only_where_needed() -> None:
    body = "*Decisions*\n#+begin_src python\nx = 1\n#+end_src\n* stray\n#+TITLE: t"
    child = AppendChild(0, "R", ("ORGROUTER_RESULT", "r"), body=body, org_safe=True)
    assert edit_bytes(b"* a\n", [child]) == (
        b"* a\n** R\n:PROPERTIES:\n:ORGROUTER_RESULT: r\n:END:\n"
        b"*Decisions*\n#+begin_src python\nx = 1\n#+end_src\n,* stray\n,#+TITLE: t\n"
    )
    unsafe = AppendChild(0, "R", ("ORGROUTER_RESULT", "r"), body=body)
    assert edit_bytes(b"* a\n", [unsafe]).endswith(
        b",*Decisions*\n,#+begin_src python\nx = 1\n,#+end_src\n,* stray\n,#+TITLE: t\n"
    )


def test_safe_line() -> None:
    assert safe_line("  a\r\nb\rc\n\x00d ") == "a b c \ufffdd"


def test_unchanged_returns_the_same_bytes_object() -> None:
    data = b"* a\n:PROPERTIES:\n:K: v\n:END:\n"
    assert edit_bytes(data, [SetProperty(0, "k", " v\t")]) is data
    assert edit_bytes(data, []) is data


def test_later_edit_of_the_same_property_wins() -> None:
    data = b"* a\n:PROPERTIES:\n:K: v\n:END:\n"
    edits = [SetProperty(0, "K", "x"), SetProperty(0, "K", "y")]
    assert edit_bytes(data, edits) == b"* a\n:PROPERTIES:\n:K: y\n:END:\n"
    assert edit_bytes(data, [*edits, SetProperty(0, "K", "v")]) is data
    new = [SetProperty(0, "N", "1"), SetProperty(0, "n", "2")]
    assert edit_bytes(b"* a\n", new) == b"* a\n:PROPERTIES:\n:n:        2\n:END:\n"


def test_planning_replace_and_add() -> None:
    data = b"* a\nSCHEDULED: <2024-01-01 Mon> CLOSED: [2024-01-02 Tue]\n"
    edits = [
        SetPlanning(0, "SCHEDULED", "<2024-02-01 Thu>"),
        SetPlanning(0, "DEADLINE", "<2024-03-01 Fri>"),
    ]
    assert edit_bytes(data, edits) == (
        b"* a\nSCHEDULED: <2024-02-01 Thu> CLOSED: [2024-01-02 Tue] DEADLINE: <2024-03-01 Fri>\n"
    )


def test_child_with_planning_tags_and_todo() -> None:
    child = AppendChild(
        0,
        "Call back",
        ("ORGROUTER_RESULT", "x"),
        todo="TODO",
        tags=("phone",),
        planning=(("DEADLINE", "<2024-01-05 Fri>"),),
        body="Ask about it.",
    )
    assert edit_bytes(b"* a\n", [child]) == (
        b"* a\n** TODO Call back" + b" " * 53 + b":phone:\n"
        b"DEADLINE: <2024-01-05 Fri>\n:PROPERTIES:\n:ORGROUTER_RESULT: x\n:END:\nAsk about it.\n"
    )


def test_same_identity_twice_in_one_plan_is_appended_once() -> None:
    edits = [
        AppendChild(0, "one", ("ID", "1")),
        AppendChild(0, "again", ("id", " 1 ")),
    ]
    assert edit_bytes(b"* a\n", edits) == b"* a\n** one\n:PROPERTIES:\n:ID:       1\n:END:\n"


def test_child_moved_deeper_by_the_user_is_still_found() -> None:
    data = b"* a\n** grouping\n*** moved result\n:PROPERTIES:\n:ORGROUTER_RESULT: 1\n:END:\n"
    assert edit_bytes(data, [AppendChild(0, "r", ("ORGROUTER_RESULT", "1"))]) is data
    # ...but not when it sits outside the parent's subtree.
    data = b"* a\n* b\n:PROPERTIES:\n:ORGROUTER_RESULT: 1\n:END:\n"
    assert edit_bytes(data, [AppendChild(0, "r", ("ORGROUTER_RESULT", "1"))]) == (
        b"* a\n** r\n:PROPERTIES:\n:ORGROUTER_RESULT: 1\n:END:\n"
        b"* b\n:PROPERTIES:\n:ORGROUTER_RESULT: 1\n:END:\n"
    )


def test_five_hundred_levels_deep() -> None:
    data = b"".join(b"*" * n + b" level %d\n" % n for n in range(1, 501))
    deepest = list(iter_headline_lines(data))[-1]
    out = edit_bytes(data, [AppendChild(deepest.begin, "r", ("ID", "1"))])
    assert list(iter_headline_lines(out))[-1].level == 501
    assert out.startswith(data)


def test_one_megabyte_headline_gets_a_tag() -> None:
    data = b"* " + b"x" * 1_000_000 + b"\nbody\n"
    out = edit_bytes(data, [AddTag(0, "t")])
    assert out == b"* " + b"x" * 1_000_000 + b" :t:\nbody\n"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (SetProperty(0, "two words", "v"), "invalid property key"),
        (SetProperty(0, ":K", "v"), "invalid property key"),
        (SetProperty(0, "K:", "v"), "invalid property key"),
        (SetProperty(0, "K", "a\nb"), "one line"),
        (SetProperty(0, "K", "a\x00b"), "one line"),
        (AddTag(0, "no spaces"), "invalid tag"),
        (AddTag(0, "a:b"), "invalid tag"),
        (SetPlanning(0, "SOMEDAY", "<2024-01-01>"), "planning keyword"),
        (SetPlanning(0, "SCHEDULED", "tomorrow"), "invalid timestamp"),
        (AppendChild(0, "t", ("ID", "1"), todo="TWO WORDS"), "TODO keyword"),
        (AppendChild(0, "t", ("ID", "1"), level=0), "at least one star"),
        (AppendChild(0, "t", ("ID", "1"), properties=(("K", "a\nb"),)), "one line"),
        (SetProperty(1, "K", "v"), "no headline starts at byte 1"),
    ],
)
def test_invalid_edits_are_refused(edit: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_edits(b"* a\n", [edit])  # type: ignore[list-item]


def test_tags_after_a_megabyte_of_blanks() -> None:
    # The tags regexp searched from the left is quadratic here; found from the end it
    # is not.
    data = b"* a" + b" " * 1_000_000 + b":x:\n"
    assert edit_bytes(data, [AddTag(0, "y")]) == b"* a" + b" " * 999_998 + b":x:y:\n"
    data = b"* " + b" \t" * 500_000 + b"x\n"
    assert edit_bytes(data, [AddTag(0, "y")]) == data[:-1] + b" :y:\n"


_GOOD = AppendChild(0, "Result", ("ORGROUTER_RESULT", "h/1"), body="Text.", tags=("ok",))
_WRITABLE = [
    _GOOD,
    _GOOD._replace(level=3, todo="TODO", planning=(("SCHEDULED", "<2026-12-04 Fri>"),)),
]


@pytest.mark.parametrize(
    "edit",
    [
        *_WRITABLE,
        _GOOD._replace(properties=(("two words", "x"),)),
        _GOOD._replace(properties=(("KEY", "a\nb"),)),
        _GOOD._replace(identity=("ORGROUTER_RESULT", "h/1\0")),
        _GOOD._replace(tags=("two words",)),
        _GOOD._replace(planning=(("SCHEDULED", "soon"),)),
        _GOOD._replace(planning=(("WHEN", "<2026-12-04 Fri>"),)),
        _GOOD._replace(todo="TO DO"),
        _GOOD._replace(level=0),
        _GOOD._replace(title="not \udc80 UTF-8"),
        _GOOD._replace(body="Fine.\nNot \udc80 UTF-8."),
        _GOOD._replace(properties=(("KEY", "\ud800"),), org_safe=True),
    ],
)
def test_checking_a_child_raises_what_planning_it_raises(edit: AppendChild) -> None:
    # check_child is how a route learns a result cannot be written before planning it:
    # it must fail exactly when, and with the message that, the planner itself would.
    planned: str | None = None
    try:
        plan_edits(b"* parent\n", [edit])
    except ValueError as error:
        planned = str(error)
    checked: str | None = None
    try:
        check_child(edit)
    except ValueError as error:
        checked = str(error)
    assert checked == planned
    assert (planned is None) == (edit in _WRITABLE)


@pytest.mark.parametrize("tag", ["ok", "@home", "two words", "a:b", "", "\udc80"])
def test_checking_a_tag_raises_what_adding_it_raises(tag: str) -> None:
    planned = checked = None
    try:
        plan_edits(b"* parent\n", [AddTag(0, tag)])
    except ValueError as error:
        planned = str(error)
    try:
        check_tag(tag)
    except ValueError as error:
        checked = str(error)
    assert checked == planned
