"""Composing apply_plans' stages into one list of edits, and counting in characters."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from orgrouter.org.edit import Splice, apply_splices
from orgrouter.serve.splices import compose, compose_stages, editor_splices, one_splice, text_edits


@st.composite
def splices_of(draw: st.DrawFn, data: bytes) -> list[Splice]:
    """Draw ordered, non-overlapping splices of ``data`` (insertions may share a point)."""
    points = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    out = []
    i = 0
    while i < len(points):
        begin = points[i]
        end = points[i + 1] if i + 1 < len(points) and draw(st.booleans()) else begin
        i += 2 if end != begin else 1
        out.append(Splice(begin, end, draw(st.binary(max_size=6))))
    return out


@st.composite
def staged(draw: st.DrawFn) -> tuple[bytes, list[list[Splice]]]:
    data = draw(st.binary(max_size=40))
    stages = []
    current = data
    for _ in range(draw(st.integers(1, 3))):
        stage = draw(splices_of(current))
        stages.append(stage)
        current = apply_splices(current, stage)
    return data, stages


@given(staged())
def test_composed_stages_make_what_the_stages_make(case: tuple[bytes, list[list[Splice]]]) -> None:
    data, stages = case
    expected = data
    for stage in stages:
        expected = apply_splices(expected, stage)
    composed = compose_stages(data, stages)
    assert apply_splices(data, composed) == expected
    for left, right in itertools.pairwise(composed):
        assert left.end < right.begin  # ordered, apart: each edit stands alone


def test_a_second_stage_inside_inserted_text_merges_into_it() -> None:
    data = b"* a\n* b\n"
    first = [Splice(4, 4, b"** new\n")]
    second = [Splice(10, 10, b" :tag:")]  # after "** new", before its newline
    assert compose(data, first, second) == [Splice(4, 4, b"** new :tag:\n")]


def test_text_edits_count_characters_not_bytes() -> None:
    data = "é☕\n* x\n".encode()
    edits = text_edits(data, [Splice(len("é☕\n".encode()), len("é☕\n".encode()), "ü\n".encode())])
    assert [(e.begin, e.end, e.text) for e in edits] == [(3, 3, "ü\n")]


@given(st.text(max_size=20), st.text(max_size=20))
def test_one_splice_cuts_at_characters(old: str, new: str) -> None:
    data, routed = old.encode(), new.encode()
    splice = one_splice(data, routed)
    assert apply_splices(data, [splice]) == routed
    assert text_edits(data, [splice])  # decodes: no character was cut


def test_what_the_stages_miss_becomes_one_more_splice() -> None:
    data = "* a ☕\n".encode()
    routed = "* a ☕\n** b\n".encode()
    wrong = [[Splice(0, 0, b"x")]]
    assert apply_splices(data, editor_splices(data, wrong, routed)) == routed
    short = [[Splice(len(data), len(data), b"** b\n")]]
    moved = routed.replace(b"* a", b"* A")  # what a later move changed besides the stages
    assert apply_splices(data, editor_splices(data, short, moved)) == moved
    assert editor_splices(data, [], data) == []
