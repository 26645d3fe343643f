"""Carry edits made in a tangled file back into the Org src blocks it came from.

The tangled file must carry ``:comments link`` markers. Each marked region maps to
one block (by its name, ``HEADING:N`` or ``#+name``); its text, re-indented as Org
does (the begin line's indentation plus 2) and escaped as Org escapes (``,*``,
``,#+``), replaces the block's body. When orgrouter knows what it last wrote to the
tangled file, a block changed on both sides since then is a conflict and nothing is
written.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from orgrouter.babel.body import remove_indentation
from orgrouter.babel.document import Document
from orgrouter.babel.noweb import expands_when_tangling
from orgrouter.babel.plan import TargetPlan, plan_document
from orgrouter.babel.record import TargetRecord, digest
from orgrouter.errors import ConflictError, InputError
from orgrouter.io.text import CRLF, LF, detect_newline, read_stable
from orgrouter.io.transaction import Transaction
from orgrouter.org.escape import escape_code
from orgrouter.org.lines import Offsets
from orgrouter.org.scan import BOM

_BEGIN_RE = re.compile(
    r"^(?P<lead>.*?)\[\[(?P<link>(?:[^][\\]|\\.)+)\]\[(?P<name>[^]]+)\]\](?P<tail>.*)$"
)
CONTENT_INDENT = "  "  # org-edit-src-content-indentation's default


@dataclass
class Region:
    """One marked block in a tangled file."""

    link: str
    name: str
    text: str  # the code between the markers
    line: int


def read_regions(text: str) -> list[Region]:
    """Return the link-marked regions of a tangled file, in order."""
    lines = text.split("\n")
    regions: list[Region] = []
    i = 0
    while i < len(lines):
        match = _BEGIN_RE.match(lines[i])
        if match is None:
            i += 1
            continue
        end_marker = f" {match.group('name')} ends here"
        j = next((k for k in range(i + 1, len(lines)) if end_marker in lines[k]), None)
        if j is None:
            i += 1
            continue
        text_between = "\n".join(lines[i + 1 : j])
        regions.append(Region(match.group("link"), match.group("name"), text_between, i + 1))
        i = j + 1
    return regions


def _org_path(tangled: Path, link: str) -> Path:
    path = re.sub(r"\\([][\\])", r"\1", link.removeprefix("file:")).split("::", 1)[0]
    return Path(os.path.normpath(tangled.parent / path))


def detangle_file(tangled: Path, record: TargetRecord | None = None) -> list[str]:
    """Write edits in ``tangled`` back into its Org sources; return what was done."""
    try:
        data = tangled.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read: {error}", path=tangled) from error
    regions = read_regions(text.replace("\r\n", "\n"))
    if not regions:
        raise InputError(
            "no [[file:...]] link markers to follow (tangle with :comments link)", path=tangled
        )
    owner = None if record is None else record.owner(os.path.realpath(tangled))
    last = None if owner is None else owner[0]
    edited = last is not None and last != digest(data)
    messages: list[str] = []
    by_org: dict[Path, list[Region]] = {}
    for region in regions:
        org = _org_path(tangled, region.link)
        if not org.is_file() and owner is not None:
            # A headline holding "a/../b" bends the link as Org does; the record still
            # names the note these bytes were tangled from.
            org = Path(owner[1])
        by_org.setdefault(org, []).append(region)
    for org, found in by_org.items():
        messages += _detangle_into(org, tangled, found, data, last if edited else None)
    if record is not None and all(m.startswith(("detangled", "unchanged")) for m in messages):
        for org in by_org:
            doc = Document.from_bytes(org, read_stable(org)[0])
            target = _target_of(plan_document(doc).targets, tangled, org)
            if target.content == data:  # in sync again: a later tangle is no conflict
                record.remember(os.path.realpath(tangled), data, str(org))
    return messages


def _target_of(plan_targets: list[TargetPlan], tangled: Path, org: Path) -> TargetPlan:
    for target in plan_targets:
        if os.path.realpath(target.path) == os.path.realpath(tangled):
            return target
    raise InputError(f"no block in {org} tangles to {tangled}", path=org)


def _detangle_into(
    org: Path, tangled: Path, regions: list[Region], tangled_data: bytes, last_written: str | None
) -> list[str]:
    """Replace the bodies of ``org``'s blocks with the edited regions."""
    data, _st = read_stable(org)
    doc = Document.from_bytes(org, data)
    target = _target_of(plan_document(doc).targets, tangled, org)
    if target.content == tangled_data:
        return [f"unchanged: {org}"]
    if last_written is not None and digest(target.content) != last_written:
        raise ConflictError(
            f"both {tangled} and its Org blocks changed since the last tangle; "
            "merge by hand, then tangle or detangle again",
            path=org,
        )
    specs = {spec.name: spec for spec in target.blocks}
    newline = detect_newline(data)  # what babel's Document folded into LF
    edits: list[tuple[int, int, str]] = []
    messages: list[str] = []
    for region in regions:
        spec = specs.get(region.name)
        if spec is None:
            raise ConflictError(f"no block {region.name!r} tangles here from {org}",
                                path=tangled, line=region.line)  # fmt: skip
        # A CRLF line of a mixed file keeps its \r in the block's text (Emacs shows
        # ^M); the tangled side was read with CRLF folded, so compare them folded.
        if region.text == spec.text.replace("\r\n", "\n"):
            continue
        if expands_when_tangling(spec.params):
            raise ConflictError(
                f"block {region.name!r} expands noweb references: detangling would write "
                "their expansion into it; edit the Org block instead",
                path=tangled, line=region.line,
            )  # fmt: skip
        block = spec.block
        begin_line = doc.text[block.post_affiliated : block.contents_begin]
        if newline != LF:
            begin_line = begin_line.replace("\n", newline.decode())  # as the file has it
        indent = begin_line[: len(begin_line) - len(begin_line.lstrip(" \t"))] + CONTENT_INDENT
        lines = remove_indentation(region.text).split("\n")
        body = "".join((indent + line if line.strip() else "") + "\n" for line in lines)
        ending = "\r\n" if begin_line.endswith("\r\n") else begin_line[-1]
        edits.append(
            (block.contents_begin, block.contents_end, escape_code(body).replace("\n", ending))
        )
        messages.append(f"detangled: {region.name} -> {org}:{block.line}")
    if not edits:
        return [f"unchanged: {org}"]
    out = _splice_bodies(data, doc.text, edits)
    transaction = Transaction()
    transaction.replace(org, out, expect_sha256=digest(data))
    (outcome,) = transaction.commit()
    if not outcome.ok:
        raise outcome.error or ConflictError("not written", path=org)
    return messages


def _splice_bodies(data: bytes, text: str, edits: list[tuple[int, int, str]]) -> bytes:
    """Return ``data`` with each ``(begin, end, body)`` of ``text`` spliced into its bytes.

    ``text`` is what babel's Document read (``as_visited``): the BOM dropped, a CRLF
    or CR file's line ends folded to LF. Offsets are mapped back to the file's own
    bytes, so every byte outside the replaced bodies, each line end included, stays as
    it was (a mixed file is not normalised either way). Each body carries its own line ends already.
    """
    offsets = Offsets(text, byte0=len(BOM) if data.startswith(BOM) else 0)
    crlf = detect_newline(data) == CRLF

    counted = newlines = 0  # the LFs of text[:counted], each one a CR LF in a CRLF file

    def at(offset: int) -> int:  # offsets come in file order: each stretch is read once
        nonlocal counted, newlines
        if crlf:
            newlines += text.count("\n", counted, offset)
            counted = offset
        return offsets.byte(offset) + newlines

    pieces: list[bytes] = []
    copied = 0  # bytes of data before this are in pieces
    for begin, end, body in sorted(edits):  # the bodies of distinct blocks never overlap
        pieces += [data[copied : at(begin)], body.encode("utf-8")]
        copied = at(end)
    pieces.append(data[copied:])
    return b"".join(pieces)
