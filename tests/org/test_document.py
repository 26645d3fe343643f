"""Document: outline, inherited tags, lazy and per-subtree AST, robustness."""

from __future__ import annotations

import gc
import json
import random
import weakref
from bisect import bisect_right

import pytest
from test_elements_emacs import FRAGMENTS

from orgrouter.errors import InputError
from orgrouter.org.ast import to_json, to_sexp
from orgrouter.org.document import Document, OutlineEntry

TEXT = b"#+FILETAGS: :f:shared:\n* A :a:shared:\ntext\n** B :b:\n*** C :a:c:\n** D\n* E\n* F :f:\n"


def test_outline_parents_and_subtree_ends() -> None:
    doc = Document(TEXT, "t.org")
    # (begin, end, level, line, index, subtree end, parent)
    assert doc.entries == [
        OutlineEntry(23, 38, 1, 2, 0, 69, None),
        OutlineEntry(43, 52, 2, 4, 1, 64, 0),
        OutlineEntry(52, 64, 3, 5, 2, 64, 1),
        OutlineEntry(64, 69, 2, 6, 3, 69, 0),
        OutlineEntry(69, 73, 1, 7, 4, 73, None),
        OutlineEntry(73, 81, 1, 8, 5, 81, None),
    ]
    assert [doc.find(offset) for offset in (0, 23, 42, 43, 80)] == [None, 0, 0, 1, 5]


def test_inherited_tags_follow_org_get_tags_order() -> None:
    doc = Document(TEXT, "t.org")
    # File tags, then ancestors from the top, then own; a repeat keeps its last place.
    assert [doc.tags(i) for i in range(6)] == [
        ("f", "a", "shared"),
        ("f", "a", "shared", "b"),
        ("f", "shared", "b", "a", "c"),
        ("f", "a", "shared"),
        ("f", "shared"),
        ("shared", "f"),
    ]


def test_crlf_files_are_read_as_emacs_visits_them() -> None:
    data = b"* top :a:\r\n** TODO child :b:\r\n"
    visiting = Document(data)
    assert visiting.newline == b"\r\n"
    assert [h.tags for h in map(visiting.headline, range(len(visiting.entries)))] == [["a"], ["b"]]
    assert visiting.tags(1) == ("a", "b")
    # The oracle's utf-8-unix reading keeps the CR as text: no tags then.
    raw = Document(data, newline=b"\n")
    assert [h.raw for h in map(raw.headline, range(len(raw.entries)))] == ["top :a:", "child :b:"]
    assert [h.tags for h in map(raw.headline, range(len(raw.entries)))] == [[], []]
    # Mixed line ends: Emacs keeps LF and shows the CRs.
    assert Document(b"* a :x:\r\n* b\n").newline == b"\n"


def test_invalid_utf8_is_an_input_error_naming_file_and_line() -> None:
    doc = Document(b"* ok\nbody\n* bad \xff\n", "notes/a.org")
    with pytest.raises(InputError) as raised:
        doc.settings  # noqa: B018 - reading settings decodes the whole file
    assert str(raised.value) == "notes/a.org:3: invalid UTF-8 at byte 16: Org files must be UTF-8"


def test_five_hundred_levels_without_recursion() -> None:
    text = "".join("*" * level + f" h{level} :t{level}:\nbody\n" for level in range(1, 501))
    doc = Document(text.encode())
    assert doc.entries[-1].parent == 498
    assert len(doc.tags(499)) == 500
    tree = doc.ast()
    depth = 0
    node = tree
    while node.contents and node.contents[-1].type == "headline":
        node = node.contents[-1]
        depth += 1
    assert depth == 500
    assert to_json(tree).count('"type":"headline"') == 500
    assert to_sexp(tree).count(":type :HEADLINE") == 500


def test_a_one_megabyte_line() -> None:
    title = "x" * 1_000_000
    doc = Document(f"* {title} :t:\n{title}\n".encode())
    assert doc.headline(0).tags == ["t"]
    paragraph = next(node for node in doc.ast().walk() if node.type == "paragraph")
    assert (paragraph.begin, paragraph.end, paragraph.line) == (1_000_007, 2_000_008, 2)


def test_empty_and_blank_documents() -> None:
    assert json.loads(to_json(Document(b"").ast())) == {
        "type": "org-data",
        "properties": {"begin": 0, "end": 0, "line": 1},
        "contents": [],
    }
    blank = Document(b"\n\n  \n")
    assert blank.entries == []
    assert [n.type for n in blank.ast().walk()] == ["org-data"]


def test_byte_offsets_count_utf8_and_bom() -> None:
    data = "\ufeffé\n* Überschrift :größe:\nç\n".encode()
    doc = Document(data)
    assert doc.entries[0].begin == 6
    paragraph = [n for n in doc.ast().walk() if n.type == "paragraph"]
    # A visiting Emacs drops the BOM: the first paragraph starts after its 3 bytes.
    assert [(p.begin, p.end, p.line) for p in paragraph] == [(3, 6, 1), (31, 34, 3)]


def test_section_ast_parses_only_the_headlines_own_section() -> None:
    data = (
        b"* Ask @agent\n"
        b"SCHEDULED: <2024-01-02 Tue>\n"
        b"- first intent\n"
        b"- second intent\n"
        b"\n"
        b"** Child\n"
        b"#+begin_src\n"  # unclosed here, but never parsed: only the section is
    )
    doc = Document(data)
    section = doc.section_ast(0)
    assert section is not None
    assert [(n.type, n.begin, n.end, n.line) for n in section.walk()] == [
        ("section", 13, 73, 2),
        ("planning", 13, 41, 2),
        ("plain-list", 41, 72, 3),
        ("item", 41, 56, 3),
        ("paragraph", 43, 56, 3),
        ("item", 56, 72, 4),
        ("paragraph", 58, 72, 4),
    ]
    whole = doc.ast().contents[0].contents[0]
    assert to_json(section) == to_json(whole)
    assert Document(b"* a\n** b\n").section_ast(0) is None


def _assert_crlf_twin(lf: bytes) -> None:
    """Check that ``lf`` with CRLF line ends parses to the same tree, offsets moved."""
    crlf = lf.replace(b"\n", b"\r\n")
    starts = [i + 1 for i, byte in enumerate(lf) if byte == 0x0A]

    def moved(offset: object) -> object:
        if not isinstance(offset, int) or isinstance(offset, bool):
            return offset
        return offset + bisect_right(starts, offset)

    twin = Document(crlf)
    assert twin.newline == (b"\r\n" if b"\n" in lf else b"\n")
    ours = list(twin.ast().walk())
    theirs = list(Document(lf).ast().walk())
    assert [n.type for n in ours] == [n.type for n in theirs]
    spans = ("contents-begin", "contents-end", "value-begin", "value-end", "post-affiliated")
    for mine, other in zip(ours, theirs, strict=True):
        assert (mine.begin, mine.end, mine.line) == (
            moved(other.begin),
            moved(other.end),
            other.line,
        )
        expected = {k: moved(v) if k in spans else v for k, v in other.properties.items()}
        assert mine.properties == expected


def test_a_crlf_file_parses_like_its_lf_twin() -> None:
    # Emacs visiting a CRLF file sees the same document as the LF one: every node and
    # property agrees, and each byte offset moves by the CRs before it.
    _assert_crlf_twin(
        b"#+TODO: NEXT | DONE\n:PROPERTIES:\n:ID: top\n:END:\n"
        b"* NEXT Ask :work:\nDEADLINE: <2024-01-02 Tue>\n:PROPERTIES:\n:ID: a\n:END:\n"
        b"- one\n- two :: desc\n\n#+name: x\n#+begin_src sh :var a=1\necho hi\n#+end_src\n"
        b"** DONE Child\n| a |\n|---|\n: fixed\n#+begin_quote\n\nq\n#+end_quote\n"
    )


@pytest.mark.parametrize("seed", range(100))
def test_generated_crlf_files_parse_like_their_lf_twins(seed: int) -> None:
    chance = random.Random(seed)
    pieces = [f for f in FRAGMENTS if "\r" not in f]
    lines = [chance.choice(pieces) for _ in range(chance.randint(1, 60))]
    _assert_crlf_twin(("\n".join(lines) + "\n").encode("utf-8"))


def test_a_dropped_document_frees_its_bytes_without_the_cyclic_collector() -> None:
    # A cold run plans every candidate while it scans: a document that waited for the
    # collector held a 60 MB note's bytes until routing read it again (246 MB traced).
    document = Document(b"#+FILETAGS: :a:\n* Top :b:\n** COMMENT Child :c:\ntext\n", "n.org")
    assert document.tags(1) == ("a", "b", "c") and document.commented(1)
    held = weakref.ref(document)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del document
        assert held() is None
    finally:
        if enabled:
            gc.enable()
