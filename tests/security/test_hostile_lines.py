"""A planted note's long lines never stall a run: every line pattern is linear.

``(.*?)[ \\t]*$`` retries the blank run at every character of a lazy group, so a line
of 400,000 alternating tabs and spaces costs some 10^11 steps: one such headline in
any note of the tree held every later ``search`` (and the run lock) for hours.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter

BLANKS = "\t " * 200_000  # 400,000 characters: quadratic is hours, linear is instant


def test_a_headline_of_blanks_in_another_note_does_not_stall_search(tmp_path: Path) -> None:
    (tmp_path / "orgrouter.toml").write_text("")
    (tmp_path / "planted.org").write_text(f"* Kubernetes planted{BLANKS}end\n")
    (tmp_path / "public.org").write_text("* Kubernetes upgrade\n")
    request = tmp_path / "ops.org"
    request.write_text("* Ops\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", "--now", "2026-11-30T09:00:00")
    assert done.returncode == 0, done.stderr
    assert "[[file:public.org::*Kubernetes upgrade][Kubernetes upgrade]]" in request.read_text()


@pytest.mark.parametrize(
    ("module", "name", "line"),
    [
        ("orgrouter.searchindex", "_HEADLINE", "** Title"),
        ("orgrouter.org.syntax", "CALL_RE", "#+CALL: Title"),
        ("orgrouter.org.syntax", "TBLFM_RE", "#+TBLFM: Title"),
        ("orgrouter.skills.archive", "_CATEGORY_KEYWORD", "#+CATEGORY: Title"),
        ("orgrouter.org.blocks", "SRC_BEGIN_RE", "#+begin_src sh -n Title"),
        ("orgrouter.org.syntax", "AFFILIATED_RE", "#+NAME: Title"),
        ("orgrouter.org.syntax", "AFFILIATED_RE", "#+ATTR_HTML: Title"),
    ],
)
def test_line_patterns_take_the_value_without_trailing_blanks_in_linear_time(
    module: str, name: str, line: str
) -> None:
    pattern = getattr(importlib.import_module(module), name)
    blanks = BLANKS[:40_000]  # about 10 s for the quadratic pattern, a millisecond else
    text = f"{line}{blanks}end  \t"
    value = f"Title{blanks}end"
    binary = isinstance(pattern.pattern, bytes)
    started = time.monotonic()
    found = pattern.match(text.encode() if binary else text)
    elapsed = time.monotonic() - started
    assert found is not None
    # The value group (the last): a source block's parameters keep their leading blank.
    got = found.group(found.re.groups)
    assert got.lstrip() == (value.encode() if binary else value)
    assert elapsed < 1.0


def test_thousands_of_differently_named_unclosed_blocks_stay_linear() -> None:
    from orgrouter.org.document import Document
    from orgrouter.org.settings import read_settings

    # Each opener's own closing pattern tried on every closing line was quadratic: 13 s
    # for the settings and 31 s for the elements of these 200 KB; indexed, a fraction.
    pair = "#+begin_a{0}\n#+end_b{0}\n\\begin{{x{0}}}\n\\end{{y{0}}}\n"
    text = "".join(pair.format(i) for i in range(5000))
    started = time.monotonic()
    assert read_settings(text + "#+TODO: A | B\n").todo.keywords == ("A", "B")
    nodes = list(Document(("* h\n" + text).encode(), None).ast().walk())
    elapsed = time.monotonic() - started
    assert {node.type for node in nodes} >= {"paragraph", "headline"}
    assert elapsed < 8.0


def test_a_megabyte_line_full_of_the_word_stays_linear_in_the_text_pass(tmp_path: Path) -> None:
    from orgrouter import searchscan
    from orgrouter.io.text import read_org_text

    # Each occurrence looked back to its line's start: 200,000 of them on one 2.2 MB
    # line took about 10 s (four times that for twice the line); a line looked at once,
    # a tenth of a second.
    note = tmp_path / "planted.org"
    note.write_text("* Kubernetes planted\n" + "kubernetes " * 200_000 + "\n* Other\n")
    started = time.monotonic()
    answer = searchscan.scan_search([note], read_org_text, ["kubernetes"], ("@personal",))
    elapsed = time.monotonic() - started
    assert [hit.title for hit in answer.hits] == ["Kubernetes planted"]
    assert elapsed < 5.0
