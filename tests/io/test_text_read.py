"""Reading Org files: every bad input is a clear error naming the file and line."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from orgrouter.errors import InputError
from orgrouter.io.text import CRLF, LF, decode_org, detect_newline, read_org_file


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_reads_plain_file(tmp_path: Path) -> None:
    data = "* héllo\nbody\n".encode()
    path = _write(tmp_path / "a.org", data)
    os.chmod(path, 0o640)
    snap = read_org_file(path)
    assert snap.path == str(path)
    assert snap.real_path == str(path.resolve())
    assert snap.data == data
    assert snap.size == len(data)
    assert snap.mtime_ns == path.stat().st_mtime_ns
    assert snap.sha256 == hashlib.sha256(data).hexdigest()
    assert snap.mode == 0o640
    assert (snap.has_bom, snap.newline, snap.text) == (False, LF, "* héllo\nbody\n")


def test_bom_crlf_no_final_newline(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf* a\r\nb"
    snap = read_org_file(_write(tmp_path / "a.org", data))
    assert (snap.has_bom, snap.newline, snap.text) == (True, CRLF, "* a\r\nb")
    assert snap.data == data


def test_empty_file(tmp_path: Path) -> None:
    snap = read_org_file(_write(tmp_path / "e.org", b""))
    assert (snap.data, snap.text, snap.size, snap.newline) == (b"", "", 0, LF)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", LF),
        (b"a\nb\n", LF),
        (b"a\r\nb\r\n", CRLF),
        (b"a\r\nb\n", LF),  # mixed: Emacs keeps the \r and writes LF
        # No LF at all: Emacs visits with mac EOL (undecided-mac, checked with find-file
        # in Emacs 28.2); one LF anywhere makes it unix or dos, whatever the CRs.
        (b"a\rb\r", b"\r"),
        (b"x\r", b"\r"),
        (b"a\rb\r\n", CRLF),
        (b"a\rb\n", LF),
        (b"no newline", LF),
    ],
)
def test_detect_newline(data: bytes, expected: bytes) -> None:
    assert detect_newline(data) == expected


def test_invalid_utf8_names_file_line_and_byte(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.org", b"* ok\n\xc3\xa9t\xe9\n")
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == (
        f"{path}:2:3: invalid UTF-8 at byte 8 (0xe9): Org files must be UTF-8"
    )
    assert (info.value.line, info.value.column) == (2, 3)


def test_invalid_utf8_after_bom_counts_bom_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.org", b"\xef\xbb\xbfab\xff")
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == f"{path}:1:4: invalid UTF-8 at byte 5 (0xff): Org files must be UTF-8"


def test_nul_byte(tmp_path: Path) -> None:
    path = _write(tmp_path / "bin.org", b"* a\n\nxy\0z\n")
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == (
        f"{path}:3:3: NUL byte at byte 7: this looks like a binary file, not an Org note"
    )


def test_over_size_limit_names_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.org", b"x" * 101)
    with pytest.raises(InputError) as info:
        read_org_file(path, max_bytes=100)
    assert str(info.value) == f"{path}: file is 101 bytes, over the limit of 100 bytes"
    assert read_org_file(path, max_bytes=101).size == 101


def test_100_mb_file_is_refused_by_default(tmp_path: Path) -> None:
    path = tmp_path / "huge.org"
    with path.open("wb") as out:
        out.truncate(100 * 1024 * 1024)  # sparse: costs no disk
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == (f"{path}: file is 104857600 bytes, over the limit of 67108864 bytes")


def test_one_megabyte_line_reads(tmp_path: Path) -> None:
    line = "* " + "é" * 500_000 + "\n"
    path = _write(tmp_path / "long.org", line.encode())
    snap = read_org_file(path)
    assert snap.text == line
    assert snap.size == 1_000_003


def test_directory_named_like_a_note(tmp_path: Path) -> None:
    (tmp_path / "x.org").mkdir()
    with pytest.raises(InputError) as info:
        read_org_file(tmp_path / "x.org")
    assert str(info.value) == f"{tmp_path / 'x.org'}: is a directory, not an Org file"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_org_file(tmp_path / "gone.org")
    assert str(info.value) == f"{tmp_path / 'gone.org'}: no such file"


def test_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.org"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as info:
        read_org_file(fifo)
    assert str(info.value) == f"{fifo}: is not a regular file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_unreadable_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "secret.org", b"* a\n")
    path.chmod(0)
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == f"{path}: permission denied: cannot read the file"


def test_unreadable_directory_entry_even_as_root(tmp_path: Path) -> None:
    # As root chmod cannot make a file unreadable; a dangling symlink is the unreadable
    # path that can be tested everywhere.
    link = tmp_path / "dangling.org"
    link.symlink_to(tmp_path / "nowhere.org")
    with pytest.raises(InputError) as info:
        read_org_file(link)
    assert str(info.value) == f"{link}: no such file"


def test_symlink_records_target(tmp_path: Path) -> None:
    target = _write(tmp_path / "real.org", b"* a\n")
    link = tmp_path / "link.org"
    link.symlink_to(target.name)
    snap = read_org_file(link)
    assert snap.path == str(link)
    assert snap.real_path == str(target.resolve())
    assert snap.mode == stat.S_IMODE(target.stat().st_mode)


def test_decode_org_for_stdin() -> None:
    decoded = decode_org(b"\xef\xbb\xbf* a\r\n", "<stdin>")
    assert (decoded.text, decoded.has_bom, decoded.newline) == ("* a\r\n", True, CRLF)
    with pytest.raises(InputError) as info:
        decode_org(b"a\n\x80", "<stdin>")
    assert str(info.value) == "<stdin>:2:1: invalid UTF-8 at byte 2 (0x80): Org files must be UTF-8"


def test_permission_denied_where_root_cannot_be_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, whom chmod 000 does not stop: make open() fail the way it
    # fails for a user without read permission.
    path = _write(tmp_path / "secret.org", b"* a\n")
    real_open = os.open

    def deny(name: str, flags: int, mode: int = 0o777) -> int:
        if name == str(path):
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, flags, mode)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == f"{path}: permission denied: cannot read the file"


def test_read_error_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "bad-disk.org", b"* a\n")

    def fail(fd: int, size: int, offset: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "pread", fail)
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == f"{path}: cannot read: Input/output error"


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_utf16_is_named(tmp_path: Path, bom: bytes) -> None:
    encoding = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
    path = _write(tmp_path / "w.org", bom + "* a\n".encode(encoding))
    with pytest.raises(InputError) as info:
        read_org_file(path)
    assert str(info.value) == (
        f"{path}:1:1: UTF-16 text (byte order mark at byte 0): Org files must be UTF-8"
    )


def test_short_reads_are_read_on_not_taken_for_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A network or FUSE file system may return fewer bytes than asked before the end;
    # such a note is read whole, not refused on every run as "kept changing".
    path = tmp_path / "note.org"
    text = "* Heading\n" + "body line\n" * 2000
    path.write_text(text)
    real = os.pread

    def short(fd: int, size: int, offset: int) -> bytes:
        return real(fd, min(size, 4096), offset)

    monkeypatch.setattr(os, "pread", short)
    assert read_org_file(path).text == text
