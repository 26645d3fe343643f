"""Where orgrouter keeps its state and its user configuration (XDG; no sqlite3 needed to ask)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def _xdg(env: Mapping[str, str], name: str, default: str) -> Path:
    """Return ``$NAME``, else ``~/DEFAULT`` (XDG Base Directory spec)."""
    value = env.get(name, "")
    # The spec says a relative value is invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    return Path(env.get("HOME") or os.path.expanduser("~")) / default


def xdg_state_home(env: Mapping[str, str]) -> Path:
    """Return ``$XDG_STATE_HOME`` or ``~/.local/state``."""
    return _xdg(env, "XDG_STATE_HOME", ".local/state")


def user_config_path(env: Mapping[str, str]) -> Path:
    """Return ``$XDG_CONFIG_HOME/orgrouter/config.toml`` (``~/.config`` by default)."""
    return _xdg(env, "XDG_CONFIG_HOME", ".config") / "orgrouter" / "config.toml"


def state_dir(env: Mapping[str, str]) -> Path:
    """Return orgrouter's directory under the XDG state home."""
    return xdg_state_home(env) / "orgrouter"


def cache_dir(env: Mapping[str, str]) -> Path:
    """Return where orgrouter keeps caches it can rebuild (the compiled routing tables)."""
    return state_dir(env) / "cache"
