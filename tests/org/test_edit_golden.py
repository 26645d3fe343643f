"""Golden edit cases: input, edits and expected output side by side in tests/data/edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orgrouter.io.text import detect_newline
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
from orgrouter.org.scan import iter_headline_lines

CASES = Path(__file__).resolve().parent.parent / "data" / "edit"
NAMES = sorted(p.name.removesuffix(".in.org") for p in CASES.glob("*.in.org"))


def load_edits(begins: list[int], spec: list[dict[str, Any]]) -> list[Edit]:
    """Build edits from JSON, where ``headline`` is the 1-based index into ``begins``."""
    edits: list[Edit] = []
    for item in spec:
        args = dict(item)
        op = args.pop("op")
        args["headline"] = begins[args["headline"] - 1]
        if op == "append_child":
            args["identity"] = tuple(args["identity"])
            args["properties"] = tuple(tuple(p) for p in args.get("properties", ()))
            args["tags"] = tuple(args.get("tags", ()))
            edits.append(AppendChild(**args))
        elif op == "set_property":
            edits.append(SetProperty(**args))
        elif op == "add_tag":
            edits.append(AddTag(**args))
        elif op == "set_planning":
            edits.append(SetPlanning(**args))
        else:
            raise AssertionError(f"unknown op {op}")
    return edits


def run_case(name: str) -> tuple[bytes, bytes, list[dict[str, Any]], list[Splice]]:
    """Return the input, the output of the case's edits, the edit spec and the splices."""
    data = (CASES / f"{name}.in.org").read_bytes()
    spec = json.loads((CASES / f"{name}.edits.json").read_text(encoding="utf-8"))
    begins = [h.begin for h in list(iter_headline_lines(data))]
    splices = plan_edits(data, load_edits(begins, spec), newline=detect_newline(data))
    return data, apply_splices(data, splices), spec, splices


@pytest.mark.parametrize("name", NAMES)
def test_golden(name: str) -> None:
    data, out, spec, splices = run_case(name)
    assert out == (CASES / f"{name}.out.org").read_bytes()
    # The same edits, planned against the result (where the headlines have moved),
    # plan nothing: a second run leaves the file alone.
    moved = [Shift(splices)(h.begin) for h in list(iter_headline_lines(data))]
    assert plan_edits(out, load_edits(moved, spec), newline=detect_newline(out)) == []


@pytest.mark.parametrize("name", NAMES)
def test_golden_results_are_where_planned(name: str) -> None:
    data, out, spec, _ = run_case(name)
    newline = detect_newline(out)
    lines = list(iter_headline_lines(out))
    for item in spec:
        if item["op"] != "append_child":
            continue
        key, value = item["identity"]
        found = []
        for line in lines:
            drawer = locate_head(out, line, newline=newline).drawer
            prop = drawer.get(key) if drawer else None
            if prop is not None and prop.value == value:
                found.append(line)
        assert len(found) == 1, item
        parent_level = list(iter_headline_lines(data))[item["headline"] - 1].level
        assert found[0].level == item.get("level", parent_level + 1)


def test_cases_exist() -> None:
    assert len(NAMES) >= 10
    for name in NAMES:
        assert (CASES / f"{name}.edits.json").is_file()
