"""Random notes, tangled by live Emacs and by us: the bytes and modes must agree.

The generator mixes the features that interact (header-args at every level, COMMENT
and ARCHIVE, noweb with prefixes, padline, shebang, link comments, tabs and escapes).
It leaves out what we change on purpose: python's extension under ``emacs -Q`` and
noweb reference cycles (Org 9.5 fails on the whole file; we skip the block).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from orgrouter.babel.run import Tangler
from orgrouter.writemode import WriteMode

LANGS = ("sh", "emacs-lisp", "C", "conf", "lisp")
TARGETS = ("a.out", "b.out", "yes", "no")


def _header(r: random.Random, referable: bool) -> str:
    parts = []
    if r.random() < 0.6:
        parts.append(":tangle " + r.choice(TARGETS))
    if r.random() < 0.2:
        parts.append(":padline " + r.choice(["no", "yes"]))
    if r.random() < 0.2:
        parts.append(":comments " + r.choice(["link", "yes", "no"]))
    if r.random() < 0.2:
        parts.append(":noweb " + r.choice(["yes", "no", "tangle"]))
    if referable and r.random() < 0.15:
        parts.append(":noweb-ref ref1")
    if r.random() < 0.1:
        parts.append(':noweb-sep "' + r.choice(["\\n\\n", " ", "--"]) + '"')
    if r.random() < 0.1:
        parts.append(':shebang "#!/bin/' + r.choice(["sh", "bash"]) + '"')
    return " ".join(parts)


def _body(r: random.Random, refs: bool) -> str:
    words = ["x", "echo hi", ",* star", ",#+kw", "", "(ref:lbl) y"]
    if refs:
        words += ["<<ref1>>", "  <<named1>> tail"]
    lines = [r.choice(["", "  ", "    ", "\t", " \t"]) + r.choice(words)
             for _ in range(r.randint(0, 4))]  # fmt: skip
    if r.random() < 0.3:
        lines = ["", *lines, "", ""]
    return "".join(line + "\n" for line in lines)


def generate(seed: int) -> str:
    """Return a random Org note without noweb reference cycles."""
    r = random.Random(seed)
    out = []
    if r.random() < 0.5:
        out.append("#+PROPERTY: header-args " + _header(r, False) + "\n")
    level = 0
    named = False
    for i in range(r.randint(3, 9)):
        kind = r.random()
        if kind < 0.3:
            level = r.randint(1, level + 1)
            keyword = r.choice(["", "", "TODO ", "COMMENT ", "DONE [#A] "])
            tags = r.choice(["", "", " :ARCHIVE:", " :x:"])
            out.append("*" * level + f" {keyword}Head {i}{tags}\n")
            if r.random() < 0.4:
                key = r.choice(["header-args", "header-args+", "header-args:sh"])
                out.append(f":PROPERTIES:\n:{key}: {_header(r, False)}\n:END:\n")
        elif kind < 0.4:
            out.append(f"Some prose {i}.\n\n")
        else:
            # A block that can be referred to never refers to anything itself.
            referable = not named and r.random() < 0.3
            if referable:
                named = True
                out.append("#+name: named1\n")
            body = _body(r, refs=not referable)
            out.append(f"#+begin_src {r.choice(LANGS)} {_header(r, referable)}\n{body}#+end_src\n")
    return "".join(out)


def _files(directory: Path, skip: str) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(directory).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in directory.rglob("*")
        if p.is_file() and p.name != skip
    }


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("seed", range(1, 21))
def test_random_note_matches_emacs(seed: int, oracle_script: Path, tmp_path: Path) -> None:
    note = tmp_path / f"n{seed}.org"
    note.write_text(generate(seed))
    emacs_out = tmp_path / "emacs"
    emacs_out.mkdir()
    run = subprocess.run([str(oracle_script), "tangle", str(note), str(emacs_out)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "skipped_reason" not in json.loads(run.stdout.splitlines()[-1])
    ours = tmp_path / "ours"
    ours.mkdir()
    (ours / note.name).write_bytes(note.read_bytes())
    report = Tangler([ours], WriteMode.WRITE).run([ours / note.name])
    assert report.blocks_skipped == [] and report.failed == []
    assert _files(ours, note.name) == _files(emacs_out, "")
