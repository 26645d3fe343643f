"""Edits keep each line's own end in a file whose line ends are mixed."""

from __future__ import annotations

from orgrouter.io.text import detect_newline
from orgrouter.org.edit import AddTag, edit_bytes, plan_edits

MIXED = b"* a\n** b\r\n** c :x:\r\nbody\n"


def test_a_tag_goes_before_a_crlf_headline_s_line_end() -> None:
    assert detect_newline(MIXED) == b"\n"  # mixed: Emacs keeps the \r as text
    out = edit_bytes(MIXED, [AddTag(4, "t"), AddTag(10, "t")], newline=b"\n")
    assert out == b"* a\n** b" + b" " * 70 + b":t:\r\n** c :x:t:\r\nbody\n"
    again = [AddTag(4, "t"), AddTag(out.index(b"** c"), "t")]
    assert plan_edits(out, again, newline=b"\n") == []  # a second run adds nothing


def test_a_tag_on_an_lf_headline_of_a_mixed_file_stays_before_its_lf() -> None:
    data = b"* a\r\n** b\nx\r\n"
    out = edit_bytes(data, [AddTag(5, "t")], newline=b"\n")
    assert out == b"* a\r\n** b" + b" " * 70 + b":t:\nx\r\n"
