"""Edits on every real file of the shared corpus: stable, and read back the same by Emacs."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_drawer_emacs import _ours, _run_emacs  # the sibling module's Emacs harness
from test_edit_properties import moved

from orgrouter.io.text import detect_newline
from orgrouter.org.drawer import locate_head
from orgrouter.org.edit import (
    AddTag,
    AppendChild,
    Edit,
    SetProperty,
    Shift,
    apply_splices,
    plan_edits,
)
from orgrouter.org.scan import iter_headline_lines

NASTY_BODY = "* not a headline\n#+TODO: HIJACK\n#+begin_src sh\nrm -rf /\n#+end_src\n:END:\n"


def _edits(data: bytes) -> list[Edit]:
    heads = list(iter_headline_lines(data))
    edits: list[Edit] = []
    for head in heads[:: max(1, len(heads) // 5)][:5]:
        edits += [
            SetProperty(head.begin, "ORGROUTER_STATUS", "done"),
            AddTag(head.begin, "agent"),
            AppendChild(
                head.begin, "Result", ("ORGROUTER_RESULT", str(head.begin)), body=NASTY_BODY
            ),
        ]
    return edits


@pytest.mark.slow
def test_edits_on_the_whole_corpus(corpus_dir: Path, tmp_path: Path, emacs: str) -> None:
    names = sorted(str(p.relative_to(corpus_dir)) for p in corpus_dir.rglob("*.org") if p.is_file())
    edited: list[str] = []
    for name in names:
        data = (corpus_dir / name).read_bytes()
        newline = detect_newline(data)
        edits = _edits(data)
        if not edits:
            continue
        splices = plan_edits(data, edits, newline=newline)
        out = apply_splices(data, splices)
        heads = list(iter_headline_lines(out))
        assert len(heads) == len(list(iter_headline_lines(data))) + len(edits) // 3, name
        assert plan_edits(out, moved(edits, splices), newline=newline) == [], name
        for edit in edits:
            if isinstance(edit, SetProperty):
                begin = Shift(splices)(edit.headline)
                head = locate_head(out, next(h for h in heads if h.begin == begin), newline=newline)
                assert head.drawer is not None and head.drawer.get(edit.key) is not None, name
        if newline == b"\n":
            target = tmp_path / "out" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(out)
            edited.append(name)
    assert len(edited) > 800
    # Emacs finds every planning line, drawer and property where we do in the results.
    records = _run_emacs(emacs, edited, tmp_path / "out", tmp_path)
    assert len(records) == len(edited)
    mismatched = [
        r["file"]
        for r in records
        if _ours((tmp_path / "out" / r["file"]).read_bytes()) != r["heads"]
    ]
    assert mismatched == []
