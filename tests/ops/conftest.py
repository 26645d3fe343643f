"""Fixtures the ops tests share."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate XDG dirs and ORGROUTER_* from the developer's own setup."""
    for name in list(os.environ):
        if name.startswith("ORGROUTER_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    notes = tmp_path / "notes"
    notes.mkdir()
    return notes
