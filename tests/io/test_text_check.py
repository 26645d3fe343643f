"""check_org refuses exactly what decode_org refuses, with the same message."""

from __future__ import annotations

import pytest

from orgrouter.errors import InputError
from orgrouter.io.text import check_org, decode_org

CASES = [
    b"",
    b"* plain ascii\n",
    b"* crlf\r\nbody\r\n",
    b"* mixed\r\nbody\n",
    b"\xef\xbb\xbf* bom\n",
    "* caf\u00e9 \u65e5\u672c\n".encode(),
    b"* ok\nline two \xff here\n",
    b"* ok\n\xe6\x97",  # truncated sequence at the end
    b"* ok\n\xc0\xaf\n",  # overlong encoding
    b"* nul\n\x00",
    b"\xff\xfe* utf-16",
    b"\xef\xbb\xbf\xff",
]


@pytest.mark.parametrize("data", CASES)
def test_check_agrees_with_decode(data: bytes) -> None:
    try:
        expected: bytes | str = decode_org(data, "n.org").newline
    except InputError as error:
        expected = str(error)
    try:
        got: bytes | str = check_org(data, "n.org")
    except InputError as error:
        got = str(error)
    assert got == expected


def test_check_names_the_line_of_bad_utf8() -> None:
    with pytest.raises(InputError) as raised:
        check_org(b"* a\nb\n\xffc\n", "n.org")
    assert str(raised.value) == (
        "n.org:3:1: invalid UTF-8 at byte 6 (0xff): Org files must be UTF-8"
    )


def test_check_limits_the_size() -> None:
    with pytest.raises(InputError, match="over the limit of 4 bytes"):
        check_org(b"* abc\n", "n.org", max_bytes=4)
