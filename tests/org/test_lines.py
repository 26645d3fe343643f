"""Line splitting and offset mapping: only LF ends a line; offsets are UTF-8 bytes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orgrouter.org.lines import Lines

TEXT = st.text(alphabet=st.sampled_from(["a", "é", "日", "🎉", "\n", "\r", "\x0c", "\u2028", " "]))


@given(TEXT, st.data())
def test_offsets_match_a_plain_count(text: str, data: st.DataObject) -> None:
    lines = Lines(text)
    offset = data.draw(st.integers(0, len(text)))
    assert lines.byte(offset) == len(text[:offset].encode("utf-8"))
    if offset < len(text):
        assert lines.line(offset) == text[:offset].count("\n") + 1
    assert lines.contents == (text[:-1] if text.endswith("\n") else text).split("\n") or not text


@given(TEXT)
def test_crlf_lines_drop_the_cr_before_lf_only(text: str) -> None:
    lines = Lines(text, crlf=True)
    pieces = text.split("\n")
    if text.endswith("\n"):
        pieces.pop()
    expected = [p[:-1] if p.endswith("\r") and i < text.count("\n") else p
                for i, p in enumerate(pieces)]  # fmt: skip
    assert lines.contents == ([] if not text else expected)


def test_a_region_keeps_file_offsets_and_lines() -> None:
    text = "é\nab\ncd\n"
    lines = Lines(text, begin=2, end=5, byte_begin=3, first_line=2)
    assert lines.contents == ["ab"]
    assert (lines.byte(2), lines.byte(4), lines.byte(5)) == (3, 5, 6)
    assert (lines.line(2), lines.line(5)) == (2, 3)
    assert (lines.byte_at(0), lines.byte_at(1), lines.index_of_byte(5)) == (3, 6, 0)
