"""Noweb expansion costs what the file's size does: many references, long lines.

The references are found as Org's pattern finds them (checked against the pattern
itself on generated text), in one pass per line; the lookups a reference needs (named
blocks, ``:noweb-ref`` chunks, block counters, headline bodies) are each built once.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from orgrouter.babel import document as babel_document
from orgrouter.babel.document import Document
from orgrouter.babel.noweb import NowebContext, references
from orgrouter.babel.plan import plan_document

# org-babel-expand-noweb-references: the text before the reference, then <<name>>.
ORG_NOWEB = re.compile(r"(.*?)(<<([^ \t\n](?:.*?[^ \t\n])?)>>)")
# The search named blocks are found with (org-babel-find-named-block, 9.5).
ORG_NAMED = (
    r"^[ \t]*#\+name:[ \t]*{}[ \t]*(?:\n[ \t]*#\+\S+:.*)*?"
    r"\n[ \t]*#\+begin_src[ \t]+[^ \f\t\n\r\v]+"
)
GUARD_S = 60


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="<> \tab\n\r", max_size=40))
@example("<<a>>>")  # the name's tail is greedy: "a>", where a first closer gave "a"
@example("x<<<>>>y <<b>>")
def test_references_are_the_ones_orgs_pattern_finds(body: str) -> None:
    expected = [(m.start(1), m.start(2), m.end(2)) for m in ORG_NOWEB.finditer(body)]
    assert list(references(body)) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["#+name: a", "#+NAME:  A  ", "#+name: b", "  #+header: :x 1", "#+begin_src sh",
             "#+begin_src", "#+end_src", "text", "", "#+caption: c", "#+name: a b"]
        ),
        max_size=12,
    ),
    st.sampled_from(["a", "A", "b", "a b", "c"]),
)
def test_named_block_is_the_one_orgs_search_finds(lines: list[str], name: str) -> None:
    text = "\n".join(lines) + "\n"
    doc = Document.from_bytes(Path("n.org"), text.encode())
    found = re.search(ORG_NAMED.format(re.escape(name)), text, re.IGNORECASE | re.MULTILINE)
    expected = None
    if found is not None:
        line = text.rfind("\n", 0, found.end()) + 1
        expected = next((b.post_affiliated for b in doc.blocks if b.post_affiliated == line), None)
    block = NowebContext(doc).named(name)
    assert (block.post_affiliated if block else None) == expected


def literate(chunks: int) -> str:
    """Return a note whose last block tangles ``chunks`` named and ``chunks`` ref'd blocks."""
    parts = ["* chunks\n"]
    for i in range(chunks):
        parts.append(f"** chunk {i}\n#+name: c{i}\n#+begin_src python\nx{i} = {i}\n#+end_src\n")
        parts.append(f"#+begin_src python :noweb-ref r{i}\ny{i} = {i}\n#+end_src\n")
    refs = "".join(f"<<c{i}>>\n  <<r{i}>>\n" for i in range(chunks))
    header = "#+begin_src python :tangle out.py :noweb yes :comments noweb"
    parts.append(f"* main\n{header}\n{refs}#+end_src\n")
    return "".join(parts)


def test_blocks_are_found_once_however_many_references(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each reference's counter (for :comments noweb) walked every block again: the
    # block search ran blocks × references times.
    searches = 0
    pattern = babel_document._BABEL_BLOCK_RE

    class Counting:
        def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
            nonlocal searches
            searches += 1
            return pattern.search(text, pos)

    monkeypatch.setattr(babel_document, "_BABEL_BLOCK_RE", Counting())
    doc = Document.from_bytes(Path("lit.org"), literate(60).encode())
    plan = plan_document(doc)
    assert [target.name for target in plan.targets] == ["out.py"]
    assert b"x59 = 59" in plan.targets[0].content and b"y59 = 59" in plan.targets[0].content
    assert searches <= 2 * 121 + 1  # one pass over the 121 blocks


@pytest.mark.slow
def test_many_references_and_a_line_of_brackets_tangle_within_the_guard(tmp_path: Path) -> None:
    # 3,000 references took minutes (a search of the whole text for each named block,
    # a walk of every headline and block for each); a line of 3,000 "<" alone took
    # longer than that (the reference pattern backtracked cubically).
    note = tmp_path / "lit.org"
    brackets = "<" * 3000
    text = literate(3000).replace("<<c0>>\n", f"<<c0>>\n# {brackets}\n", 1)
    note.write_text(text)
    state = str(tmp_path / "s.db")
    command = [sys.executable, "-m", "orgrouter", "tangle", "--state", state, str(note)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=GUARD_S, cwd=tmp_path
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"tangle did not finish within {GUARD_S} s")
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "out.py").read_text()
    assert "x0 = 0" in out and "y2999 = 2999" in out and f"# {brackets}" in out
    assert out.index("x1 = 1") < out.index("y1 = 1") < out.index("x2 = 2")
