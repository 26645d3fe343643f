"""The server's configuration, read again only when a file it comes from changes.

Reading and validating the configuration costs a long-lived server about 10 ms a call;
reading the few small files it comes from again costs microseconds. A call's
configuration is keyed by the files that would be read for it (``--config`` or
``ORGROUTER_CONFIG``, else the user's file and the nearest ``orgrouter.toml``), and
reused while each of them holds the same bytes (and a missing one stays missing).
Modification time, size and inode are not enough: an in-place save of the same size
within one tick of the file system's clock (coarse on many) changes none of them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orgrouter.configload import LoadedConfig

_KEEP = 32  # notes roots one editor session works in, at most, before the oldest go

Stamp = bytes | None


class ConfigCache:
    """Loaded configurations by the files they come from, checked per call."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, ...], tuple[tuple[Stamp, ...], LoadedConfig]] = {}

    def load(
        self,
        start: Path,
        *,
        cli_file: str | None,
        env: Mapping[str, str],
        overrides: Mapping[str, Any] | None,
    ) -> LoadedConfig:
        """Return ``load_config(start, ...)``, from the cache while its files are unchanged."""
        from orgrouter.configload import find_project_file, load_config, user_config_path

        explicit = cli_file if cli_file is not None else env.get("ORGROUTER_CONFIG") or None
        files = (
            [Path(explicit).expanduser()]
            if explicit is not None
            else [user_config_path(env), find_project_file(start)]
        )
        key = tuple("" if f is None else os.fspath(f) for f in files)
        stamps = tuple(_stamp(f) for f in files)
        hit = self._entries.get(key)
        if hit is not None and hit[0] == stamps:
            return hit[1]
        loaded = load_config(start, cli_file=cli_file, env=env, overrides=overrides)
        self._entries.pop(key, None)
        self._entries[key] = (stamps, loaded)
        while len(self._entries) > _KEEP:
            del self._entries[next(iter(self._entries))]
        return loaded


def _stamp(path: Path | None) -> Stamp:
    """Return what tells one version of ``path`` from another (None: not there)."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return hashlib.blake2b(data, digest_size=16).digest()
