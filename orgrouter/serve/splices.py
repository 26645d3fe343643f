"""The edits an editor applies: a route's splice stages as one list, in characters.

``apply_plans`` splices a note in up to three stages, each planned against the bytes
the stage before produced. An editor holds only the original text, so the stages are
composed into one ordered list of non-overlapping splices of the original bytes, and
their byte offsets turned into character offsets (what Emacs counts). No stage is ever
compared against the whole text: the work is proportional to the splices, plus one
pass over the text to count characters.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from orgrouter.org.edit import Splice, apply_splices, ordered


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace characters ``begin`` to ``end`` of the given text with ``text``."""

    begin: int
    end: int
    text: str

    def to_json(self) -> dict[str, object]:
        """Return the ``{begin, end, text}`` object of the serve protocol."""
        return {"begin": self.begin, "end": self.end, "text": self.text}


def compose(data: bytes, first: Sequence[Splice], second: Sequence[Splice]) -> list[Splice]:
    """Return splices of ``data`` that make ``first`` (of ``data``) then ``second``.

    ``second`` is planned against the bytes ``first`` produced. Splices that touch or
    overlap (through the text ``first`` inserts) merge into one, whose text is built
    from that stretch of ``data`` alone; the result is ordered and non-overlapping.
    """
    a = ordered(first)
    b = ordered(second)
    starts: list[int] = []  # where each splice of ``a`` inserts, in the middle bytes
    ends: list[int] = []
    after: list[int] = []  # the shift of ``a``'s splices up to and including each one
    delta = 0
    for splice in a:
        starts.append(splice.begin + delta)
        ends.append(splice.begin + delta + len(splice.text))
        delta += len(splice.text) - (splice.end - splice.begin)
        after.append(delta)

    def to_original(point: int, left: bool) -> int:
        """Map a point of the middle bytes back, widening over ``a``'s text it touches."""
        k = bisect_right(starts, point) - 1
        if k >= 0 and point <= ends[k]:
            return a[k].begin if left else a[k].end
        return point - (after[k] if k >= 0 else 0)

    # (begin, end, stage, index): every splice as an interval of ``data``.
    spans = [(s.begin, s.end, 0, i) for i, s in enumerate(a)]
    spans += [
        (to_original(s.begin, True), to_original(s.end, False), 1, i) for i, s in enumerate(b)
    ]
    spans.sort()
    clusters: list[tuple[int, int, list[int], list[int]]] = []
    for begin, end, stage, index in spans:
        if clusters and begin <= clusters[-1][1]:
            last = clusters[-1]
            clusters[-1] = (last[0], max(last[1], end), last[2], last[3])
        else:
            clusters.append((begin, end, [], []))
        (clusters[-1][3] if stage else clusters[-1][2]).append(index)
    out: list[Splice] = []
    shift = 0  # of ``a``'s splices before the cluster
    for begin, end, from_a, from_b in clusters:
        firsts = [a[i] for i in sorted(from_a)]
        local = [Splice(s.begin - begin, s.end - begin, s.text) for s in firsts]
        middle = apply_splices(data[begin:end], local)
        at = begin + shift  # where the cluster starts in the middle bytes
        seconds = [Splice(b[i].begin - at, b[i].end - at, b[i].text) for i in sorted(from_b)]
        out.append(Splice(begin, end, apply_splices(middle, seconds)))
        shift += sum(len(s.text) - (s.end - s.begin) for s in firsts)
    return out


def compose_stages(data: bytes, stages: Sequence[Sequence[Splice]]) -> list[Splice]:
    """Return one ordered list of splices of ``data`` that makes every stage in turn."""
    composed: list[Splice] = []
    for stage in stages:
        composed = compose(data, composed, stage)
    return composed


def text_edits(data: bytes, splices: Sequence[Splice]) -> list[TextEdit]:
    """Return ordered, non-overlapping ``splices`` of UTF-8 ``data`` in character offsets.

    Raises UnicodeDecodeError if a splice cuts a character (no route does).
    """
    edits: list[TextEdit] = []
    chars = 0
    pos = 0
    for splice in splices:
        chars += len(data[pos : splice.begin].decode("utf-8"))
        begin = chars
        chars += len(data[splice.begin : splice.end].decode("utf-8"))
        pos = splice.end
        edits.append(TextEdit(begin, chars, splice.text.decode("utf-8")))
    return edits


def editor_splices(
    data: bytes, stages: Sequence[Sequence[Splice]], routed: bytes
) -> list[Splice]:
    """Return the splices from ``data`` to ``routed``: the write-back stages, composed.

    They are checked by applying them (one join of the text). What they do not
    account for (a move of a subtree within the note, made after the write-back)
    becomes one more stage: one splice over the stretch that still differs.
    """
    if routed == data:
        return []
    splices = compose_stages(data, stages)
    made = apply_splices(data, splices)
    if made == routed:
        return splices
    return compose(data, splices, [one_splice(made, routed)])


def one_splice(data: bytes, routed: bytes) -> Splice:
    """Return the one splice that turns ``data`` into ``routed`` over what differs."""
    limit = min(len(data), len(routed))
    head = 0
    while head < limit and data[head] == routed[head]:
        head += 1
    tail = 0
    limit -= head
    while tail < limit and data[-1 - tail] == routed[-1 - tail]:
        tail += 1
    # Cut only at character starts (a UTF-8 continuation byte is 0b10xxxxxx).
    while head and head < len(data) and data[head] & 0xC0 == 0x80:
        head -= 1
    while tail and data[len(data) - tail] & 0xC0 == 0x80:
        tail -= 1
    return Splice(head, len(data) - tail, routed[head : len(routed) - tail])
