"""Reading candidates: the shape seed 002 gives, and errors that name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orgrouter.errors import InputError
from orgrouter.refine.candidate import Candidate, Edit, parse_candidate, read_candidate


def test_full_candidate_round_trips(tmp_path: Path) -> None:
    data = {
        "proposer": "offline",
        "rationale": "teach the verb 'jot'",
        "edits": [
            {
                "file": "verbs.toml",
                "op": "replace",
                "anchor": "[skills.todo]",
                "before": "verbs = [",
                "after": 'verbs = ["jot", ',
                "addresses": ["golden:t1"],
            },
            {"file": "verbs.toml", "op": "append", "before": "", "after": "# end\n"},
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    candidate = read_candidate(path)
    assert candidate == Candidate(
        edits=(
            Edit(
                "verbs.toml",
                "replace",
                "verbs = [",
                'verbs = ["jot", ',
                "[skills.todo]",
                ("golden:t1",),
            ),
            Edit("verbs.toml", "append", "", "# end\n"),
        ),
        proposer="offline",
        rationale="teach the verb 'jot'",
    )
    assert candidate.to_json() == data


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"edits": [\n  {"file": "a"\n', "<c>:3:1: not valid JSON: Expecting ',' delimiter"),
        ("[]", "<c>: a candidate must be a JSON object with an `edits` list"),
        ('{"edits": []}', "<c>:1: a candidate needs a non-empty `edits` list"),
        (
            '{\n"edits": [], "why": 1}',
            "<c>:2: unknown candidate key 'why' (expected proposer, rationale, edits)",
        ),
        (
            '{"edits": [{"file": "a", "op": "delete", "before": "x", "after": ""}]}',
            "<c>: edit 1: `op` must be replace or append, not 'delete'",
        ),
        (
            '{"edits": [{"file": "a", "op": "replace", "before": "", "after": "x"}]}',
            "<c>: edit 1: a replace needs a non-empty `before`",
        ),
        (
            '{"edits": [{"file": "a", "op": "replace", "after": "x"}]}',
            "<c>: edit 1: `before` must be a string",
        ),
        (
            '{"edits": [{"file": "a", "op": "append", "before": "", "after": "x",\n"anker": "y"}]}',
            "<c>:2: edit 1: unknown key 'anker' (expected file, op, anchor, before, after, "
            "addresses)",
        ),
        (
            '{"edits": [{"file": "a", "op": "append", "before": "", "after": "", "addresses": 3}]}',
            "<c>: edit 1: `addresses` must be a list of strings",
        ),
        ('{"proposer": 5, "edits": [1]}', "<c>:1: `proposer` must be a string"),
        ('{"edits": [1]}', "<c>: edit 1: must be a JSON object"),
    ],
)
def test_bad_candidates_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_candidate(text, source="<c>")
    assert str(raised.value) == message


def test_missing_candidate_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        read_candidate(tmp_path / "none.json")
    assert str(raised.value) == f"{tmp_path / 'none.json'}: candidate file not found"
