"""Property tests for safe bodies: whatever a skill marks safe, the outline survives."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from orgrouter.org.edit import AppendChild, edit_bytes
from orgrouter.org.escape import escape_safe
from orgrouter.org.scan import iter_headline_lines

LINES = [
    "text",
    "*bold*",
    "* headline",
    "** deeper",
    ",* escaped",
    "#+TITLE: x",
    "#+SETUPFILE: y",
    "  #+todo: a",
    ",#+TITLE: kept",
    "#+begin_src python",
    "#+BEGIN_SRC sh",
    "#+end_src",
    "#+END_SRC  ",
    "#+begin_quote",
    "#+end_quote",
    "#+begin_example",
    "#+end_example",
    "#+begin_foo",
    "#+end_foo",
    "- item",
    "| a | b |",
    "",
]
_DELIMITER = re.compile(r"[ \t]*#\+(?:begin|end)_\S+", re.IGNORECASE)
bodies = st.lists(st.sampled_from(LINES), max_size=30).map("\n".join)


@given(bodies)
def test_only_commas_are_added_and_no_headline_or_setting_is_left(body: str) -> None:
    escaped = escape_safe(body)
    before, after = body.split("\n"), escaped.split("\n")
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        assert new == old or new == old[: len(old) - len(old.lstrip())] + "," + old.lstrip()
        assert not new.startswith(("* ", "** "))
        if new.lstrip(" \t").startswith("#+"):
            assert _DELIMITER.match(new), new  # only a block's begin or end line stays
    assert escape_safe(escaped) == escaped  # stable: a second pass adds nothing


@given(bodies)
def test_a_safe_child_is_one_headline(body: str) -> None:
    child = AppendChild(0, "R", ("ORGROUTER_RESULT", "r"), body=body, org_safe=True)
    out = edit_bytes(b"* a\n", [child])
    assert [h.level for h in list(iter_headline_lines(out))] == [1, 2]
