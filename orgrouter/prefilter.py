"""Decide from a file's bytes, without parsing it, whether it can hold work for a run.

A file can hold work when one of its headline lines (``^\\*+ ``, exactly Org's
headline lines, see ``orgrouter.org.scan``) contains an address (``@agent`` or
``@NAME`` for the configured name and sub-agents, case-insensitive, not preceded by a
word character or ``.``, not followed by a word character), or when a headline's TODO
keyword is the approve or reject keyword (a user answering an approval), or when a
``WAITING`` headline sits in a file that carries ``ORGROUTER_`` properties (an
approval orgrouter asked for, whose request address may since have been edited away).

The predicate may say yes to a file that holds nothing (the parser decides); it must
never say no to a file that holds work. So the byte patterns over-approximate the
Unicode rules: a non-ASCII letter before or after an address counts as a boundary.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from orgrouter.address import (
    FILE_AGENT_LITERAL_RE,
    address_bytes_re,
    address_names,
    file_agent_lines,
    follows_word,
)
from orgrouter.config import Config

WAITING_KEYWORD = "WAITING"
ORGROUTER_PROPERTY = b":ORGROUTER_"
# Emacs reads a UTF-8 BOM as a coding marker, not text: a file's first line is still a
# headline after it. (Only the first line can start with one.)
_BOM = rb"(?:\xef\xbb\xbf)"


_HEADLINE_START = re.compile(_BOM + rb"?\*+ ")


def _on_headline(data: bytes, address: re.Pattern[bytes]) -> bool:
    """Return whether an address starts on a headline line of ``data``.

    The regex leaps from ``@`` to ``@`` itself (its literal start); only where an
    address follows is its line looked at. Most notes' ``@`` (``:@home:`` tags, mail
    addresses) cost nothing in Python.
    """
    search = address.search
    found = search(data)
    while found is not None:
        at = found.start()
        if not follows_word(data, at) and _HEADLINE_START.match(data, data.rfind(b"\n", 0, at) + 1):
            return True
        found = search(data, at + 1)
    return False


def _keyword_re(keywords: Iterable[str]) -> re.Pattern[bytes]:
    """Compile a regex for headlines whose TODO keyword is one of ``keywords``."""
    alternatives = b"|".join(re.escape(k.encode("utf-8")) for k in keywords)
    # Org's TODO keyword is followed by a space or the end of the line.
    return re.compile(
        rb"^" + _BOM + rb"?\*+ +(?:" + alternatives + rb")(?![^ \t\r\n])", re.MULTILINE
    )


class Prefilter:
    """The byte predicate for one configuration: addresses and answer keywords."""

    __slots__ = (
        "_address",
        "_answer",
        "_answer_literals",
        "_waiting",
        "addresses",
        "answer_keywords",
    )

    def __init__(self, addresses: tuple[str, ...], answer_keywords: tuple[str, ...]) -> None:
        self.addresses = addresses  # lower-cased, ``agent`` first
        self.answer_keywords = answer_keywords  # the approve and reject TODO keywords
        self._address = address_bytes_re(addresses)
        self._answer = _keyword_re(answer_keywords) if answer_keywords else None
        self._answer_literals = tuple(k.encode("utf-8") for k in answer_keywords)
        self._waiting = _keyword_re([WAITING_KEYWORD])

    def matches(self, data: bytes) -> bool:
        """Return whether ``data`` may hold a request or an answered approval."""
        if b"\n" not in data and b"\r" in data:
            # CR-only: Emacs visits it with mac EOL, so a request there is on a line of
            # its own; find it (routing then refuses the file by name, never misses it).
            data = data.replace(b"\r", b"\n")
        if _on_headline(data, self._address) or self._file_agent_matches(data):
            return True
        # The cheap substring tests reject most notes before any regex runs.
        if (
            self._answer is not None
            and any(map(data.__contains__, self._answer_literals))  # no generator frame
            and self._answer.search(data)
        ):
            return True
        return ORGROUTER_PROPERTY in data and self._waiting.search(data) is not None

    def _file_agent_matches(self, data: bytes) -> bool:
        """Match addresses to the names a file gives itself with ``#+ORGROUTER_AGENT:``."""
        if FILE_AGENT_LITERAL_RE.search(data) is None:  # most notes: no generator made
            return False
        # Any first word may be a name (configload says which is valid, and fails the
        # file otherwise): a superset of the names the file gives itself.
        words = [value.split(maxsplit=1)[0] for _, value in file_agent_lines(data) if value]
        if not words:  # most notes name no agent of their own (a literal search says so)
            return False
        names = address_names(None, (w.decode("utf-8", "replace") for w in words))[1:]
        names = tuple(n for n in names if n not in self.addresses)
        return bool(names) and _on_headline(data, address_bytes_re(names))

    @property
    def signature(self) -> str:
        """Return a short digest of what the predicate matches (the scan cache key)."""
        text = "\0".join(self.addresses) + "\1" + "\0".join(self.answer_keywords)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def make_prefilter(addresses: Iterable[str], answer_keywords: Iterable[str]) -> Prefilter:
    """Build a prefilter for ``@agent`` plus ``addresses`` and the answer keywords."""
    keywords = tuple(dict.fromkeys(k for k in answer_keywords if k))
    return Prefilter(address_names(None, addresses), keywords)


def prefilter_for(config: Config, *, extra_names: Iterable[str] = ()) -> Prefilter:
    """Build the prefilter for a configuration (agent name, sub-agents, keywords)."""
    agent = config.agent
    names = [*([agent.name] if agent.name else []), *agent.sub_agents, *config.agents]
    return make_prefilter([*names, *extra_names], [agent.approve_keyword, agent.reject_keyword])
