"""blockspans: where blocks are, as Org parses them and as written (no request sits in one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.org import blockspans
from orgrouter.org.blockspans import Block, parsed_block_spans, written_block_spans

# The pattern written_block_spans stands for (and replaced, being three times slower).
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
    assert list(written_block_spans(data)) == spans(data) == [(24, 56), (57, 111)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_block_spans_equal_the_pattern(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    assert list(written_block_spans(data)) == spans(data)


def test_block_spans_equal_the_pattern_on_the_corpus(corpus_dir: Path) -> None:
    files = sorted(corpus_dir.rglob("*.org"))
    for path in files:
        data = path.read_bytes()
        assert list(written_block_spans(data)) == spans(data), path
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
    assert list(written_block_spans(data)) == spans(data)
    assert len(spans(data)) >= 6


# Files where the readings differ: nesting, headlines, unclosed and mismatched ends.
TRICKY = {
    "nested.org": (
        "#+begin_quote\n#+begin_src sh\necho\n#+end_src\n#+end_quote\n"
        # A src block whose end is past the quote's end is no block: Org stops at the quote.
        "#+begin_center\n#+begin_src sh\n#+end_center\n#+end_src\n"
        "#+begin_note\n#+begin_example\n#+begin_src\n#+end_example\n#+end_note\n"
    ),
    "headlines.org": (
        "#+begin_src sh\n* inside\n#+end_src\n"
        "#+BEGIN_EXAMPLE\ntext\n  #+End_Example  \n\n\n* two\n"
        "#+begin_verse\n#+begin_quote\n#+end_verse\n#+end_quote\n"
    ),
    "latex.org": (
        "\\begin{align}\n#+begin_src sh\n\\end{align}\n#+end_src\n"
        "\\begin{x} one line \\end{x}\n#+begin_export html\n\\begin{y}\n#+end_export\n"
    ),
    "unclosed.org": (
        "#+begin_src\n#+end_srcx\n#+begin_example\n#+end_src\n#+end_example\n"
        "#+begin_comment\n* h\n#+end_comment\n"
    ),
}

# For each block (or LaTeX environment): its post-affiliated point and the point past its
# closing line (:end less the post-blank lines), as 0-based character offsets.
_DUMP = """
(dolist (file command-line-args-left)
  (with-temp-buffer
    (insert-file-contents file)
    (delay-mode-hooks (org-mode))
    (princ (format "%s %S\\n" file
      (org-element-map (org-element-parse-buffer) '(src-block example-block export-block
          comment-block verse-block quote-block center-block special-block latex-environment)
        (lambda (el)
          (list (org-element-property :post-affiliated el)
                (save-excursion (goto-char (org-element-property :end el))
                  (forward-line (- (org-element-property :post-blank el))) (point)))))))))
"""


def _emacs_spans(
    emacs: str, directory: Path, names: list[str]
) -> dict[str, list[tuple[int, int]]]:
    import subprocess

    done = subprocess.run(
        [emacs, "-Q", "--batch", "--eval", "(require 'org)", "--eval",
         f"(progn {_DUMP})", *names],
        cwd=directory, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found: dict[str, list[tuple[int, int]]] = {}
    for line in done.stdout.splitlines():
        name, _, spans_ = line.partition(" ")
        pairs = re.findall(r"\((\d+) (\d+)\)", spans_)
        found[name] = sorted((int(begin) - 1, int(end) - 1) for begin, end in pairs)
    return found


@pytest.mark.emacs
def test_blocks_as_org_parses_agree_with_emacs(tmp_path: Path, emacs: str) -> None:
    for name, text in TRICKY.items():
        (tmp_path / name).write_text(text)
    expected = _emacs_spans(emacs, tmp_path, list(TRICKY))
    for name, text in TRICKY.items():
        ours = sorted((b.begin, b.end) for b in parsed_block_spans(text, latex=True))
        assert ours == expected[name], name


# Lines whose mixes make the readings differ: openers and closers of every kind, near
# misses, headlines (drawers and lists, which bound blocks too, are not modelled here).
LINES = (
    "#+begin_src sh", "#+end_src", "#+BEGIN_EXAMPLE", "#+end_example", "#+begin_quote",
    "#+end_quote", "#+begin_center", "#+end_center", "#+begin_note", "#+end_note",
    "#+begin_verse", "#+end_verse", "\\begin{eq}", "\\end{eq}", "x \\end{eq}", "  #+end_src  ",
    "#+end_srcx", "#+begin_export html", "#+end_export", "#+begin_comment", "#+end_comment",
    "* h", "text", "",
)  # fmt: skip


@pytest.mark.emacs
def test_random_mixes_of_blocks_agree_with_emacs(tmp_path: Path, emacs: str) -> None:
    import random

    chance = random.Random(7)
    texts = {}
    for index in range(300):
        lines = [chance.choice(LINES) for _ in range(chance.randint(3, 14))]
        texts[f"f{index}.org"] = "\n".join(lines) + "\n"
        (tmp_path / f"f{index}.org").write_text(texts[f"f{index}.org"])
    expected = _emacs_spans(emacs, tmp_path, list(texts))
    for name, text in texts.items():
        ours = sorted((b.begin, b.end) for b in parsed_block_spans(text, latex=True))
        assert ours == expected.get(name, []), (name, text)


def test_blocks_as_org_parses() -> None:
    text = TRICKY["nested.org"]
    blocks = parsed_block_spans(text)
    assert [(b.name, b.lesser) for b in blocks] == [
        ("quote", False), ("src", True), ("center", False), ("note", False), ("example", True)
    ]
    src = blocks[1]
    assert text[src.begin : src.contents] == "#+begin_src sh\n"
    assert text[src.contents : src.close] == "echo\n"
    assert text[src.close : src.end] == "#+end_src\n"
    # A headline ends every block; a result body's headlines will be escaped, so not there.
    assert parsed_block_spans("#+begin_src\n* h\n#+end_src") == []
    assert parsed_block_spans("#+begin_src\n* h\n#+end_src", body=True) == [
        Block("src", 0, 12, 16, 25)
    ]
    # A CRLF file's CR is part of its line ends; LaTeX only when asked for.
    assert [b.end for b in parsed_block_spans("#+begin_src\r\n#+end_src \r\nx")] == [25]
    assert parsed_block_spans("\\begin{x}\n\\end{x}\n") == []
    assert parsed_block_spans("\\begin{x}\n\\end{x}\n", latex=True)[0].lesser


PROOF_PIECES = (
    *PIECES, b"#+begin_comment", b"#+END_COMMENT", b"#+begin_export html", b"#+end_export"
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PROOF_PIECES), max_size=40), st.sampled_from([8, 24, 1 << 16]))
def test_a_position_proved_outside_is_outside_and_the_walk_from_it_agrees(
    pieces: list[bytes], window: int
) -> None:
    data = b"".join(pieces)
    found = spans(data)
    starts = [0, *(i + 1 for i, byte in enumerate(data) if byte == 0x0A)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blockspans, "PROOF_WINDOW", window)  # the window's edge, often
        for at in starts:
            if blockspans.outside_written_blocks(data, at):
                assert not any(begin < at < end for begin, end in found), (at, data)
                assert list(written_block_spans(data, at)) == [s for s in found if s[0] >= at]


def test_a_request_after_many_closed_blocks_is_proved_outside() -> None:
    block = b"* x\n#+begin_src sh\necho\n#+end_src\n  #+BEGIN_EXAMPLE\nx\n  #+end_example\n"
    data = block * 5000 + b"* @agent go\n"
    assert blockspans.outside_written_blocks(data, len(data) - 12)
    opened = data + b"#+begin_src\n* @agent x\n"
    assert not blockspans.outside_written_blocks(opened, len(data) + 12)
    # A begin line of a kind the window does not show, before it: not proved (the walk
    # decides; this verse is never closed, so it is no block).
    verse = b"#+begin_verse\n" + data
    assert not blockspans.outside_written_blocks(verse, len(verse) - 12)
