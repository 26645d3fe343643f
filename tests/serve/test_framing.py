"""The LSP base framing: what jsonrpc.el writes, read back; bad headers do not wedge it."""

from __future__ import annotations

import io

import pytest

from orgrouter.serve.framing import FramingError, read_message, write_message


def test_round_trip_and_end_of_stream() -> None:
    out = io.BytesIO()
    write_message(out, "{\"a\":\"café\"}".encode())
    write_message(out, b"{}")
    assert out.getvalue().startswith(b"Content-Length: 13\r\n\r\n{")
    stream = io.BytesIO(out.getvalue())
    assert read_message(stream) == "{\"a\":\"café\"}".encode()
    assert read_message(stream) == b"{}"
    assert read_message(stream) is None


def test_other_headers_are_ignored() -> None:
    data = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}"
    assert read_message(io.BytesIO(data)) == b"{}"


@pytest.mark.parametrize(
    ("headers", "problem"),
    [
        (b"Content-Length: x\r\n\r\n", "not a number"),
        (b"Content-Type: a\r\n\r\n", "no Content-Length"),
        (b"garbage\r\n\r\n", "not a header"),
    ],
)
def test_bad_headers_raise_and_the_next_message_is_read(headers: bytes, problem: str) -> None:
    stream = io.BytesIO(headers + b"Content-Length: 2\r\n\r\n{}")
    with pytest.raises(FramingError, match=problem):
        read_message(stream)
    assert read_message(stream) == b"{}"


def test_stream_ending_inside_a_message_raises() -> None:
    with pytest.raises(FramingError, match="inside a 10-byte message"):
        read_message(io.BytesIO(b"Content-Length: 10\r\n\r\n{}"))
    with pytest.raises(FramingError, match="inside a message's headers"):
        read_message(io.BytesIO(b"Content-Length: 10\r\n"))


def test_an_oversized_message_is_skipped_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("orgrouter.serve.framing.MAX_MESSAGE", 10)
    stream = io.BytesIO(b"Content-Length: 12\r\n\r\n{\"a\":\"xxxx\"}Content-Length: 2\r\n\r\n{}")
    with pytest.raises(FramingError, match="over the 10-byte limit"):
        read_message(stream)
    assert read_message(stream) == b"{}"
