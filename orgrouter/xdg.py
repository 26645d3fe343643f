"""Where orgrouter keeps its state: the XDG state directory (no sqlite3 needed to ask)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def xdg_state_home(env: Mapping[str, str]) -> Path:
    """Return ``$XDG_STATE_HOME`` or ``~/.local/state`` (XDG Base Directory spec)."""
    value = env.get("XDG_STATE_HOME", "")
    # The spec says a relative value is invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "state"


def state_dir(env: Mapping[str, str]) -> Path:
    """Return orgrouter's directory under the XDG state home."""
    return xdg_state_home(env) / "orgrouter"


def cache_dir(env: Mapping[str, str]) -> Path:
    """Return where orgrouter keeps caches it can rebuild (the compiled routing tables)."""
    return state_dir(env) / "cache"
