"""Elements agree with Emacs's own org-element: type, spans, main properties, line."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from orgrouter.org.document import Document

DATA = Path(__file__).resolve().parent.parent / "data" / "org"
DUMPER = DATA / "emacs" / "elements.el"

Span = list[object]

# The properties the dumper writes per type (see elements.el), besides post-blank.
PROPERTIES = {
    "headline": ["level", "raw-value", "todo-keyword", "todo-type", "priority", "tags",
                 "commentedp", "archivedp", "pre-blank"],
    "keyword": ["key", "value"],
    "src-block": ["language", "switches", "parameters", "value", "name", "header"],
    "example-block": ["switches", "value"],
    "export-block": ["type", "value"],
    "comment-block": ["value"],
    "special-block": ["type"],
    "item": ["bullet", "checkbox", "counter", "tag", "pre-blank"],
    "plain-list": ["type"],
    "drawer": ["drawer-name"],
    "dynamic-block": ["block-name", "arguments"],
    "table": ["type"],
    "node-property": ["key", "value"],
    "footnote-definition": ["label", "pre-blank"],
    "fixed-width": ["value"],
    "comment": ["value"],
    "planning": ["scheduled", "deadline", "closed"],
    "babel-call": ["value"],
}  # fmt: skip


def _lisp(value: object) -> object:
    """Return ``value`` as the dumper writes Lisp's: false and () are both nil."""
    return None if value is False or value == [] else value


def _ours(path: Path) -> list[Span]:
    # The dumper reads files as utf-8-unix, so a CR stays part of the line here too.
    document = Document(path.read_bytes(), path, newline=b"\n")
    spans: list[Span] = []
    for node in document.ast().walk():
        if node.type == "org-data":
            continue
        got = node.properties
        properties = {"post-blank": got.get("post-blank")}
        properties.update((key, _lisp(got.get(key))) for key in PROPERTIES.get(node.type, []))
        spans.append(
            [node.type, node.begin, node.end, got.get("contents-begin"), got.get("contents-end"),
             properties, node.line]
        )  # fmt: skip
    return spans


def emacs_elements(
    emacs: str, directory: Path, names: list[str], *, visit: bool = False
) -> dict[str, list[Span]]:
    """Return org-element's spans of each file, read as utf-8-unix or ``visit``ed."""
    env = dict(os.environ)
    env.pop("ELEMENTS_VISIT", None)
    if visit:
        env["ELEMENTS_VISIT"] = "1"
    result = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(DUMPER), *names],
        cwd=directory,
        capture_output=True,
        check=True,
        env=env,
    )
    found: dict[str, list[Span]] = {}
    for line in result.stdout.decode("utf-8").split("\n"):
        if not line:
            continue
        record = json.loads(line)
        spans = [list(span) for span in record["elements"]]
        for span in spans:
            properties = span[5]
            assert isinstance(properties, dict)
            if properties.get("header"):
                # org-element keeps #+HEADER values last first; we keep document order.
                properties["header"] = properties["header"][::-1]
        found[record["file"]] = spans
    return found


def _differences(directory: Path, names: list[str], emacs: str) -> list[str]:
    expected = emacs_elements(emacs, directory, names)
    assert sorted(expected) == sorted(names)
    problems = []
    for name in names:
        ours = _ours(directory / name)
        if ours != expected[name]:
            first = next(
                (i for i, (a, b) in enumerate(zip(ours, expected[name], strict=False)) if a != b),
                min(len(ours), len(expected[name])),
            )
            got = ours[first] if first < len(ours) else None
            want = expected[name][first] if first < len(expected[name]) else None
            problems.append(f"{name}: element {first}: ours {got}, emacs {want}")
    return problems


@pytest.mark.emacs
def test_tricky_files_elements_match_emacs(emacs: str) -> None:
    names = sorted(p.name for p in (DATA / "tricky").glob("*.org"))
    assert _differences(DATA / "tricky", names, emacs) == []


@pytest.mark.emacs
@pytest.mark.slow
def test_corpus_elements_match_emacs(emacs: str, corpus_dir: Path) -> None:
    names = sorted(p.relative_to(corpus_dir).as_posix() for p in corpus_dir.rglob("*.org"))
    problems = _differences(corpus_dir, names, emacs)
    assert problems == [], f"{len(names) - len(problems)}/{len(names)} files equal"


# Line fragments for generated documents: every construct, its edge cases (unclosed
# openers, CRs, form feeds, odd bullets), in random order, so element boundaries meet
# each other in combinations nobody would write by hand.
FRAGMENTS = [
    "* H :a:", "** TODO sub", "*** deep", "text line", "", "", "  ", "- item", "  - nested",
    "    more text", "1. one", "2) two", "- [X] box", "- term :: desc", "+ plus",
    "  * star bullet", "   - deeper", "  text at 2", ":PROPERTIES:", ":ID: x", ":END:",
    "  :END:", ":LOGBOOK:", "  :drawer:", "CLOCK: [2024-01-01 Mon 10:00]",
    "SCHEDULED: <2024-01-01 Mon>", "DEADLINE: <2024-01-02 Tue> SCHEDULED: <2024-01-01 Mon>",
    "closed: [2024-01-01]", "#+begin_src python", "#+end_src", "  #+begin_src sh",
    "  #+end_src", "#+BEGIN_QUOTE", "#+END_QUOTE", "#+begin_example", "#+end_example",
    "#+begin_center", "#+end_center", "#+begin_comment", "#+end_comment",
    "#+begin_export html", "#+end_export", "#+begin_foo", "#+end_foo", "#+name: n",
    "#+header: :x 1", "#+caption: c", "#+caption[s]: c", "#+TITLE: t", "#+results:",
    "#+attr_html: :x y", "| a | b |", "|---+---|", "#+TBLFM: $1=1", ": fixed", ":",
    "# comment", "#", "-----", "\\begin{eq}", "\\end{eq}", "[fn:1] note", "[fn:x]",
    "%%(diary)", "#+BEGIN: dyn", "#+END:", "#+CALL: f()", "#+begin_verse", "#+end_verse",
    "+-----+", "| x |", "\t- tab item", "\ttext", "#+begin_src", "*bold*", "\x0c", "text\r",
    "\r", " \r", "#+key[x]: v", "#+foo[x]: v", "10. ten", "a. alpha", "- ", "-", "1.",
    "  + ", "#+begin_src org", ",* escaped", "#+PROPERTY: a b",
]  # fmt: skip


@pytest.mark.emacs
@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 11])
def test_generated_documents_match_emacs(emacs: str, tmp_path: Path, seed: int) -> None:
    chance = random.Random(seed)
    names = []
    for number in range(200):
        lines = [chance.choice(FRAGMENTS) for _ in range(chance.randint(1, 60))]
        name = f"g{number:03d}.org"
        ending = "\n" if chance.random() < 0.8 else ""
        (tmp_path / name).write_bytes(("\n".join(lines) + ending).encode("utf-8"))
        names.append(name)
    assert _differences(tmp_path, names, emacs) == []
