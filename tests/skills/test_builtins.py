"""The offline built-in skills, each on a real delegation with exact results."""

from __future__ import annotations

from datetime import datetime

import pytest

from orgrouter.config import Config
from orgrouter.skills.base import (
    Context,
    Emit,
    Request,
    Result,
    ResultRef,
    Retag,
    Skill,
    delegation,
)
from orgrouter.skills.compact import SKILL as COMPACT
from orgrouter.skills.dates import find_date, org_timestamp
from orgrouter.skills.greet import SKILL as GREET
from orgrouter.skills.schedule import SKILL as SCHEDULE
from orgrouter.skills.summarize import SKILL as SUMMARIZE
from orgrouter.skills.summarize import extract
from orgrouter.skills.tag import SKILL as TAG
from orgrouter.skills.todo import SKILL as TODO

NOW = datetime(2026, 11, 30, 9, 0)  # a Monday

MEETING = """\
We met to plan the launch of the new website. Marketing wants the launch before
the holidays. Engineering says the checkout page is not ready yet.

Action items:
- Alice drafts the press release
- Bob fixes the checkout page
- [X] Carol booked the venue

Other notes:
- [ ] order the banners
- the coffee was good
"""


def _ctx(section: str = "", **request: object) -> Context:
    fields: dict[str, object] = {
        "path": None,
        "line": 5,
        "headline": "@agent do it",
        "instruction": "do it",
        "agent": "agent",
        "section": section,
    }
    fields.update(request)
    return Context(Config(), NOW, request=Request(**fields))  # type: ignore[arg-type]


def _results(action: object) -> tuple[Result, ...]:
    assert isinstance(action, Emit)
    return action.results


def _run(skill: Skill, text: str, ctx: Context, **payload: object) -> object:
    stimulus = delegation({"skill": skill.name, "text": text, **payload})
    assert skill.trigger(stimulus, ctx)
    return skill.symbolic(skill.neuro(stimulus, ctx), ctx)


def test_todo_from_action_items_of_the_section() -> None:
    action = _run(TODO, "create todos for the action items", _ctx(MEETING))
    assert [(r.todo, r.title) for r in _results(action)] == [
        ("TODO", "Alice drafts the press release"),
        ("TODO", "Bob fixes the checkout page"),
        ("TODO", "order the banners"),
    ]


def test_todo_from_items_named() -> None:
    action = _run(TODO, "create todos for buying milk, calling Bob and booking flights", _ctx())
    assert [r.title for r in _results(action)] == ["buying milk", "calling Bob", "booking flights"]


def test_todo_uses_parent_section_when_own_body_is_empty() -> None:
    ctx = _ctx("", parent_section="- TODO renew passport\n- Action: pay rent.\n")
    action = _run(TODO, "make todos", ctx)
    assert [r.title for r in _results(action)] == ["renew passport", "pay rent"]


def test_todo_without_items_asks() -> None:
    (result,) = _results(_run(TODO, "create todos for the action items", _ctx("Just prose.")))
    assert result.kind == "clarification"
    assert result.title == "Clarification needed: which todos?"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("today", "<2026-11-30 Mon>"),
        ("tomorrow", "<2026-12-01 Tue>"),
        ("monday", "<2026-12-07 Mon>"),  # org-read-date: today's weekday is next week's
        ("next monday", "<2026-12-07 Mon>"),
        ("friday", "<2026-12-04 Fri>"),
        ("on Sunday", "<2026-12-06 Sun>"),
        ("in 3 days", "<2026-12-03 Thu>"),
        ("in two weeks", "<2026-12-14 Mon>"),
        ("next week", "<2026-12-07 Mon>"),
        ("2027-02-28", "<2027-02-28 Sun>"),
        ("friday at 3pm", "<2026-12-04 Fri 15:00>"),
        ("tomorrow at 9:30", "<2026-12-01 Tue 09:30>"),
    ],
)
def test_dates(text: str, expected: str) -> None:
    found = find_date(text, NOW.date())
    assert found is not None
    assert org_timestamp(found.day, found.time) == expected


def test_dates_ignore_words_that_look_like_days() -> None:
    assert find_date("check the monitor on a sunny satellite", NOW.date()) is None
    assert find_date("2026-02-30", NOW.date()) is None


def test_schedule_and_deadline() -> None:
    ctx = _ctx()
    (scheduled,) = _results(_run(SCHEDULE, "schedule the dentist appointment for friday", ctx))
    assert (scheduled.todo, scheduled.title, scheduled.planning) == (
        "TODO",
        "Dentist appointment",
        "SCHEDULED: <2026-12-04 Fri>",
    )
    (due,) = _results(_run(SCHEDULE, "the report is due next monday", ctx))
    assert (due.title, due.planning) == ("Report", "DEADLINE: <2026-12-07 Mon>")


def test_schedule_this_uses_parent_title() -> None:
    ctx = _ctx(parent_line=1, parent_title="Quarterly review")
    (result,) = _results(_run(SCHEDULE, "schedule this in 3 days", ctx))
    assert (result.title, result.planning) == ("Quarterly review", "SCHEDULED: <2026-12-03 Thu>")


def test_schedule_without_date_asks() -> None:
    (result,) = _results(_run(SCHEDULE, "plan the trip", _ctx()))
    assert result.kind == "clarification"


def test_tag_parent_headline() -> None:
    ctx = _ctx(parent_line=2, parent_title="Launch")
    action = _run(TAG, "tag this as urgent and review", ctx)
    assert isinstance(action, Emit)
    assert action.retags == (Retag((2,), ("urgent", "review")),)
    assert action.results[0].title == "Tagged Launch with =urgent=, =review="
    again = _run(TAG, "tag :work:q4-plan:", ctx)
    assert isinstance(again, Emit)
    assert again.retags == (Retag((2,), ("work", "q4_plan")),)


def test_summarize_prefers_prose_sentences() -> None:
    (result,) = _results(_run(SUMMARIZE, "summarize this section", _ctx(MEETING)))
    assert result.title == "Summary"
    assert result.body == (
        "- We met to plan the launch of the new website.\n"
        "- Marketing wants the launch before the holidays.\n"
        "- Engineering says the checkout page is not ready yet."
    )


def test_summarize_ranks_and_keeps_order_skipping_labels() -> None:
    section = (
        "Present: Ann, Ben, Cy, Di.\n\n"
        "The server crashed twice on Monday. The backup job was slow. "
        "The crash came from a full disk on the server. Lunch was pizza. "
        "We moved the server logs to a bigger disk.\n"
    )
    assert extract(section) == [
        "The server crashed twice on Monday.",
        "The crash came from a full disk on the server.",
        "We moved the server logs to a bigger disk.",
    ]
    assert extract("- only an item\n- and another\n") == ["only an item", "and another"]


def test_summarize_private_with_backend_says_so() -> None:
    ctx = _ctx("One sentence here.", private=True)
    ctx.config.neuro.backend = "openai"
    assert ctx.model() is None and ctx.withheld()
    (result,) = _results(_run(SUMMARIZE, "summarize", ctx))
    assert result.body.endswith("nothing was sent to a model.")


def test_compact_archives_all_but_latest_run() -> None:
    refs = (
        ResultRef(10, "Summary", "2026-11-01T09:00", owner=5),
        ResultRef(14, "Summary", "2026-11-02T09:00", owner=5),
        ResultRef(18, "Summary", "2026-11-03T09:00", owner=5),
        ResultRef(30, "Other", "2026-11-01T09:00", owner=25),
    )
    action = _run(COMPACT, "/compact", _ctx(results=refs))
    assert isinstance(action, Emit)
    assert action.retags == (Retag((10, 14), ("ARCHIVE",)),)
    assert action.results[0].title == "Compacted: archived 2 earlier results"


def test_greet() -> None:
    (result,) = _results(_run(GREET, "hello", _ctx()))
    assert result.title == "Hello"


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        ("create a todo to water the plants", ["water the plants"]),
        ("add tomato sauce", ["tomato sauce"]),
        ("address the open issue", ["address the open issue"]),
        ("remind me to call Bob and to pay rent", ["call Bob", "pay rent"]),
    ],
)
def test_todo_verb_prefix_only_whole_words(text: str, titles: list[str]) -> None:
    assert [r.title for r in _results(_run(TODO, text, _ctx()))] == titles
