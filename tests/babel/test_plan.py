"""Exact tangle output for features and for Org's later fixes we follow."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.babel.body import remove_indentation
from orgrouter.babel.document import Document
from orgrouter.babel.headers import property_chain_value
from orgrouter.babel.plan import FilePlan, plan_document
from orgrouter.errors import InputError


def plan(text: str, name: str = "note.org") -> FilePlan:
    return plan_document(Document.from_bytes(Path("/notes") / name, text.encode()))


def contents(result: FilePlan) -> dict[str, str]:
    return {t.name: t.content.decode() for t in result.targets}


def test_comments_org_leaves_out_headline_and_drawer_as_org_9_7() -> None:
    # Org 9.5 copies "* Heading one" and its property drawer into the comment too;
    # 9.7 fixed that, and we follow 9.7 (tests/data/tangle has only 9.5-equal cases).
    text = (
        "* Heading one\n:PROPERTIES:\n:ID: x\n:END:\nSome prose.\n  Indented prose.\n\n"
        "#+begin_src sh :tangle o.sh :comments org\necho one\n#+end_src\n"
        "Between blocks.\n"
        "#+begin_src sh :tangle o.sh :comments both\necho two\n#+end_src\n"
    )
    assert contents(plan(text)) == {
        "o.sh": "# Some prose.\n#   Indented prose.\n\n\necho one\n\n\n# Between blocks.\n\n"
        "# [[file:note.org::*Heading one][Heading one:2]]\necho two\n"
        "# Heading one:2 ends here\n"
    }


def test_nested_noweb_expands_inner_tangle_references_as_org_9_8() -> None:
    # Org 9.5 leaves "<<inner>>" alone because the inner block says ":noweb tangle".
    text = (
        "#+begin_src sh :tangle n.sh :noweb yes\n<<outer>>\n#+end_src\n"
        "#+name: outer\n#+begin_src sh :noweb tangle\nouter <<inner>>\n#+end_src\n"
        "#+name: inner\n#+begin_src sh\ninner\n#+end_src\n"
    )
    assert contents(plan(text)) == {"n.sh": "outer inner\n"}


def test_lisp_values_are_reported_and_the_block_skipped() -> None:
    text = (
        "#+begin_src sh :tangle (concat \"a\" \".sh\")\nx\n#+end_src\n"
        "#+begin_src sh :tangle b.sh :var x=(system-name)\ny\n#+end_src\n"
        "#+begin_src sh :tangle c.sh :tangle-mode (identity #o700)\nz\n#+end_src\n"
    )
    result = plan(text)
    assert [(s.line, s.reason, s.detail) for s in result.skipped] == [
        (1, "elisp-form", ':tangle (concat "a" ".sh")'),
        (4, "elisp-form", ":var x=(system-name)"),
    ]
    assert contents(result) == {"c.sh": "z\n"}
    assert result.targets[0].mode == 0o700


def test_code_execution_is_reported_and_skipped() -> None:
    text = (
        "#+begin_src sh :tangle a.sh :noweb yes\n<<gen(n=2)>>\n#+end_src\n"
        "#+name: gen\n#+begin_src sh :tangle b.sh\necho $n\n#+end_src\n"
        "#+begin_src sh :tangle c.sh :var v=gen\necho $v\n#+end_src\n"
    )
    result = plan(text)
    assert [(s.line, s.reason) for s in result.skipped] == [
        (1, "code-execution"),
        (8, "code-execution"),
    ]
    assert contents(result) == {"b.sh": "echo $n\n"}


def test_noweb_cycle_is_reported() -> None:
    text = "#+name: a\n#+begin_src sh :tangle a.sh :noweb yes\n<<a>>\n#+end_src\n"
    assert [s.reason for s in plan(text).skipped] == ["noweb-cycle"]


def test_comment_and_archive_ancestors_skip_blocks() -> None:
    text = (
        "* COMMENT off\n** child\n#+begin_src sh :tangle a.sh\nno\n#+end_src\n"
        "* kept :ARCHIVE:\n** child\n#+begin_src sh :tangle a.sh\nno\n#+end_src\n"
        "* on\n#+begin_src sh :tangle a.sh\nyes\n#+end_src\n"
    )
    assert contents(plan(text)) == {"a.sh": "yes\n"}


def test_header_property_inheritance() -> None:
    assert property_chain_value([(None, ["b"]), ("a", ["c"])], "k") == "a c b"
    assert property_chain_value([(None, ["b"]), (None, [])], "k") == "k b"
    assert property_chain_value([("x", [])], "k") == "x"
    assert property_chain_value([], None) is None


def test_shebang_mode_and_first_mode_wins() -> None:
    text = (
        "#+begin_src sh :tangle s.sh :tangle-mode (identity #o640)\none\n#+end_src\n"
        "#+begin_src sh :tangle s.sh :shebang #!/bin/sh\ntwo\n#+end_src\n"
    )
    result = plan(text)
    assert contents(result) == {"s.sh": "one\n\n#!/bin/sh\ntwo\n"}
    assert result.targets[0].mode == 0o640


def test_indentation_removal_keeps_relative_tabs() -> None:
    # Column 10 less 2 is column 8: the tab that ends there is kept (indent-line-to).
    assert remove_indentation("  a\n\t  b\n   \n  c") == "a\n\tb\n\nc"
    assert remove_indentation("    a\n  \tb") == "a\n    b"  # checked with Emacs 28.2
    assert remove_indentation("a\n  b") == "a\n  b"


def test_unclosed_block_does_not_hide_later_blocks() -> None:
    # Org 9.5 fails on this file ("Wrong type argument: stringp, nil"); we tangle the
    # blocks org-element sees.
    text = (
        "* First\n#+begin_src sh :tangle a.sh\necho a\n"
        "* Second\n#+begin_src sh :tangle b.sh\necho b\n#+end_src\n"
    )
    assert contents(plan(text)) == {"b.sh": "echo b\n"}


def test_invalid_utf8_names_the_line() -> None:
    with pytest.raises(InputError) as caught:
        Document.from_bytes(Path("x.org"), b"ok\n\xff\n")
    # The one decoder's message, as a route gives it: line, column and byte.
    assert str(caught.value) == "x.org:2:1: invalid UTF-8 at byte 3 (0xff): Org files must be UTF-8"


def test_tangle_yes_uses_the_language_extension() -> None:
    # Org's ob-LANG files register these; under `emacs -Q' (the oracle) only the Lisp
    # ones are loaded, so Emacs -Q would write note.python and note.shell.
    text = "".join(
        f"#+begin_src {lang} :tangle yes\n{lang}\n#+end_src\n"
        for lang in ("python", "shell", "sh", "emacs-lisp", "C++", "nosuch")
    )
    assert sorted(contents(plan(text))) == [
        "note.cpp", "note.el", "note.nosuch", "note.py", "note.sh",
    ]  # fmt: skip
    assert contents(plan(text))["note.sh"] == "shell\n\nsh\n"


def test_comments_noweb_marks_expansions_with_a_relative_link() -> None:
    # Org 9.5 writes "[[[[file:/abs/note.org::inner][inner]]][inner]]" here.
    text = (
        "* Outer\n#+begin_src sh :tangle o.sh :noweb yes :comments noweb\n"
        "start\n  <<inner>>\nend\n#+end_src\n"
        "* Inner\n#+name: inner\n#+begin_src sh\na\nb\n#+end_src\n"
    )
    assert contents(plan(text)) == {
        "o.sh": "# [[file:note.org::*Outer][Outer:1]]\nstart\n"
        "  # [[file:note.org::inner][inner]]\n  a\n  b\n  # inner ends here\n"
        "end\n# Outer:1 ends here\n"
    }
