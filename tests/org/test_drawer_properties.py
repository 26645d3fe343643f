"""A CRLF file, read as Emacs visits it, has the same planning lines and drawers as LF."""

from __future__ import annotations

from hypothesis import given, settings
from test_edit_properties import Doc, documents

from orgrouter.org.drawer import Head, locate_head
from orgrouter.org.scan import iter_headline_lines


def _shape(data: bytes, head: Head) -> tuple[object, ...]:
    """Describe a head by line numbers and values, which do not depend on the newline."""

    def line_of(offset: int) -> int:
        return data.count(b"\n", 0, offset) + 1

    drawer, planning = head.drawer, head.planning
    return (
        planning and (planning.line, [(e.keyword, e.timestamp) for e in planning.entries]),
        drawer and (drawer.line, line_of(drawer.end_line_begin), drawer.indent),
        drawer and [(p.key, p.value, p.line) for p in drawer.properties],
        line_of(head.body_begin),
    )


@settings(max_examples=300, deadline=None)
@given(documents())
def test_crlf_mode_sees_what_lf_mode_sees(doc: Doc) -> None:
    lf = doc.data.replace(b"\r\n", b"\n")
    crlf = lf.replace(b"\n", b"\r\n")
    lf_heads = [locate_head(lf, h) for h in iter_headline_lines(lf)]
    crlf_heads = [locate_head(crlf, h, newline=b"\r\n") for h in iter_headline_lines(crlf)]
    assert [_shape(lf, h) for h in lf_heads] == [_shape(crlf, h) for h in crlf_heads]
    assert sum(h.drawer is not None for h in lf_heads) == sum(
        h.drawer is not None for h in crlf_heads
    )
