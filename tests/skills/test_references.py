"""Todos for what the request points at in its section, one per item, dates shared."""

from __future__ import annotations

import pytest
from skillctx import request_ctx

from orgrouter.skills.base import Context, Emit, Heading, Result, delegation
from orgrouter.skills.references import resolve
from orgrouter.skills.todo import SKILL as TODO

GARDEN = """\
Spring jobs, before the frost ends.
- [ ] prune the roses
- [X] order seeds
- [ ] fix the gate by Dec 10
Action: call the tree surgeon
Action: ask Ivo for the ladder
"""
TRIP = """\
We compared three campsites.
Still to decide:
- which ferry do we take?
- who brings the stove?
Packing:
- tent
- head torches
"""
TABLE = """\
| invoice | client | amount |
|---------+--------+--------|
| 101     | Acme   | 400    |
| 102     | Brill  | 250    |
"""


def _ctx(section: str = "", parent: str = "", outline: tuple[Heading, ...] = ()) -> Context:
    return request_ctx(section=section, parent_section=parent, outline=outline)


def _todos(text: str, ctx: Context) -> list[tuple[str, str | None]]:
    stimulus = delegation({"skill": "todo", "text": text})
    action = TODO.symbolic(TODO.neuro(stimulus, ctx), ctx)
    assert isinstance(action, Emit)
    results: tuple[Result, ...] = action.results
    assert all(r.todo == "TODO" and not r.tags for r in results)
    return [(r.title, r.planning) for r in results]


def test_unchecked_boxes_with_a_shared_deadline_and_an_own_date() -> None:
    todos = _todos("make todos for the open boxes, due next friday", _ctx(parent=GARDEN))
    assert todos == [
        ("prune the roses", "DEADLINE: <2026-12-04 Fri>"),
        ("fix the gate", "DEADLINE: <2026-12-10 Thu>"),  # its own date wins
    ]


def test_labelled_lines() -> None:
    assert _todos("turn the Action: lines into todos", _ctx(parent=GARDEN)) == [
        ("call the tree surgeon", None),
        ("ask Ivo for the ladder", None),
    ]


def test_every_checkbox_here_should_become_a_todo() -> None:
    todos = _todos("every unticked checkbox here should become a todo", _ctx(parent=GARDEN))
    assert [title for title, _ in todos] == ["prune the roses", "fix the gate"]


def test_a_list_named_by_its_label() -> None:
    ctx = _ctx(parent=TRIP)
    assert _todos("create tasks for the things still to decide", ctx) == [
        ("which ferry do we take?", None),
        ("who brings the stove?", None),
    ]
    assert [t for t, _ in _todos("add the packing list to my todos", ctx)] == [
        "tent",
        "head torches",
    ]


def test_these_over_the_requests_own_body_list() -> None:
    body = "- buy stamps\n- post the forms on the 14th\n"
    assert _todos("add these to my todos", _ctx(section=body, parent=GARDEN)) == [
        ("buy stamps", None),
        ("post the forms", "SCHEDULED: <2026-12-14 Mon>"),
    ]


def test_a_plural_noun_with_a_determiner_when_todos_are_asked_for() -> None:
    recipe = "Serves 2.\n- 200 g rice\n- 1 onion\n- saffron\n"
    titles = [
        t for t, _ in _todos("put the ingredients on my shopping list as todos", _ctx(recipe))
    ]
    assert titles == ["200 g rice", "1 onion", "saffron"]


def test_items_under_a_child_headline() -> None:
    outline = (
        Heading(3, 1, "Pilot", body="- [X] buy mics\n- [ ] record the pilot\n"),
        Heading(6, 1, "Website", body="- [ ] pick a host\n"),
    )
    todos = _todos("turn the open boxes under Pilot into todos", _ctx(outline=outline))
    assert todos == [("record the pilot", None)]


def test_table_rows() -> None:
    found = resolve("a reminder for each row of the table", TABLE, many=True)
    assert found is not None
    assert found.items == ("101 Acme 400", "102 Brill 250")


def test_child_headlines_not_done() -> None:
    outline = (
        Heading(2, 1, "write the intro", todo="TODO"),
        Heading(3, 1, "collect data", todo="DONE"),
        Heading(4, 2, "a note inside", body="x"),
    )
    found = resolve("the headings below", "", outline)
    assert found is not None and found.items == ("write the intro",)


@pytest.mark.parametrize(
    "text",
    [
        "create todos for buying milk, calling Bob and booking flights",
        "add a todo to call the dentists",  # a plural noun, but one todo is asked for
    ],
)
def test_named_items_are_not_references(text: str) -> None:
    todos = _todos(text, _ctx(parent=GARDEN))
    assert all("prune" not in title for title, _ in todos)


def test_the_action_items_keep_their_broad_meaning() -> None:
    titles = [t for t, _ in _todos("create todos for the action items", _ctx(parent=GARDEN))]
    assert titles == [
        "prune the roses",
        "fix the gate",
        "call the tree surgeon",
        "ask Ivo for the ladder",
    ]


def test_a_child_headline_named_without_under() -> None:
    outline = (
        Heading(3, 1, "Aufgaben", body="- Fenster putzen\n- [X] Müll raus\n- Keller räumen\n"),
        Heading(7, 1, "Notizen", body="Nichts Neues.\n"),
    )
    assert _todos("turn the Aufgaben into todos", _ctx(outline=outline)) == [
        ("Fenster putzen", None),
        ("Keller räumen", None),
    ]


LAUNCH = """\
Next steps:
- draft the press release
Risks:
- the venue may cancel
- the printer is late
"""


def test_a_label_named_in_the_singular() -> None:
    assert [t for t, _ in _todos("turn each risk into a todo", _ctx(parent=LAUNCH))] == [
        "the venue may cancel",
        "the printer is late",
    ]


def test_one_task_per_line_with_a_shared_date() -> None:
    todos = _todos("make a task per line above, due saturday", _ctx(parent="- a\n- b\n"))
    assert todos == [("a", "DEADLINE: <2026-12-05 Sat>"), ("b", "DEADLINE: <2026-12-05 Sat>")]


def test_the_label_sharing_most_words_wins() -> None:
    section = "Questions for Bob:\n- how much?\nOpen questions:\n- which date?\n"
    assert _todos("make todos for the open questions", _ctx(parent=section)) == [
        ("which date?", None)
    ]


# Blocks and drawers as Org parses them (the one authority, org/elements): a stray
# ":END:" or a drawer line that nothing closes is a line of its item, and an unclosed
# "#+begin_quote" is a paragraph's line; neither may hide the items after it.
@pytest.mark.parametrize(
    "body",
    [
        "- milk\n  :END:\n- eggs\n- bread\n",
        "- milk\n  :note:\n- eggs\n- bread\n",
        "#+begin_quote\n- milk\n- eggs\n- bread\n",
        "- milk\n#+begin_src sh\n- eggs\n- bread\n",
    ],
)
def test_an_unclosed_drawer_or_block_line_hides_no_item(body: str) -> None:
    todos = _todos("turn the items below into todos", _ctx(section=body))
    assert [title for title, _ in todos] == ["milk", "eggs", "bread"]


def test_closed_blocks_and_drawers_still_hide_their_lines() -> None:
    body = (
        "- milk\n:LOGBOOK:\n- not an item\n:END:\n#+begin_example\n- nor this\n"
        "#+end_example\n- eggs\n  :x:\n  - hidden\n  :END:\n"
    )
    todos = _todos("turn the items below into todos", _ctx(section=body))
    assert [title for title, _ in todos] == ["milk", "eggs"]


def test_a_table_after_an_unclosed_block_line_is_read() -> None:
    found = resolve("a reminder for each row of the table", "#+begin_quote\n" + TABLE, many=True)
    assert found is not None
    assert found.items == ("101 Acme 400", "102 Brill 250")
