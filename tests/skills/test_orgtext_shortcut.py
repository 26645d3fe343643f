"""orgtext reads a section without the element parser only where that parser could
hide none of the lines it reads: the same prose as always asking the parser."""

from __future__ import annotations

import random
import re

import pytest

from orgrouter.skills import orgtext

LINES = ["text", "#+TITLE: t", "#+begin_src sh", "#+END_SRC", "  #+Begin_Quote", "#+end_quote",
         ":LOGBOOK:", ":END:", "  :end:  ", ":PROPERTIES:", ":ID: 1", "* Head", "** Sub",
         "- item", "x\x0c* not a headline", "\u2028", "", "#+BEGIN: clocktable", "#+END:"]


@pytest.mark.parametrize("seed", range(300))
def test_prose_is_what_the_element_parser_says(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    newline = rng.choice(["\n", "\r\n"])
    section = newline.join(rng.choice(LINES) for _ in range(rng.randint(1, 12))) + newline
    fast = (list(orgtext.prose_lines(section)), orgtext.read_prose(section))
    always = re.compile("")  # every section goes to the element parser, as before
    monkeypatch.setattr(orgtext, "_BLOCK_BEGIN", always)
    monkeypatch.setattr(orgtext, "_DRAWER_END", always)
    assert fast == (list(orgtext.prose_lines(section)), orgtext.read_prose(section))
