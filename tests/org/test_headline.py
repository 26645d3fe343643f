"""Headline lines parse as Org 9.5.5's `org-element-headline-parser' does."""

from __future__ import annotations

import pytest

from orgrouter.org.headline import Headline, is_tag_char, parse_headline, split_tags
from orgrouter.org.todo import TodoKeywords, parse_sequence

CASES = [
    ("* plain", Headline(1, "plain")),
    ("*** TODO [#A] Title :a:b:", Headline(3, "Title", "TODO", "A", tags=["a", "b"])),
    # orgparse gets these wrong: '#' and '%' are tag characters.
    ("* foo :a#b:%c:", Headline(1, "foo", tags=["a#b", "%c"])),
    # No blank before the colons: no tags.
    ("* foo:bar:", Headline(1, "foo:bar:")),
    # Only the last word can be tags; inner empty tags survive as Org keeps them.
    ("* x :a: :b:", Headline(1, "x :a:", tags=["b"])),
    ("* foo :a::b:", Headline(1, "foo", tags=["a", "", "b"])),
    ("* :a:", Headline(1, "", tags=["a"])),
    ("*  :a:b:  ", Headline(1, "", tags=["a", "b"])),
    # After a keyword the title starts past its blanks, so ":a:" is the title.
    ("* TODO :a:", Headline(1, ":a:", "TODO")),
    # A keyword needs a following space, not a tab, and must be exact case.
    ("* TODO", Headline(1, "TODO")),
    ("* TODO\tx", Headline(1, "TODO\tx")),
    ("* todo x", Headline(1, "todo x")),
    ("* TODO [#AB] y", Headline(1, "[#AB] y", "TODO")),
    ("* [#A]", Headline(1, "", priority="A")),
    ("* [#é] e :é:", Headline(1, "e", priority="é", tags=["é"])),
    # COMMENT is a case-sensitive prefix, after keyword and priority.
    ("* COMMENT", Headline(1, "", commented=True)),
    ("* COMMENTARY x", Headline(1, "ARY x", commented=True)),
    ("* Comment x", Headline(1, "Comment x")),
    ("** [#A]COMMENT y", Headline(2, "y", priority="A", commented=True)),
    ("* COMMENT :t:", Headline(1, "", commented=True, tags=["t"])),
    (
        "* DONE COMMENT [#A] x :ARCHIVE:",
        Headline(1, "[#A] x", "DONE", commented=True, archived=True, tags=["ARCHIVE"]),
    ),
    ("* x :archive:", Headline(1, "x", tags=["archive"])),
    # Only blanks and tabs separate tags; CR and FF are text (CR is trimmed).
    ("* crlf :t:\r", Headline(1, "crlf :t:")),
    ("* ff :t:\x0c", Headline(1, "ff :t:\x0c")),
    ("* x\u2028y :t:", Headline(1, "x\u2028y", tags=["t"])),
    ("* with newline\n", Headline(1, "with newline")),
    ("* ", Headline(1, "")),
    ("* tag :a-b:", Headline(1, "tag :a-b:")),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[c[0] for c in CASES])
def test_parse_headline(line: str, expected: Headline) -> None:
    assert parse_headline(line) == expected


def test_custom_keywords_replace_the_default() -> None:
    todo = TodoKeywords((parse_sequence("sequence", ["NEXT(n)", "WAIT(w@/!)", "|", "DONE(d)"]),))
    assert todo.keywords == ("NEXT", "WAIT", "DONE")
    assert todo.done == ("DONE",)
    assert parse_headline("* WAIT for it", todo) == Headline(1, "for it", "WAIT")
    assert parse_headline("* TODO x", todo) == Headline(1, "TODO x")


@pytest.mark.parametrize("line", ["*no space", "", "  * indented", "x * y"])
def test_not_a_headline(line: str) -> None:
    with pytest.raises(ValueError, match="not a headline"):
        parse_headline(line)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("::", [""]), (":", []), ("a", ["a"]), ("", [""]), (":a::b:", ["a", "", "b"]),
     ("a:b", ["a", "b"]), ("::a:", ["", "a"])],
)  # fmt: skip
def test_split_tags_like_org_split_string(text: str, expected: list[str]) -> None:
    assert split_tags(text) == expected


@pytest.mark.parametrize(
    ("char", "expected"),
    # Emacs's [:alnum:]: letters, marks (U+0301), decimal and letter numbers (U+2160).
    [("a", True), ("_", True), ("@", True), ("é", True), ("\u0301", True), ("\u2160", True),
     ("٣", True), ("-", False), ("²", False), ("\u00a0", False), ("€", False)],
)  # fmt: skip
def test_tag_characters(char: str, expected: bool) -> None:
    assert is_tag_char(char) is expected


def test_deep_and_long_lines() -> None:
    stars = "*" * 500
    assert parse_headline(f"{stars} deep :t:") == Headline(500, "deep", tags=["t"])
    long_title = "x" * 1_000_000
    assert parse_headline(f"* {long_title} :t:") == Headline(1, long_title, tags=["t"])
