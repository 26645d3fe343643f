"""The address rule and the ``#+ORGROUTER_AGENT:`` keyword: one definition, text and bytes.

An address is ``@agent`` or ``@NAME`` (the configured name and sub-agents, or the name
a file gives itself), case-insensitive, not preceded by a word character or ``.`` (so
``bob@agent.org`` is none), not followed by a word character. :func:`address_re` reads
titles exactly; :func:`address_bytes_re` and :func:`address_offsets` find, without
decoding, where one may start: a superset, since on bytes a UTF-8 byte is never ``\\w``
and ``re.IGNORECASE`` folds ASCII only (so names are spelt in every case).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from orgrouter.org.scan import BOM

DEFAULT_ADDRESS = "agent"
_BEFORE = r"(?<![\w.])"
# An address to anyone: a request to some agent, whoever it is.
ANY_ADDRESS_RE = re.compile(_BEFORE + r"@\w")
# Where a per-file agent keyword may be (the literal first: most files have none), and
# the keyword line itself, read without a parse.
FILE_AGENT_LITERAL_RE = re.compile(rb"#\+ORGROUTER_AGENT:", re.IGNORECASE)
_FILE_AGENT_RE = re.compile(
    rb"^[ \t]*#\+ORGROUTER_AGENT:[ \t]*(.*?)[ \t\r]*$", re.MULTILINE | re.IGNORECASE
)


def address_names(name: str | None, others: Iterable[str]) -> tuple[str, ...]:
    """Return the names the agent answers to, lower-case without ``@``, ``agent`` first."""
    names = [DEFAULT_ADDRESS]
    for candidate in (name or "", *others):
        candidate = candidate.strip().lstrip("@").lower()
        if candidate and candidate not in names:
            names.append(candidate)
    return tuple(names)


def caseless_bytes(name: str) -> bytes:
    """Return a bytes regex matching ``name`` in any letter case, UTF-8 encoded.

    ``re.IGNORECASE`` on bytes folds ASCII only; an agent named ``Ärger`` must match
    ``@ärger`` too, so every non-ASCII character becomes an alternation of its cases.
    """
    parts: list[bytes] = []
    for char in name:
        variants = sorted({char, char.lower(), char.upper()} - {""})
        encoded = [re.escape(v.encode("utf-8")) for v in variants if len(v) == 1]
        if len(encoded) == 1 or char.isascii():
            parts.append(re.escape(char.encode("utf-8")))
        else:
            parts.append(b"(?:" + b"|".join(encoded) + b")")
    return b"".join(parts)


def _longest_first(names: Iterable[str]) -> list[str]:
    return sorted(names, key=len, reverse=True)


@lru_cache(maxsize=64)
def address_re(names: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern of an address to one of ``names``; group 1 is the name."""
    alternatives = "|".join(re.escape(n) for n in _longest_first(names))
    return re.compile(rf"{_BEFORE}@({alternatives})(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=64)
def address_bytes_re(names: tuple[str, ...]) -> re.Pattern[bytes]:
    """Return the bytes pattern of an address; :func:`follows_word` is its left boundary.

    It starts with the literal ``@`` (no look-behind) so the regex engine can skip
    ahead to each ``@`` instead of trying every byte of a large file.
    """
    alternatives = b"|".join(caseless_bytes(n) for n in _longest_first(names))
    return re.compile(rb"@(?:" + alternatives + rb")(?!\w)", re.IGNORECASE)


def follows_word(data: bytes, at: int) -> bool:
    """Return whether the byte before ``at`` is an ASCII word character or ``.``."""
    before = data[at - 1 : at]
    return bool(before) and (before.isalnum() or before in b"_.")


def address_offsets(data: bytes, names: Iterable[str]) -> list[int]:
    """Return where an address may start in ``data`` (a superset, on any line)."""
    pattern = address_bytes_re(tuple(names))
    return [m.start() for m in pattern.finditer(data) if not follows_word(data, m.start())]


# A route's one pass over a note's keyword lines: ``#+ORGROUTER_AGENT:`` (group 1), or a
# setting a route must read the note's settings for (TODO keywords, tags, a setup file,
# a STARTUP that may say odd: results' levels follow it). The literal "#+" first, so the
# engine jumps from "#" to "#" (two such passes were 57 M instructions on 5 MB).
_KEYWORD_RE = re.compile(
    rb"#\+(?:(ORGROUTER_AGENT):|(?:TODO|SEQ_TODO|TYP_TODO|FILETAGS|SETUPFILE):|STARTUP:[^\n]*odd)",
    re.IGNORECASE,
)


def keyword_lines(data: bytes) -> tuple[list[tuple[int, bytes]], bool]:
    """Return :func:`file_agent_lines`' answer and whether a line starts with a setting."""
    agents: list[tuple[int, bytes]] = []
    setting = False
    for match in _KEYWORD_RE.finditer(data):
        line_start = data.rfind(b"\n", 0, match.start()) + 1
        before = data[line_start : match.start()]
        if match.group(1) is None:
            # Emacs drops a BOM, so a first line after one counts (a #+FILETAGS there too).
            setting = setting or not before.removeprefix(BOM).strip(b" \t")
        elif not before.strip(b" \t") and (line := _FILE_AGENT_RE.match(data, line_start)):
            agents.append((line_start, line.group(1)))
    return agents, setting


def file_agent_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (offset, value) of each ``#+ORGROUTER_AGENT:`` line, value trimmed."""
    if FILE_AGENT_LITERAL_RE.search(data) is None:  # a plain search skips most files fast
        return
    for match in _FILE_AGENT_RE.finditer(data):
        yield match.start(), match.group(1)
