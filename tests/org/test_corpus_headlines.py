"""Conformance: ``orgrouter parse --headlines`` equals Emacs 28.2 / Org 9.5.5 on the corpus."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest


def _by_file(lines: list[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        grouped[json.loads(line)["file"]].append(line)
    return grouped


@pytest.mark.slow
def test_every_corpus_file_matches_emacs(corpus_dir: Path, shared_dir: Path) -> None:
    # File names relative to the corpus, in the order the expected file was built in
    # (sorted), so the whole output must equal the expected file byte for byte.
    files = sorted(p.relative_to(corpus_dir).as_posix() for p in corpus_dir.rglob("*.org"))
    assert len(files) == 1365
    result = subprocess.run(
        [sys.executable, "-m", "orgrouter", "parse", "--headlines", *files],
        cwd=corpus_dir,
        capture_output=True,
        check=False,
    )
    assert result.stderr == b""
    assert result.returncode == 0
    expected = (shared_dir / "oracle" / "expected" / "headlines.jsonl").read_bytes()
    if result.stdout == expected:
        return
    ours = _by_file(result.stdout.decode("utf-8").splitlines())
    emacs = _by_file(expected.decode("utf-8").splitlines())
    differing = [name for name in files if ours.get(name) != emacs.get(name)]
    first = differing[0] if differing else None
    detail = (
        f"first: {first}\n  ours: {ours.get(first, [])[:3]}\n emacs: {emacs.get(first, [])[:3]}"
        if first
        else "same records, different bytes"
    )
    pytest.fail(
        f"{len(files) - len(differing)}/{len(files)} files equal; {len(differing)} differ\n"
        + detail
    )
