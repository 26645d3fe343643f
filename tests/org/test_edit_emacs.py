"""Emacs reads the golden edit outputs the way we do: our drawers are Org's drawers."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_drawer_emacs import _ours, _run_emacs  # the sibling module's Emacs harness

from orgrouter.io.text import BOM

CASES = Path(__file__).resolve().parent.parent / "data" / "edit"


@pytest.mark.emacs
def test_golden_outputs_agree_with_emacs(emacs: str, tmp_path: Path) -> None:
    # Emacs reads files as utf-8-unix here, so CRLF or BOM files are left to the
    # byte-level golden tests (visited normally, Emacs would decode them as we do).
    names = [
        p.name
        for p in sorted(CASES.glob("*.out.org"))
        if b"\r\n" not in p.read_bytes() and not p.read_bytes().startswith(BOM)
    ]
    assert len(names) >= 8
    records = _run_emacs(emacs, names, CASES, tmp_path)
    results = 0
    for record in records:
        data = (CASES / record["file"]).read_bytes()
        assert _ours(data) == record["heads"], record["file"]
        results += sum(
            any(prop[0] == "ORGROUTER_RESULT" for prop in head["props"] or [])
            for head in record["heads"]
        )
    # Every child appended by the golden cases is a headline with a drawer to Emacs.
    assert results == 8
