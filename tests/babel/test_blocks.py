"""Src block elements as org-element sees them (orgrouter.org.blocks)."""

from __future__ import annotations

from orgrouter.org.blocks import (
    balanced_split,
    find_src_blocks,
    parse_header_args,
    read_value,
    unescape,
)
from orgrouter.org.escape import escape_code

DOC = """\
* H
#+name: foo
#+header: :var x=1
#+HEADERS: :tangle a.py
#+begin_src python -n :tangle "b c.py" :noweb yes
,* x
  ,,#+y
#+end_src

#+begin_example
#+begin_src sh
x
#+end_src
#+end_example
#+begin_src sh
* H2
#+end_src
#+begin_src :tangle x
é
#+end_src
"""


def test_block_fields() -> None:
    blocks = find_src_blocks(DOC)
    assert len(blocks) == 2
    first, second = blocks
    assert (first.line, first.end_line, first.language, first.switches) == (5, 8, "python", "-n")
    assert first.parameters == ':tangle "b c.py" :noweb yes'
    assert first.name == "foo"
    assert first.headers == (":var x=1", ":tangle a.py")
    assert first.raw_value == ",* x\n  ,,#+y\n"
    assert first.value == "* x\n  ,#+y\n"
    assert DOC[first.begin : first.post_affiliated].startswith("#+name: foo\n")
    assert DOC[first.post_affiliated :].startswith("#+begin_src python")
    assert DOC[first.contents_end :].startswith("#+end_src\n")
    assert first.post_blank == 1 and DOC[first.end :].startswith("#+begin_example")
    assert parse_header_args(first.parameters or "") == [
        (":tangle", '"b c.py"'),
        (":noweb", "yes"),
    ]
    # A block without a language: Org reads ":tangle" as the language.
    assert (second.language, second.parameters, second.line) == (":tangle", "x", 18)


def test_offsets_count_characters_not_bytes() -> None:
    second = find_src_blocks(DOC)[1]
    assert DOC[second.contents_begin : second.contents_end] == "é\n"
    assert second.end == len(DOC)


def test_block_closed_after_headline_is_not_a_block() -> None:
    assert find_src_blocks("#+begin_src sh\n* H\n#+end_src\n") == []


def test_unclosed_block_is_text_and_later_blocks_count() -> None:
    text = "#+begin_src sh\nx\n\n#+BEGIN_SRC sh\ny\n#+END_SRC\n"
    blocks = find_src_blocks(text)
    # The first begin line finds the only end line: Org makes one block of both.
    assert [b.raw_value for b in blocks] == ["x\n\n#+BEGIN_SRC sh\ny\n"]


def test_crlf_lines() -> None:
    text = "#+begin_src sh :tangle a\r\necho\r\n#+end_src\r\n"
    (block,) = find_src_blocks(text)
    assert block.language == "sh" and block.parameters == ":tangle a"
    assert block.raw_value == "echo\r\n"


def test_switches_and_label_format() -> None:
    (block,) = find_src_blocks('#+begin_src c -n 10 -l "(ref:%s)" -r :tangle t.c\n#+end_src\n')
    assert block.switches == '-n 10 -l "(ref:%s)" -r'
    assert block.parameters == ":tangle t.c"


def test_orphan_affiliated_lines_stop_at_text() -> None:
    text = "para\n#+NAME: a\n#+name: b\n#+begin_src sh\n#+end_src\n"
    (block,) = find_src_blocks(text)
    assert block.name == "b"
    assert text[block.begin :].startswith("#+NAME: a")


def test_balanced_split_and_header_args() -> None:
    assert balanced_split(":a b  :c d") == [":a b ", "c d"]
    assert parse_header_args(':a b  :c "d :e" :f (x :y) :g') == [
        (":a", "b"),
        (":c", '"d :e"'),
        (":f", "(x :y)"),
        (":g", None),
    ]
    assert parse_header_args("   ") == []


def test_read_value_and_escaping() -> None:
    assert read_value('"b c.py"') == "b c.py"
    assert read_value('"a \\"q\\""') == 'a "q"'
    assert read_value('"a" "b"') == '"a" "b"'
    assert unescape(",* a\n ,,#+b\n,c\n") == "* a\n ,#+b\n,c\n"
    assert escape_code("* a\n #+b\n,*c\nd\n") == ",* a\n ,#+b\n,,*c\nd\n"


def test_a_src_block_ends_inside_the_greater_block_around_it() -> None:
    # Org looks for "#+end_src" only up to the "#+end_center": this begin line is text.
    text = "#+begin_center\n#+begin_src sh\n#+end_center\n#+end_src\n#+begin_src sh\n#+end_src\n"
    assert [b.line for b in find_src_blocks(text)] == [5]
