"""The compiled routing tables, cached by content hash under the state directory.

Parsing and validating the six TOML tables costs every route about 8 ms (``--stdin``
from Emacs pays it on each call). The result is plain data apart from its regular
expressions and personas, so it is kept as a ``marshal`` file named by a hash of
everything it was built from: each table's source and text and this code. A table
edited, a ``rules.dir`` added or an upgrade of orgrouter gives another name, so a
stale entry is never read. An entry starts with a checksum of its name and data, checked
before ``marshal`` (which trusts its input) sees a byte: an entry corrupted, truncated
or moved from another name is rebuilt, as is an unreadable one (``diskcache``); a
cache that cannot be written is only slower.
"""

from __future__ import annotations

import contextlib
import marshal
import re
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.diskcache import keep, read_sealed, write_sealed
from orgrouter.io.text import sha256
from orgrouter.route.rules import Persona, Rules, build_rules, read_tables, rules_path

if TYPE_CHECKING:
    from orgrouter.route.rules import _Table

_PATTERN, _PERSONA = "\0re", "\0persona"  # markers no table word can be
_CODE = (Path(__file__).with_name("rules.py"), Path(__file__))
KEEP = 8  # entries kept: a few rules dirs (and the package's tables) in use at once
MAX_ENTRY = 1 << 24  # bytes read of an entry (the package's tables make 40 KB)


def configured_rules(
    rules_dir: str | None,
    directory: Path,
    *,
    base: Path | None = None,
    targets: Collection[str] | None = None,
) -> Rules:
    """Return the rules for a ``[rules] dir`` setting, cached in ``directory``."""
    return cached_rules(read_tables(rules_path(rules_dir, base=base)), directory, targets)


def cached_rules(
    tables: Mapping[str, _Table], directory: Path, targets: Collection[str] | None = None
) -> Rules:
    """Return the ``Rules`` of ``tables`` (as ``build_rules``), from ``directory`` if built."""
    try:
        path = directory / f"rules-{cache_key(tables, targets)}.marshal"
    except OSError:  # an install without the loader's source: nothing to key an entry by
        return build_rules(tables, targets)
    payload = read_sealed(path, MAX_ENTRY)
    try:
        if payload is not None:
            return _thaw(marshal.loads(payload))
    except (ValueError, EOFError, TypeError, KeyError, re.error):
        pass  # not ours after all: build it again
    rules = build_rules(tables, targets)
    write_sealed(path, marshal.dumps(_freeze(rules._asdict())))
    _prune(directory)
    return rules


def cache_key(tables: Mapping[str, _Table], targets: Collection[str] | None = None) -> str:
    """Return the hash of everything the compiled tables are built from."""
    digest = sha256(sys.version.encode())  # marshal's format follows Python's
    digest.update(repr(None if targets is None else sorted(targets)).encode())
    for code in _CODE:
        digest.update(code.read_bytes())
    for name, table in sorted(tables.items()):
        for part in (name, table.source, table.text):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()[:32]


def _prune(directory: Path) -> None:
    """Remove all but the ``KEEP`` newest entries (each edit of a rules dir adds one)."""
    with contextlib.suppress(OSError):
        entries = sorted(directory.glob("rules-*.marshal"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-KEEP]:
            old.unlink(missing_ok=True)


def _freeze(value: Any) -> Any:
    """Return ``value`` as data ``marshal`` can hold (patterns and personas tagged)."""
    if isinstance(value, re.Pattern):
        return (_PATTERN, value.pattern, value.flags, _starts(value.pattern, value.flags))
    if isinstance(value, Persona):
        return (_PERSONA, *value)
    if isinstance(value, dict):
        return {key: _freeze(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(_freeze(item) for item in value)
    return value


def _thaw(data: Any) -> Rules:
    """Return the ``Rules`` ``_freeze`` turned into data."""
    def thaw(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: thaw(item) for key, item in value.items()}
        if isinstance(value, tuple) and value and value[0] == _PATTERN:
            return _LazyPattern(*value[1:])
        if isinstance(value, tuple) and value and value[0] == _PERSONA:
            return Persona(*value[1:])
        if isinstance(value, tuple):
            return tuple(thaw(item) for item in value)
        return value

    if not isinstance(data, dict):
        raise TypeError("not a cached Rules")
    return Rules(**{key: thaw(item) for key, item in data.items()})


def _starts(pattern: str, flags: int) -> tuple[str, ...]:
    """Return ASCII lower-case texts one of which starts every match (none: unknown)."""
    from re import _parser  # only when an entry is built

    def heads(items: Any) -> tuple[set[str], bool]:  # (texts so far, whole sequence read)
        texts = {""}
        for op, arg in items:
            name, sub, whole = str(op), None, True
            if name == "LITERAL" and chr(arg).isascii():
                sub = {chr(arg).lower()}
            elif name == "IN" and all(str(o) == "LITERAL" and chr(a).isascii() for o, a in arg):
                sub = {chr(a).lower() for _, a in arg}
            elif name == "SUBPATTERN":
                sub, whole = heads(arg[3])
            elif name == "BRANCH":
                subs = [heads(branch) for branch in arg[1]]
                sub, whole = set().union(*(t for t, _ in subs)), all(w for _, w in subs)
            elif name == "MAX_REPEAT" and arg[:2] == (0, 1):
                sub, whole = heads(arg[2])
                sub.add("")
            elif name in ("AT", "ASSERT", "ASSERT_NOT"):
                continue  # consumes nothing: the texts are still what a match starts with
            if sub is None or len(texts) * len(sub) > 512:
                return texts, False
            texts = {text + more for text in texts for more in sub}
            if not whole or min(map(len, texts)) >= 12:  # long enough to tell frames apart
                return {text[:12] for text in texts}, False
        return texts, True

    found = heads(_parser.parse(pattern, flags))[0]
    return () if "" in found else tuple(sorted(found))


class _LazyPattern:
    """A table's pattern, compiled when first used: a run needs few of them.

    Compiling all of them was a third of a ``--stdin`` call; the two big phrase
    alternations (greetings, courtesy frames) alone take 5-10 ms. Rules' users call
    its patterns' methods only, which this forwards (``match`` after a look at ``_starts``).
    """

    __slots__ = ("_compiled", "_source", "_starts", "_width")

    def __init__(self, pattern: str, flags: int, starts: tuple[str, ...] = ()) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None
        self._starts, self._width = starts, max(map(len, starts), default=0)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Return ``re.Pattern.match``'s answer, without compiling where none can start."""
        head = text[pos : pos + self._width] if pos >= 0 else "\x80"  # no guard: re reads 0
        # Case-insensitive equality is lower-case equality between ASCII letters only.
        if self._starts and head.isascii() and not head.lower().startswith(self._starts):
            return None
        return self.__getattr__("match")(text, pos)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in self.__slots__:  # copy, pickle: not a pattern's
            raise AttributeError(name)
        if self._compiled is None:
            self._compiled = keep(re.compile(*self._source))  # the tables': worth storing
        return getattr(self._compiled, name)

    def __eq__(self, other: object) -> bool:  # as re.Pattern's: same source, same flags
        if isinstance(other, _LazyPattern):
            return self._source == other._source
        if isinstance(other, re.Pattern):
            return self._source == (other.pattern, other.flags)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._source)
