"""The skills' patterns read a long run of blanks once, not once per place in it.

A pattern searched for across a text is tried at every place; one that starts with
``\\s*`` or ``\\s+`` read a run of blanks again from each place inside it. Instructions
and section text are the user's (up to 20,000 characters), so a pasted block of
blanks made a route take minutes. Each case runs in its own process under the guard;
100,000 blanks took the old patterns far longer than the guard, these milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from guard import finishes

from orgrouter.skills.references import resolve
from orgrouter.skills.todo import named_items
from orgrouter.skills.wording import task_title

GAP = 100_000


@pytest.mark.parametrize(
    "call",
    [
        "named_items('buy milk' + GAP + 'x, pay rent' + GAP + 'and call Bob now' + GAP)",
        "resolve('these' + GAP + 'x', 'Notes:' + GAP + 'text')",
        "task_title('buy milk' + GAP + 'x' + GAP)",
    ],
)
def test_a_long_run_of_blanks_is_read_once(call: str, tmp_path: Path) -> None:
    code = f"""
        from orgrouter.skills.references import resolve
        from orgrouter.skills.todo import named_items
        from orgrouter.skills.wording import task_title
        GAP = " \\t\\n" * {GAP // 3}
        print(repr({call}))
    """
    assert finishes(code, tmp_path).strip()


def test_matches_are_the_same_around_runs_of_blanks() -> None:
    # Matching only from a run's start finds what matching from every place did.
    assert named_items("buy milk ,  and pay rent;\t then call Bob and book flights") == [
        "buy milk",
        "pay rent",
        "call Bob",
        "book flights",
    ]
    assert named_items("a, ;b") == ["a", "b"]
    assert task_title("pack the bags   -  remind me") == "pack the bags"
    assert task_title("dentist   in my calendar") == "dentist"
    found = resolve("these   into my todos", "- one\n- two\n")
    assert found is not None and found.items == ("one", "two")
