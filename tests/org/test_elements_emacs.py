"""Element spans agree with Emacs's own org-element (type, begin, end, contents)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from orgrouter.org.document import Document

DATA = Path(__file__).resolve().parent.parent / "data" / "org"
DUMPER = DATA / "emacs" / "elements.el"

Span = list[object]


def _ours(path: Path) -> list[Span]:
    # The dumper reads files as utf-8-unix, so a CR stays part of the line here too.
    document = Document(path.read_bytes(), path, newline=b"\n")
    return [
        [
            node.type,
            node.begin,
            node.end,
            node.properties.get("contents-begin"),
            node.properties.get("contents-end"),
        ]
        for node in document.ast().walk()
        if node.type != "org-data"
    ]


def _emacs(emacs: str, directory: Path, names: list[str]) -> dict[str, list[Span]]:
    result = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(DUMPER), *names],
        cwd=directory,
        capture_output=True,
        check=True,
    )
    records = (json.loads(line) for line in result.stdout.decode("utf-8").splitlines())
    return {record["file"]: [list(span) for span in record["elements"]] for record in records}


def _differences(directory: Path, names: list[str], emacs: str) -> list[str]:
    expected = _emacs(emacs, directory, names)
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
