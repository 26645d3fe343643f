"""The outline module: subtree and content ends, ancestors, memoised inheritance, offsets."""

from __future__ import annotations

import random

import pytest

from orgrouter.org.document import Document
from orgrouter.org.lines import Offsets
from orgrouter.org.outline import Inherited, Outline, content_end, subtree_end
from orgrouter.org.scan import HeadlineLine, headline_at, iter_headline_lines
from orgrouter.org.settings import InBufferSettings

TEXT = b"intro\n* A\ntext\n** B\n*** C\n\n\n** D\nd\n\n* E\n"


def test_subtree_ends_agree_with_the_outline_and_the_bytes_search() -> None:
    outline = Outline(TEXT)
    ends = [e.subtree_end for e in outline.entries]
    assert [TEXT[e.begin : end] for e, end in zip(outline.entries, ends, strict=True)] == [
        b"* A\ntext\n** B\n*** C\n\n\n** D\nd\n\n",
        b"** B\n*** C\n\n\n",
        b"*** C\n\n\n",
        b"** D\nd\n\n",
        b"* E\n",
    ]
    assert [subtree_end(TEXT, line) for line in iter_headline_lines(TEXT)] == ends


def test_content_end_stops_after_the_last_non_blank_line() -> None:
    outline = Outline(TEXT)
    assert [TEXT[e.begin : content_end(TEXT, e.begin, e.subtree_end)] for e in outline.entries] == [
        b"* A\ntext\n** B\n*** C\n\n\n** D\nd\n",
        b"** B\n*** C\n",
        b"*** C\n",
        b"** D\nd\n",
        b"* E\n",
    ]
    assert content_end(b"* x", 0, 3) == 3  # no final newline: the end of the data


def test_ancestors_find_and_at() -> None:
    outline = Outline(TEXT)
    assert outline.ancestors(2) == [1, 0]
    assert outline.ancestors(4) == []
    assert [outline.find(o) for o in (0, 6, 9, 15, len(TEXT))] == [None, 0, 0, 1, 4]
    assert outline.at(15).index == 1
    with pytest.raises(ValueError, match="no headline starts at byte 16"):
        outline.at(16)


def test_a_first_headline_after_a_bom_is_in_the_outline() -> None:
    data = b"\xef\xbb\xbf* top\n** child\n"
    outline = Outline(data)
    assert [(e.begin, e.level, e.parent) for e in outline.entries] == [(3, 1, None), (9, 2, 0)]
    assert headline_at(data, 0) == HeadlineLine(3, 9, 1, 0)


def test_inherited_folds_each_headline_once_and_only_when_asked() -> None:
    outline = Outline(b"".join(b"*" * n + b" h\n" for n in range(1, 201)))
    folded: list[int] = []

    def step(depth: int, index: int) -> int:
        folded.append(index)
        return depth + 1

    depth = Inherited(outline, lambda: 0, step)
    assert depth(9) == 10
    assert folded == list(range(10))
    assert depth(199) == 200 and depth(150) == 151
    assert sorted(folded) == list(range(200))  # none folded twice


def test_commented_ancestry_and_tags_on_a_partial_document() -> None:
    data = (
        b"#+FILETAGS: :f:\n* COMMENT old :o:\n** kept :k:\n*** deep\n* live :l:\n"
        + b"".join(b"** filler %d\n" % n for n in range(50))
        + b"*** @agent x\n"
    )
    full = Document(data)
    part = Document.around(data, [data.index(b"@agent"), data.index(b"deep")])
    assert not part.complete
    for document in (full, part):
        deep = next(e.index for e in document.entries if e.begin == data.index(b"*** deep"))
        request = document.find(data.index(b"@agent"))
        assert request is not None
        assert document.commented(deep) and not document.commented(request)
        assert document.tags(deep) == ("f", "o", "k")
        assert document.tags(request) == ("f", "l")


def test_settings_given_to_a_document_are_not_read_from_its_text() -> None:
    data = b"#+TODO: NEXT | DONE\n* NEXT task\n* bad \xff\n"
    given = Document(data, settings=InBufferSettings())
    assert given.headline(0).todo is None  # the default keywords: NEXT is title text
    assert given.headline(0).raw == "NEXT task"
    assert Document(data[:32]).headline(0).todo == "NEXT"


@pytest.mark.parametrize("text", ["plain ascii\n", "é→𝄞 mixed\r\nλ\n", "\udcff lone\n"])
def test_offsets_convert_both_ways_in_any_order(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    bounds = [len(text[:i].encode("utf-8", "surrogatepass")) for i in range(len(text) + 1)]
    offsets = Offsets(text)
    order = list(range(len(text) + 1))
    random.Random(7).shuffle(order)
    for char in order:
        assert offsets.byte(char) == bounds[char]
        assert offsets.char(bounds[char]) == char
    # Character 3 of the text is byte 100 of the file (a stretch of a larger file).
    shifted = Offsets(text, 3, 100, data=data[bounds[3] :])
    assert shifted.char(100 + len(data) - bounds[3]) == len(text)
    assert shifted.byte(len(text)) == 100 + len(data) - bounds[3]
    assert shifted.char(100) == 3
    assert Offsets(text, 3, 100).char(100 + bounds[-1] - bounds[3]) == len(text)
