"""Fixtures shared by every test: the shared corpus and oracle, and Emacs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """Return ``../shared`` beside the project, or skip where it is absent."""
    if not (SHARED / "oracle" / "expected").is_dir():
        pytest.skip("../shared (corpus and Emacs oracle) is not beside this checkout")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    """Return the shared corpus of real Org files."""
    return shared_dir / "corpus"


@pytest.fixture(scope="session")
def oracle_script(shared_dir: Path) -> Path:
    """Return the Emacs oracle script, skipping where Emacs is not installed."""
    if shutil.which("emacs") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox)")
    return shared_dir / "oracle" / "oracle"


@pytest.fixture(scope="session")
def emacs() -> str:
    """Return the path of ``emacs``, skipping where it is not installed."""
    path = shutil.which("emacs")
    if path is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox)")
    return path
