"""block_spans: the blocks a request may not sit in, found without a line-start regex."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.route.request import block_spans

# The pattern block_spans stands for (and replaced, being three times slower).
PATTERN = re.compile(
    rb"^[ \t]*#\+begin_(src|example|export|comment|verse)\b.*?^[ \t]*#\+end_\1\b",
    re.IGNORECASE | re.MULTILINE | re.DOTALL,
)
PIECES = (
    b"#+begin_src",
    b"#+BEGIN_SRC",
    b"#+end_src",
    b"#+END_Src",
    b"#+begin_example",
    b"#+end_example",
    b"#+end_examples",
    b"#+begin_verse",
    b"#+end_verse",
    b" python",
    b"\n",
    b"  ",
    b"\t",
    b"x ",
    b"* @agent go",
)


def spans(data: bytes) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in PATTERN.finditer(data)]


def test_blocks_as_written() -> None:
    data = (
        b"a #+begin_src\n#+end_src\n"  # after text: no block
        b"  #+BEGIN_SRC sh\n* x\n  #+end_src\n"  # a block, indented, any case
        b"#+begin_example\n#+end_src\n#+end_exampleX\n#+end_example\n"
        b"#+begin_verse\nno end\n"
    )
    assert list(block_spans(data)) == spans(data) == [(24, 56), (57, 111)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_block_spans_equal_the_pattern(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    assert list(block_spans(data)) == spans(data)


def test_block_spans_equal_the_pattern_on_the_corpus(corpus_dir: Path) -> None:
    files = sorted(corpus_dir.rglob("*.org"))
    for path in files:
        data = path.read_bytes()
        assert list(block_spans(data)) == spans(data), path
    assert len(files) > 1000


@pytest.mark.parametrize(
    "middle",
    [
        b"a mention of #+begin_src in prose\n",  # after text: walked from here on
        b"#+begin_verse\nnever closed\n",  # no end: the search passes over it
        b"#+begin_src\n#+begin_src\nonly one end below\n",
        b"# a comment, not a begin\n",
    ],
)
def test_whole_blocks_then_a_walk_agree_with_the_pattern(middle: bytes) -> None:
    block = b"#+begin_src sh\necho\n#+end_src\n* x\n"
    data = block * 3 + middle + block * 3 + b"#+BEGIN_EXAMPLE\n* @agent go\n#+end_example\n"
    assert list(block_spans(data)) == spans(data)
    assert len(spans(data)) >= 6
