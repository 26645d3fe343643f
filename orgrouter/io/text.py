"""Read an Org file's bytes once, check they are a document, and remember how they looked.

A :class:`Snapshot` is what every later stage works from: the exact bytes (edits are
spliced into them), and the size, mtime and hash the transaction re-checks before it
replaces the file. Decoding is strict: Org files are UTF-8 (a BOM is allowed and kept),
and a NUL byte means the file is binary, not a note.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha256 as sha256
else:  # hashlib loads OpenSSL (2% of a --stdin run) to hash a few KB; random.py does the same
    try:
        from _sha256 import sha256 as sha256
    except ImportError:  # a Python built without it
        from hashlib import sha256 as sha256

from orgrouter.errors import ConflictError, InputError
from orgrouter.records import NamedTuple

BOM = b"\xef\xbb\xbf"
LF = b"\n"
CRLF = b"\r\n"
CR = b"\r"  # classic Mac line ends

# Notes are text a person writes; 64 MiB is far beyond any real note (the largest
# corpus file is a few MB) yet small enough that a mistaken path to a disk image or a
# log fails fast with a clear message instead of eating memory.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

_READ_ATTEMPTS = 3
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC


class Decoded(NamedTuple):
    """The text of an Org document and the byte conventions it was written with."""

    text: str  # without the BOM
    has_bom: bool
    newline: bytes  # b"\n", b"\r\n" or b"\r"


class Snapshot(NamedTuple):
    """One file exactly as it was read, with what the transaction re-checks."""

    path: str  # as given by the caller
    real_path: str  # symlinks followed: the file a write replaces
    data: bytes
    size: int
    mtime_ns: int
    sha256: str  # hex digest of data
    mode: int  # permission bits (stat.S_IMODE)
    has_bom: bool
    newline: bytes  # b"\n", b"\r\n" or b"\r"

    @property
    def text(self) -> str:
        """Return the bytes decoded, without the BOM (checked UTF-8: decoded on each call).

        Not held beside the bytes: the route decodes them itself, and a 60 MB note's
        text kept from the scan to its route was 60 MB of a 200 MB peak.
        """
        return (self.data[len(BOM) :] if self.has_bom else self.data).decode()


def detect_newline(data: bytes) -> bytes:
    """Return the line end Emacs visits ``data`` with: LF, CRLF or (no LF at all) CR."""
    # Emacs decodes a file as DOS when every LF follows a CR (a lone CR is then a
    # visible ^M); with a lone LF it keeps each \r as a ^M and writes LF. With no LF at
    # all and a CR, it visits the file with mac EOL: each CR ends a line. Do the same.
    # The common case, without counting a large file twice. A lone b"\r" is looked
    # for, not CRLF: one byte is a memchr, while a search for b"\r\n" stops at every
    # b"\n" (5 ms on a 5 MB note).
    if b"\r" not in data:
        return LF
    if b"\n" not in data:
        return CR
    crlf = data.count(CRLF)
    if crlf and crlf == data.count(LF):
        return CRLF
    return LF


def refuse_cr_only(newline: bytes, path: str | os.PathLike[str] | None) -> None:
    """Raise InputError for a CR-only target file (a move pastes LF or CRLF lines only)."""
    if newline == CR:
        raise InputError(
            "classic Mac line ends (CR only): orgrouter does not paste into such a file; "
            "convert it to LF (Emacs: C-x RET f undecided-unix RET, then save)",
            path=path,
            line=1,
        )


def _error_at(data: bytes, offset: int, message: str, path: str | os.PathLike[str]) -> InputError:
    """Return the InputError for ``data``'s byte ``offset``, at its line and column."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, line_start) + 1
    # The bytes before the offending byte on its line decoded fine (the decoder stops at
    # the first error), so the column counts characters, as an editor shows it.
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return InputError(message, path=path, line=line, column=column)


def decode_org(
    data: bytes, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Decoded:
    """Decode ``data`` as an Org document, raising InputError naming ``path`` and line."""
    has_bom = _check_bytes(data, path, max_bytes)
    text = _decode_utf8(data, path, has_bom)
    return Decoded(text, has_bom, detect_newline(data))


def check_org(
    data: bytes, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> bytes:
    """Check ``data`` is an Org document as ``decode_org`` does; return its newline.

    For callers that work on the bytes only: ASCII (most notes) is valid UTF-8 without
    decoding it, which on a 5 MB buffer saves building a 5 MB string.
    """
    has_bom = _check_bytes(data, path, max_bytes)
    if not data.isascii():
        _decode_utf8(data, path, has_bom)
    return detect_newline(data)


def _check_bytes(data: bytes, path: str | os.PathLike[str], max_bytes: int) -> bool:
    """Refuse oversized, UTF-16 or binary ``data``; return whether it starts with a BOM."""
    if len(data) > max_bytes:
        raise InputError(
            f"file is {len(data)} bytes, over the limit of {max_bytes} bytes", path=path
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            "UTF-16 text (byte order mark at byte 0): Org files must be UTF-8",
            path=path,
            line=1,
            column=1,
        )
    nul = data.find(b"\0")
    if nul >= 0:
        message = f"NUL byte at byte {nul}: this looks like a binary file, not an Org note"
        raise _error_at(data, nul, message, path)
    return data.startswith(BOM)


def _decode_utf8(data: bytes, path: str | os.PathLike[str], has_bom: bool) -> str:
    """Return ``data`` decoded (without its BOM), or raise InputError at the bad byte."""
    body = data[len(BOM) :] if has_bom else data
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(BOM) if has_bom else 0)
        message = f"invalid UTF-8 at byte {offset} (0x{data[offset]:02x}): Org files must be UTF-8"
        raise _error_at(data, offset, message, path) from None


def read_org_text(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Return the text of the Org file at ``path`` (no BOM), refused as ``read_org_file`` refuses.

    For readers that never write back (search): no symlink resolution, no hash.
    """
    name = os.fspath(path)
    data, _st = read_stable(name, max_bytes=max_bytes)
    return _decode_utf8(data, name, _check_bytes(data, name, max_bytes))  # no newline style


def read_stable(
    path: str | os.PathLike[str], *, opened: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[bytes, os.stat_result]:
    """Return the bytes and stat of the regular file ``path`` (or ``opened``, its target).

    The one way orgrouter reads a note (route, scan, search, tangle): never hangs on a
    FIFO, refuses what is too large, raises ConflictError when the file keeps changing
    and InputError naming ``path`` on any other failure. The bytes are those of one
    state of the file: its size and mtime were the same before and after the read.
    """
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO named like a note must not hang the run.
        fd = os.open(name if opened is None else opened, _OPEN_FLAGS)
    except FileNotFoundError:
        raise InputError("no such file", path=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, not an Org file", path=name) from None
    except PermissionError:
        raise InputError("permission denied: cannot read the file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path=name) from None
    # One function, not two: a cold scan calls it once per note.
    try:
        for _attempt in range(_READ_ATTEMPTS):
            before = os.fstat(fd)
            size = before.st_size
            if not stat.S_ISREG(before.st_mode):
                if stat.S_ISDIR(before.st_mode):
                    raise InputError("is a directory, not an Org file", path=name)
                raise InputError("is not a regular file", path=name)
            if size > max_bytes:
                raise InputError(
                    f"file is {size} bytes, over the limit of {max_bytes} bytes", path=name
                )
            # Reads up to a byte past the size fstat gave, so a file that grew since is
            # caught below; by offset, so a retry needs no seek. A local file's read
            # returns all it asks for but at the end: one call.
            data = os.pread(fd, size + 1, 0)
            while len(data) < size:  # a short read (network and FUSE file systems)
                more = os.pread(fd, size + 1 - len(data), len(data))
                if not more:
                    break
                data += more
            # The second fstat is what makes the read stable: a write during it moved
            # the mtime (or the size), and the bytes may mix two states of the file.
            after = os.fstat(fd)
            if after.st_mtime_ns == before.st_mtime_ns and after.st_size == size == len(data):
                return data, after
    except IsADirectoryError:
        raise InputError("is a directory, not an Org file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=name) from None
    finally:
        os.close(fd)
    raise ConflictError(
        "file kept changing while it was being read; try again",
        reason="kept changing while it was read",
        path=name,
    )


def read_org_file(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> Snapshot:
    """Read and decode the Org file at ``path``, raising InputError naming it on bad input."""
    name = os.fspath(path)
    # Resolve the link once and read what it resolved to, so that real_path names the
    # very file whose bytes the snapshot holds (the transaction replaces that file).
    real = os.path.realpath(name)
    data, st = read_stable(name, opened=real, max_bytes=max_bytes)
    return snapshot_of(name, real, data, st, max_bytes=max_bytes)


def snapshot_of(
    path: str | os.PathLike[str],
    real_path: str,
    data: bytes,
    st: os.stat_result,
    *,
    sha256: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Snapshot:
    """Check ``data``, read from ``path`` with stat ``st``, as ``decode_org`` does: a Snapshot."""
    newline = check_org(data, path, max_bytes=max_bytes)
    return Snapshot(
        path=os.fspath(path),
        real_path=real_path,
        data=data,
        size=len(data),
        mtime_ns=st.st_mtime_ns,
        sha256=_file_digest(data) if sha256 is None else sha256,
        mode=stat.S_IMODE(st.st_mode),
        has_bom=data.startswith(BOM),
        newline=newline,
    )


def as_visited(data: bytes, path: str | os.PathLike[str]) -> tuple[bytes, str]:
    """Return ``data`` as a visiting Emacs's buffer holds it: no BOM, LF line ends.

    Bytes and text both, checked and decoded as ``decode_org`` does (Babel reads notes
    this way: Org tangles the buffer's text, not the file's bytes).
    """
    decoded = decode_org(data, path)
    body = data[len(BOM) :] if decoded.has_bom else data
    if decoded.newline == LF:
        return body, decoded.text
    return body.replace(decoded.newline, LF), decoded.text.replace(decoded.newline.decode(), "\n")


def _file_digest(data: bytes) -> str:
    """Return the sha256 of a whole file's bytes, with OpenSSL's (several times faster) hash."""
    import hashlib

    return hashlib.sha256(data).hexdigest()
