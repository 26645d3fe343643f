"""Live conformance: tricky files through Emacs's own parser and through ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TRICKY = Path(__file__).resolve().parent.parent / "data" / "org" / "tricky"


def _headlines(directory: Path, names: list[str], command: list[str]) -> bytes:
    result = subprocess.run(
        [*command, "headlines", *names] if command[-1].endswith("oracle") else
        [*command, "parse", "--headlines", *names],
        cwd=directory, capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return result.stdout


def _compare(directory: Path, names: list[str], oracle_script: Path) -> None:
    emacs = _headlines(directory, names, [sys.executable, str(oracle_script)])
    ours = _headlines(directory, names, [sys.executable, "-m", "orgrouter"])
    assert ours.decode("utf-8").splitlines() == emacs.decode("utf-8").splitlines()


@pytest.mark.emacs
def test_tricky_files_match_emacs(oracle_script: Path) -> None:
    names = sorted(p.name for p in TRICKY.glob("*.org"))
    assert len(names) >= 13
    _compare(TRICKY, names, oracle_script)


@pytest.mark.emacs
def test_generated_extremes_match_emacs(oracle_script: Path, tmp_path: Path) -> None:
    deep = "".join("*" * level + f" level {level} :l{level}:\n" for level in range(1, 501))
    (tmp_path / "deep.org").write_text(deep + "* back to the top\n", encoding="utf-8")
    (tmp_path / "long.org").write_text(
        "* " + "word " * 200_000 + ":t:\n* TODO next\n", encoding="utf-8"
    )
    _compare(tmp_path, ["deep.org", "long.org"], oracle_script)
