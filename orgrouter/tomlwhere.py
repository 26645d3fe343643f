"""Point a TOML error at its line, and name the nearest valid word for a typo.

``tomllib`` keeps no positions, so an error about a configuration file, a routing
table, a golden case or a refinement candidate finds its line by searching the text
for what it is about. Used by ``configload``, ``route/rules``, ``route/golden``,
``refine/candidate`` and the backend factory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def nearest(name: str, options: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """Return the option most like ``name`` (a typo's likely intent), or None."""
    import difflib  # only a typo needs it; every run loads the modules that call this

    close = difflib.get_close_matches(name, list(options), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(
    name: str,
    options: Iterable[str],
    *,
    cutoff: float = 0.6,
    listing: int = 12,
    label: str = "valid",
) -> str:
    """Return ' (did you mean X?)', else ' (LABEL: a, b)' for at most ``listing`` options."""
    options = list(options)
    close = nearest(name, options, cutoff=cutoff)
    if close is not None:
        return f" (did you mean {close!r}?)"
    return f" ({label}: {', '.join(options)})" if options and len(options) <= listing else ""


def line_of(
    text: str | Sequence[str], needle: str, start: int = 0, stop: int | None = None
) -> int | None:
    """Return the 1-based line of the first ``needle`` outside a ``#`` comment line.

    ``text`` may be given as its lines; ``start`` and ``stop`` bound the search (0-based).
    """
    lines = text.splitlines() if isinstance(text, str) else text
    for number in range(start, len(lines) if stop is None else stop):
        line = lines[number]
        if needle in line and not line.lstrip().startswith("#"):
            return number + 1
    return None


def key_line(text: str, table: list[str], key: str | None) -> int | None:
    """Return the 1-based line of ``key`` in ``[table]`` (or of the header) in TOML text."""
    lines = text.splitlines()
    sep = r"\s*\.\s*"
    header = re.compile(r"^\s*\[\s*" + sep.join(map(re.escape, table)) + r"\s*\]\s*(#.*)?$")
    own = re.compile(r"^\s*[\"']?" + re.escape(key or "") + r"[\"']?\s*=")
    below = re.compile(r"^\s*\[\s*" + sep.join(map(re.escape, [*table, key or ""])) + r"\s*[.\]]")
    inside = not table  # keys before the first header belong to the root table
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("["):
            inside = bool(table) and header.match(line) is not None
            if inside and key is None:
                return number
            if key is not None and below.match(line):
                return number  # ``[table.key]`` or ``[table.key.more]``: key names a table
        elif inside and key is not None and own.match(line):
            return number
    # A dotted key at the root: ``neuro.backend = ...`` or ``nuero.x = ...``.
    parts = [*table, key] if key else table
    dotted = re.compile(r"^\s*" + sep.join(map(re.escape, parts)) + r"\s*[=.]")
    for number, line in enumerate(lines, start=1):
        if dotted.match(line):
            return number
    return None
