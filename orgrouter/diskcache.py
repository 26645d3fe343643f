"""What orgrouter keeps on disk to skip work next run: sealed entries, compiled regexes.

An entry starts with a checksum of its name and data, checked before ``marshal`` (which
trusts its input) sees a byte: an entry corrupted, truncated or moved from another name
reads as absent and is rebuilt; a cache that cannot be written is only slower.

**Compiled regular expressions**, as ``.pyc`` files keep bytecode. ``re`` parses and
assembles each pattern in Python code: the ~100 a ``route --stdin`` compiles were 89 M
of its 568 M instructions. Python keeps what it compiled in ``re``'s own cache, keyed
by pattern and flags; :func:`preload` fills that cache, before the package's modules
compile anything, with the ``_sre`` programs the last run of the same command stored,
and :func:`store` adds what this run compiled anew: only patterns the code itself
holds (an orgrouter module's constant, or one passed to :func:`keep`), never one built from a
note's text (a title, a word searched for). A program is stored only if the
pattern rebuilt from it equals the one ``re`` compiled (a ``Pattern`` compares by its
text, flags and program), and the file is named by the Python it was made with: where
anything does not fit, ``re`` compiles as it always does. ``_sre`` does not check a
program fully (one word off can crash the interpreter), so only a file no other user
can have written is read (:func:`read_sealed`); this user can change orgrouter's code
as well, and is trusted as with it.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's engine (no stub): loaded with re
import contextlib
import marshal
import os
import re
import stat
import sys
from binascii import crc32
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from orgrouter.io.text import sha256

MAX_PATTERNS = 400  # under re's own limit (512), so a preload evicts none of a run's
MAX_REGEX_FILE = 1 << 22  # bytes read (100 patterns make about 60 KB)

Key = tuple[type, Any, int]  # re's: (str or bytes, the pattern, the flags asked)
Program = tuple[Any, ...]  # _sre.compile's arguments, the flags asked second


def seal(path: Path, payload: bytes) -> bytes:
    """Return the checksum an entry at ``path`` holding ``payload`` starts with.

    A CRC: it catches damage and misplacement as a SHA-256 did (neither stops a forger,
    who could write either), at a fiftieth of the cost (sha256 was 9 M instructions of a
    ``route --stdin``, for its two entries).
    """
    return crc32(payload, crc32(path.name.encode() + b"\0")).to_bytes(4, "big")


def read_sealed(path: Path, limit: int) -> bytes | None:
    """Return the payload of the entry at ``path`` (at most ``limit`` bytes), or None.

    Only a regular file of this user's that no one else may write is an entry: a seal
    anyone can forge, and ``marshal`` and ``_sre`` trust what they are given (a program
    one word off crashes the interpreter), so a file another user could have written
    (group or world writable, or theirs) reads as absent, as does a FIFO or a device.
    """
    try:
        # Not blocking: opening a FIFO in an entry's place does not wait for a writer.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not _ours(info):
                return None
            data = handle.read(limit)
    except OSError:
        return None
    return data[4:] if data[:4] == seal(path, data[4:]) else None


def _ours(info: os.stat_result) -> bool:
    """Return whether a file of ``info`` is a regular file only this user can write."""
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def write_sealed(path: Path, payload: bytes) -> None:
    """Write the entry ``payload`` to ``path`` atomically (a temp file beside it), or not.

    The temp file is made anew for this user alone (a link left in its place is not
    followed), so the entry reads as one (:func:`read_sealed`) whatever the umask.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.unlink(missing_ok=True)  # a dead run's, or a link planted there
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with open(os.open(temp, flags, 0o600), "wb") as handle:
            handle.write(seal(path, payload) + payload)
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):  # the directory may be what failed
            temp.unlink(missing_ok=True)


def regex_file(directory: Path, command: str) -> Path:
    """Return the file of ``command``'s compiled patterns under ``directory``."""
    made = sha256(f"{sys.version}\0{_sre.MAGIC}".encode()).hexdigest()[:16]
    return directory / f"regex-{command}-{made}.marshal"


@contextlib.contextmanager
def kept_patterns(path: Path) -> Iterator[None]:
    """Run the body with ``path``'s patterns preloaded; then store what it compiled anew."""
    loaded = preload(path)
    try:
        yield
    finally:
        store(path, loaded)


def preload(path: Path) -> dict[Key, Program]:
    """Put the patterns stored at ``path`` into ``re``'s cache; return their programs."""
    cache = getattr(re, "_cache", None)
    payload = read_sealed(path, MAX_REGEX_FILE) if isinstance(cache, dict) else None
    if cache is None or payload is None:
        return {}
    loaded: dict[Key, Program] = {}
    try:
        for program in marshal.loads(payload):
            pattern, asked, *compiled = program
            key = (type(pattern), pattern, asked)
            if key not in cache:
                cache[key] = _sre.compile(pattern, *compiled)
            loaded[key] = tuple(program)
    except (EOFError, ValueError, TypeError, RuntimeError, OverflowError):
        pass  # not an entry this Python reads: re compiles the rest as ever
    return loaded


_KEPT: list[re.Pattern[Any]] = []  # patterns declared the code's own (keep), kept alive


def keep(compiled: re.Pattern[Any]) -> re.Pattern[Any]:
    """Return ``compiled``, declared a pattern of the code's own (worth storing)."""
    _KEPT.append(compiled)
    return compiled


def store(path: Path, loaded: dict[Key, Program]) -> None:
    """Add to ``path`` the code's own patterns this run compiled that ``loaded`` lacks."""
    cache = getattr(re, "_cache", None)
    fresh = [key for key in list(cache or ()) if key not in loaded]
    if not isinstance(cache, dict) or not fresh or not path.parent.is_dir():
        return  # a directory is made by what a run keeps (the tables), never by this
    own = {id(value) for value in _KEPT} | {
        id(value)
        for name, module in list(sys.modules.items())
        if name.startswith("orgrouter")  # the stdlib's too would cost a look at 200 modules
        for value in list(vars(module).values())
        if isinstance(value, re.Pattern)
    }
    made = (program(key, cache[key]) for key in fresh if id(cache[key]) in own)
    kept = [p for p in made if p is not None]
    with contextlib.suppress(ValueError):  # a program marshal cannot hold: none stored
        if kept:
            write_sealed(path, marshal.dumps((kept + list(loaded.values()))[:MAX_PATTERNS]))


def program(key: Key, compiled: re.Pattern[Any]) -> Program | None:
    """Return ``_sre.compile``'s arguments for ``key``, if they rebuild ``compiled``."""
    from re import _parser

    _compiler: Any = sys.modules["re._compiler"]  # re's own assembler (no stub), loaded by re

    kind, pattern, asked = key
    if kind not in (str, bytes) or not isinstance(asked, int) or asked & re.DEBUG:
        return None
    try:  # as re._compiler.compile does it
        parsed = _parser.parse(pattern, asked)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        code = [int(op) for op in _compiler._code(parsed, asked)]  # ints, not re's named ones
        made = (asked | parsed.state.flags, code)
        arguments = (*made, parsed.state.groups - 1, groupindex, tuple(indexgroup))
        if _sre.compile(pattern, *arguments) != compiled:
            return None
    except (re.error, TypeError, ValueError, RuntimeError, AttributeError, OverflowError):
        return None  # another Python's re: nothing stored, nothing wrong
    return (pattern, asked, *arguments)
