"""Property tests: for any document and any planned edits, nothing of the user's is lost."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.io.text import BOM, detect_newline
from orgrouter.org.drawer import locate_head
from orgrouter.org.edit import (
    AddTag,
    AppendChild,
    Edit,
    SetPlanning,
    SetProperty,
    Shift,
    Splice,
    apply_splices,
    plan_edits,
)
from orgrouter.org.scan import HeadlineLine, iter_headline_lines

TITLE_WORDS = ["TODO", "@agent", "do", "this", "é", "日本", ":a:", ":x:y:", "COMMENT", "[#A]"]
BODY_LINES = [
    "text",
    "*bold* start",
    "  * indented item",
    "#+TITLE: x",
    "#+begin_src python",
    "#+end_src",
    ":END:",
    ":PROPERTIES:",
    ":ID: 1",
    "",
    "   ",
    "SCHEDULED: <2024-01-01 Mon>",
    "- item",
    "\x0c",
    "a\u2028b",
    "trailing \t",
]
KEYS = ["ID", "A", "Custom", "orgrouter_x"]


@dataclass(frozen=True)
class Doc:
    data: bytes
    newline: bytes


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    """Draw an Org document: headlines with planning lines, drawers and bodies."""
    newline = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(BODY_LINES)))
    for _ in range(draw(st.integers(1, 6))):
        level = draw(st.integers(1, 4))
        title = " ".join(draw(st.lists(st.sampled_from(TITLE_WORDS), max_size=4)))
        lines.append("*" * level + " " + title)
        if draw(st.booleans()):
            lines.append("SCHEDULED: <2024-02-03 Sat>")
        if draw(st.booleans()):
            keys = draw(st.lists(st.sampled_from(KEYS), max_size=3))
            lines += [":PROPERTIES:", *(f":{k}: v" for k in keys), ":END:"]
        lines += draw(st.lists(st.sampled_from(BODY_LINES), max_size=4))
    data = newline.join(line.encode("utf-8") for line in lines)
    if draw(st.booleans()):
        data += newline  # else: no final newline
    if draw(st.booleans()):
        data = BOM + data
    # Plan with the style the reader detects, as callers do (a one-line file is LF).
    return Doc(data, detect_newline(data))


VALUES = st.text(
    alphabet=st.characters(codec="utf-8", blacklist_characters="\r\n\0"),
    max_size=12,
)
ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)


@st.composite
def insert_only_edits(draw: st.DrawFn, heads: list[HeadlineLine]) -> list[Edit]:
    """Draw edits that only add text: new keys, DEADLINE (documents have none), children."""
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 6))):
        begin = draw(st.sampled_from(heads)).begin
        kind = draw(st.sampled_from(["child", "property", "planning"]))
        if kind == "child":
            identity = ("ORGROUTER_RESULT", draw(st.sampled_from(["r1", "r2", "r3"])))
            edits.append(AppendChild(begin, draw(ANY_TEXT), identity, body=draw(ANY_TEXT)))
        elif kind == "property":
            key = draw(st.sampled_from(["ORGROUTER_STATUS", "ORGROUTER_HASH"]))
            edits.append(SetProperty(begin, key, draw(VALUES)))
        else:
            day = draw(st.integers(1, 28))
            edits.append(SetPlanning(begin, "DEADLINE", f"<2024-03-{day:02d}>"))
    return edits


@st.composite
def any_edits(draw: st.DrawFn, heads: list[HeadlineLine]) -> list[Edit]:
    """Draw edits of every kind, including ones that replace values, tags and dates."""
    edits: list[Edit] = draw(insert_only_edits(heads))
    for _ in range(draw(st.integers(0, 4))):
        begin = draw(st.sampled_from(heads)).begin
        kind = draw(st.sampled_from(["property", "tag", "planning"]))
        if kind == "property":
            edits.append(SetProperty(begin, draw(st.sampled_from(KEYS)), draw(VALUES)))
        elif kind == "tag":
            edits.append(AddTag(begin, draw(st.sampled_from(["a", "b", "agent", "日本", "@x"]))))
        else:
            edits.append(SetPlanning(begin, "SCHEDULED", "<2024-04-05 Fri>"))
    return edits


def is_subsequence(small: bytes, big: bytes) -> bool:
    it = iter(big)
    return all(byte in it for byte in small)


def moved(edits: list[Edit], splices: list[Splice]) -> list[Edit]:
    """Return ``edits`` addressed to where their headlines are after the splices."""
    out: list[Edit] = []
    for edit in edits:
        begin = Shift(splices)(edit.headline)
        if isinstance(edit, AppendChild):
            out.append(AppendChild(begin, edit.title, edit.identity, body=edit.body))
        elif isinstance(edit, SetProperty):
            out.append(SetProperty(begin, edit.key, edit.value))
        elif isinstance(edit, AddTag):
            out.append(AddTag(begin, edit.tag))
        else:
            out.append(SetPlanning(begin, edit.keyword, edit.timestamp))
    return out


def parent_of(heads: list[HeadlineLine], index: int) -> HeadlineLine | None:
    for candidate in reversed(heads[:index]):
        if candidate.level < heads[index].level:
            return candidate
    return None


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_inserts_keep_every_original_byte_in_order(data: st.DataObject) -> None:
    doc = data.draw(documents())
    heads = list(iter_headline_lines(doc.data))
    edits = data.draw(insert_only_edits(heads))
    splices = plan_edits(doc.data, edits, newline=doc.newline)
    assert all(s.begin == s.end for s in splices)
    out = apply_splices(doc.data, splices)
    assert is_subsequence(doc.data, out)
    # Style preserved: the newline convention, the BOM, and a missing final newline.
    assert detect_newline(out) == detect_newline(doc.data)
    assert out.startswith(BOM) == doc.data.startswith(BOM)
    assert out.endswith(b"\n") == doc.data.endswith(b"\n")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_results_land_where_planned_and_reapplying_changes_nothing(data: st.DataObject) -> None:
    doc = data.draw(documents())
    heads = list(iter_headline_lines(doc.data))
    edits = data.draw(any_edits(heads))
    splices = plan_edits(doc.data, edits, newline=doc.newline)
    out = apply_splices(doc.data, splices)
    new_heads = list(iter_headline_lines(out))
    children = {(e.headline, e.identity) for e in edits if isinstance(e, AppendChild)}
    # Escaped bodies and one-line titles add exactly the planned headlines, no more.
    assert len(new_heads) == len(heads) + len(children)
    by_begin = {h.begin: i for i, h in enumerate(new_heads)}
    for parent_begin, (key, value) in children:
        parent = Shift(splices)(parent_begin)
        found = [
            i
            for i, h in enumerate(new_heads)
            if (drawer := locate_head(out, h, newline=doc.newline).drawer) is not None
            and (prop := drawer.get(key)) is not None
            and prop.value == value
            and parent_of(new_heads, i) == new_heads[by_begin[parent]]
        ]
        assert len(found) == 1
        assert new_heads[found[0]].level == new_heads[by_begin[parent]].level + 1
    for edit in edits:
        head = locate_head(
            out, new_heads[by_begin[Shift(splices)(edit.headline)]], newline=doc.newline
        )
        if isinstance(edit, SetProperty):
            assert head.drawer is not None
            prop = head.drawer.get(edit.key)
            assert prop is not None
    assert plan_edits(out, moved(edits, splices), newline=doc.newline) == []
