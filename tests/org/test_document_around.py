"""Document.around: a partial outline that answers like the whole one where it indexes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.org.document import Document

LINES = (
    b"* A\n",
    b"** B :t:\n",
    b"*** C @agent do it\n",
    b"**** D\n",
    b"* E @agent\n",
    b"text @agent\n",
    b"*not a headline\n",
    b"- item\n",
    b"\n",
    b"***** F\n",
    b"** G\r\n",
)


def assert_agrees(data: bytes, offsets: list[int]) -> Document:
    """Check every indexed headline against the full outline; return the partial one."""
    full = Document(data, newline=b"\n")
    part = Document.around(data, offsets, newline=b"\n")
    assert part.complete is False
    by_begin = {entry.begin: entry for entry in full.entries}
    for entry in part.entries:
        whole = by_begin[entry.begin]
        assert (entry.end, entry.subtree_end, entry.level, entry.line) == (
            whole.end,
            whole.subtree_end,
            whole.level,
            whole.line,
        )
        parent = None if entry.parent is None else part.entries[entry.parent].begin
        assert parent == (None if whole.parent is None else full.entries[whole.parent].begin)
    if full.entries:
        assert part.entries[0].begin == full.entries[0].begin  # the first headline is there
    for offset in offsets:
        holder = full.find(offset)
        if holder is None or offset >= full.entries[holder].end:
            continue  # not on a headline line
        whole = full.entries[holder]
        index = part.find(offset)
        assert index is not None and part.entries[index].begin == whole.begin
        # The subtree whole, and each ancestor's next headline (where sections end).
        inside = [e.begin for e in full.entries if whole.begin <= e.begin < whole.subtree_end]
        assert inside == [
            e.begin for e in part.entries if whole.begin <= e.begin < whole.subtree_end
        ]
        at: int | None = index
        while at is not None:
            full_at = full.find(part.entries[at].begin)
            assert full_at is not None
            following = full.entries[full_at + 1].begin if full_at + 1 < len(full.entries) else None
            mine = part.entries[at + 1].begin if at + 1 < len(part.entries) else None
            assert mine == following
            assert part.headline(at) == full.headline(full_at)
            at = part.entries[at].parent
    return part


def test_around_one_request_indexes_its_subtree_ancestors_and_boundaries() -> None:
    data = b"intro\n* A\n** B\n*** x\n** C @agent go\n*** C1\n**** C2\n** D\n*** D1\n* E\n"
    part = assert_agrees(data, [data.index(b"@agent")])
    assert [(e.begin, e.line, e.parent) for e in part.entries] == [
        (6, 2, None),  # A: the first headline and C's parent
        (10, 3, 0),  # B: where A's own section ends
        (21, 5, 0),  # C, the request
        (36, 6, 2),  # C1
        (43, 7, 3),  # C2
        (51, 8, 0),  # D: where C's subtree ends
    ]
    assert [e.subtree_end for e in part.entries] == [63, 21, 51, 51, 51, 63]


def test_around_nothing_or_no_headline_line_indexes_only_the_first_headline() -> None:
    data = b"x @agent\n* A\n** B @agent\n"
    assert [e.begin for e in Document.around(data, []).entries] == [9]
    assert [e.begin for e in Document.around(data, [2]).entries] == [9]
    assert Document.around(b"no headlines @agent", [13]).entries == []


def test_around_a_bom_first_line_and_a_file_without_final_newline() -> None:
    data = b"\xef\xbb\xbf* A @agent\n** B\n* C @agent"
    part = assert_agrees(data, [data.index(b"@agent"), data.rindex(b"@agent")])
    assert [(e.begin, e.level) for e in part.entries] == [(3, 1), (14, 2), (19, 1)]


def test_headline_begin_finds_headlines_the_partial_outline_left_out() -> None:
    data = b"* A\n** B\n* C @agent\n"
    part = Document.around(data, [data.index(b"@agent")])
    assert [e.begin for e in part.entries] == [0, 9]
    assert (part.headline_begin(2), part.headline_begin(3), part.headline_begin(9)) == (4, 9, None)
    assert Document.around(b"text\n", []).headline_begin(1) is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), max_size=40),
    st.lists(st.integers(min_value=0, max_value=600), max_size=4),
)
def test_around_agrees_with_the_whole_outline(lines: list[bytes], picks: list[int]) -> None:
    data = b"".join(lines)
    offsets = [pick % len(data) for pick in picks] if data else []
    offsets += [n for n in range(len(data)) if data.startswith(b"@agent", n)]
    assert_agrees(data, offsets)


def test_around_agrees_on_the_corpus(corpus_dir: Path) -> None:
    checked = 0
    for path in sorted(corpus_dir.rglob("*.org"))[::7]:
        data = path.read_bytes()
        offsets = [n for n in range(0, len(data), 997)]
        assert_agrees(data, offsets)
        checked += 1
    assert checked > 100
