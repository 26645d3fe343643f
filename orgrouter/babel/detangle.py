"""Carry edits made in a tangled file back into the Org src blocks it came from.

The tangled file must carry ``:comments link`` markers. Each marked region maps to
one block; its text, re-indented and escaped as Org escapes (``,*``, ``,#+``), replaces
the block's body. A block whose Org body changed since the tangle (it no longer tangles
to what the marked region held when orgrouter last wrote it) is a conflict.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from orgrouter.babel.document import Document
from orgrouter.babel.plan import plan_document
from orgrouter.errors import ConflictError, InputError
from orgrouter.org.blocks import escape

_BEGIN_RE = re.compile(
    r"^(?P<lead>.*?)\[\[(?P<link>(?:[^][\\]|\\.)+)\]\[(?P<name>[^]]+)\]\](?P<tail>.*)$"
)


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
        name = match.group("name")
        end_marker = f" {name} ends here"
        j = i + 1
        while j < len(lines) and end_marker not in lines[j]:
            j += 1
        if j == len(lines):
            i += 1
            continue
        regions.append(Region(match.group("link"), name, "\n".join(lines[i + 1 : j]), i + 1))
        i = j + 1
    return regions


def _org_path(tangled: Path, link: str) -> Path:
    path = link.removeprefix("file:").split("::", 1)[0]
    return Path(os.path.normpath(tangled.parent / path))


def detangle_file(tangled: Path) -> list[str]:
    """Write edits in ``tangled`` back into its Org sources; return what was done."""
    text = tangled.read_text(encoding="utf-8")
    regions = read_regions(text)
    if not regions:
        raise InputError("no [[file:...]] link markers (tangle with :comments link)",
                         path=tangled)  # fmt: skip
    messages: list[str] = []
    by_org: dict[Path, list[Region]] = {}
    for region in regions:
        by_org.setdefault(_org_path(tangled, region.link), []).append(region)
    for org, found in by_org.items():
        messages += _detangle_into(org, tangled, found)
    return messages


def _detangle_into(org: Path, tangled: Path, regions: list[Region]) -> list[str]:
    data = org.read_bytes()
    doc = Document.from_bytes(org, data)
    plan = plan_document(doc)
    target = next(
        (t for t in plan.targets if os.path.realpath(t.path) == os.path.realpath(tangled)), None
    )
    if target is None:
        raise InputError(f"no block in {org} tangles to {tangled}", path=org)
    specs = {spec.name: spec for spec in target.blocks}
    edits: list[tuple[int, int, str]] = []
    messages: list[str] = []
    for region in regions:
        spec = specs.get(region.name)
        if spec is None:
            raise ConflictError(f"no block named {region.name!r} in {org}",
                                path=tangled, line=region.line)  # fmt: skip
        if region.text == spec.text:
            continue
        block = spec.block
        raw = doc.text[block.contents_begin : block.contents_end]
        indent = re.match(r"[ \t]*", raw).group(0) if raw.strip() else ""  # type: ignore[union-attr]
        new_body = "".join(
            (indent + line if line.strip() else line) + "\n" for line in region.text.split("\n")
        )
        edits.append((block.contents_begin, block.contents_end, escape(new_body)))
        messages.append(f"detangled: {region.name} -> {org}:{block.line}")
    if not edits:
        return [f"unchanged: {org}"]
    new_text = doc.text
    for begin, end, body in sorted(edits, reverse=True):
        new_text = new_text[:begin] + body + new_text[end:]
    if org.read_bytes() != data:
        raise ConflictError("changed while detangling; run again", path=org)
    org.write_text(new_text, encoding="utf-8")
    return messages
