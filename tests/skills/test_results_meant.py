"""Results as the user would keep them: typed tags, plain titles, real summaries."""

from __future__ import annotations

import pytest
from skillctx import request_ctx

from orgrouter.skills.ask import SKILL as ASK
from orgrouter.skills.base import Context, Emit, Heading, Result, Retag, Skill, delegation
from orgrouter.skills.greet import SKILL as GREET
from orgrouter.skills.schedule import SKILL as SCHEDULE
from orgrouter.skills.summarize import SKILL as SUMMARIZE
from orgrouter.skills.tag import SKILL as TAG
from orgrouter.skills.todo import SKILL as TODO


def _ctx(
    section: str = "",
    own_tags: tuple[str, ...] = (),
    outline: tuple[Heading, ...] = (),
) -> Context:
    return request_ctx(parent_section=section, own_tags=own_tags, outline=outline)


def _run(handler: Skill, text: str, ctx: Context, **payload: object) -> Emit:
    stimulus = delegation({"skill": handler.name, "text": text} | payload)
    assert handler.trigger(stimulus, ctx)
    action = handler.symbolic(handler.neuro(stimulus, ctx), ctx)
    assert isinstance(action, Emit)
    return action


def _one(action: Emit) -> Result:
    (result,) = action.results
    return result


@pytest.mark.parametrize("text", ["tag this entry", "tag this", "also tag the section", "tag them"])
def test_typed_tags_are_the_tags_meant(text: str) -> None:
    action = _run(TAG, text, _ctx(own_tags=("health", "family")))
    assert action.retags == (Retag((3,), ("health", "family")),)
    result = _one(action)
    assert (result.title, result.tags) == ("Tagged Monday with =health=, =family=", ())


def test_tags_named_in_the_instruction_win_over_typed_ones() -> None:
    action = _run(TAG, "tag it as release", _ctx(own_tags=("ops",)))
    assert action.retags == (Retag((3,), ("release",)),)


def test_a_word_of_the_instruction_is_no_tag() -> None:
    assert _one(_run(TAG, "tag this entry", _ctx())).kind == "clarification"


def test_no_address_in_a_no_model_title() -> None:
    result = _one(_run(ASK, "draft a reply to Oskar", _ctx(), agent="writer", skill="draft"))
    assert result.title == "No model configured"
    assert "@writer" in result.body and "draft" in result.body


@pytest.mark.parametrize(
    ("text", "title", "planning"),
    [
        ("I must book the car's MOT - remind me next wednesday", "book the car's MOT",
         "SCHEDULED: <2026-12-02 Wed>"),
        ("remind me to finish this book by the end of the month", "finish this book",
         "DEADLINE: <2026-12-31 Thu>"),
        ("recuérdame llamar a Marta el sábado", "llamar a Marta", "SCHEDULED: <2026-12-05 Sat>"),
        ("we need to renew the passports in two weeks", "renew the passports",
         "SCHEDULED: <2026-12-15 Tue>"),
    ],
)  # fmt: skip
def test_todo_titles_lose_the_asking_and_the_date(text: str, title: str, planning: str) -> None:
    result = _one(_run(TODO, text, _ctx()))
    assert (result.todo, result.title, result.planning) == ("TODO", title, planning)


@pytest.mark.parametrize(
    ("verb", "obj", "title", "planning"),
    [
        ("remind me to", "turn the compost every other sunday", "turn the compost",
         "SCHEDULED: <2026-12-06 Sun +2w>"),
        ("make", "a todo to put the bins out tomorrow", "put the bins out",
         "SCHEDULED: <2026-12-02 Wed>"),
        ("remind me to", "make dinner for the Ortegas on friday", "make dinner for the Ortegas",
         "SCHEDULED: <2026-12-04 Fri>"),
    ],
)  # fmt: skip
def test_a_verb_of_the_task_stays_once_the_asking_verb_is_gone(
    verb: str, obj: str, title: str, planning: str
) -> None:
    result = _one(_run(TODO, f"{verb} {obj}", _ctx(), verb=verb, object=obj))
    assert (result.todo, result.title, result.planning) == ("TODO", title, planning)


@pytest.mark.parametrize(
    ("text", "title", "planning"),
    [
        ("block two hours for revision on saturday afternoon", "Revision",
         "SCHEDULED: <2026-12-05 Sat 14:00>"),
        ("schedule a planning session every monday at 18:00", "Planning session",
         "SCHEDULED: <2026-12-07 Mon 18:00 +1w>"),
        ("schedule the pet insurance renewal at the end of the month", "Pet insurance renewal",
         "SCHEDULED: <2026-12-31 Thu>"),
        ("set a deadline for the tax return by Jan 31", "Tax return", "DEADLINE: <2027-01-31 Sun>"),
    ],
)  # fmt: skip
def test_schedule_titles_and_dates(text: str, title: str, planning: str) -> None:
    result = _one(_run(SCHEDULE, text, _ctx()))
    assert (result.title, result.planning) == (title, planning)


def test_schedule_takes_the_date_from_the_section_when_the_request_has_none() -> None:
    section = "Hi! The school play is on 2026-12-17 at 18:30 in the hall. Bring snacks."
    result = _one(_run(SCHEDULE, "put the school play in my calendar", _ctx(section)))
    assert (result.title, result.planning) == ("School play", "SCHEDULED: <2026-12-17 Thu 18:30>")


def test_summary_of_a_table() -> None:
    table = (
        "| flat      | rent | status         |\n"
        "|-----------+------+----------------|\n"
        "| Elm St 4  | 900  | viewing friday |\n"
        "| Oak Rd 12 | 1100 | declined       |\n"
    )
    body = _one(_run(SUMMARIZE, "summarize where each flat stands", _ctx(table))).body
    assert body == (
        "- Elm St 4: rent: 900; status: viewing friday\n- Oak Rd 12: rent: 1100; status: declined"
    )


def test_summary_of_a_weekly_review_made_of_child_headlines() -> None:
    outline = (
        Heading(4, 1, "shipped the importer", todo="DONE"),
        Heading(5, 1, "fixed the login bug", todo="DONE"),
        Heading(6, 1, "write the migration guide", todo="TODO"),
        Heading(7, 1, "Notes", body="We freeze features until January. Lunch was good.\n"),
    )
    result = _one(_run(SUMMARIZE, "summarize my week", _ctx(outline=outline)))
    assert result.kind == "result"
    assert result.body == (
        "- DONE (2): shipped the importer; fixed the login bug\n"
        "- TODO (1): write the migration guide\n"
        "- Notes: We freeze features until January."
    )


def test_offline_greeting_is_a_short_hello() -> None:
    result = _one(_run(GREET, "morning!", _ctx()))
    assert result.title == "Hello" and len(result.body.splitlines()) <= 4


@pytest.mark.parametrize(
    ("text", "count"),
    [("boil this down to 2 bullet points", 2), ("tl;dr?", 1), ("summarize this", 3)],
)
def test_summary_length_as_asked(text: str, count: int) -> None:
    section = " ".join(f"Point {word} is made here about topic {word}." for word in "ABCDEF")
    body = _one(_run(SUMMARIZE, text, _ctx(section))).body
    assert len(body.splitlines()) == count


def test_tag_a_headline_of_the_section_by_its_title() -> None:
    outline = (Heading(4, 1, "Bookings"), Heading(6, 1, "Places"))
    action = _run(TAG, "tag the Bookings heading", _ctx(own_tags=("travel",), outline=outline))
    assert action.retags == (Retag((4,), ("travel",)),)
    assert _one(action).title == "Tagged Bookings with =travel="


def test_a_top_level_request_tags_itself_without_its_address_in_the_result() -> None:
    ctx = _ctx(own_tags=("inbox",))
    assert ctx.request is not None
    ctx.request = ctx.request._replace(parent_line=None, parent_title="")
    action = _run(TAG, "tag this", ctx)
    assert action.retags == (Retag((7,), ("inbox",)),)
    assert _one(action).title == "Tagged this headline with =inbox="


def test_a_page_long_item_makes_a_bounded_one_line_title() -> None:
    (result,) = _run(TODO, "make todos for these", _ctx("- " + "word\tword " * 200 + "\n")).results
    assert "\t" not in result.title and len(result.title) == 200 and result.title.endswith("…")


@pytest.mark.parametrize(
    ("handler", "text", "title"),
    [
        (TODO, "remind me on the 14th to pack", "pack"),
        (TODO, "remind me in a fortnight to call the embassy", "call the embassy"),
        (SCHEDULE, "set up a call with Dana next tuesday at 2pm", "Call with Dana"),
        (SCHEDULE, "set up a reminder for the MOT on friday", "MOT"),
    ],
)
def test_the_date_in_the_middle_leaves_the_title(handler: Skill, text: str, title: str) -> None:
    assert _one(_run(handler, text, _ctx())).title == title


def test_offline_thanks_is_answered_as_thanks() -> None:
    result = _one(_run(GREET, "thanks, that was quick!", _ctx()))
    assert result.title == "You're welcome" and "no model" not in result.body.lower()


def test_a_reminder_with_only_a_date_is_about_the_section() -> None:
    result = _one(_run(TODO, "remind me tomorrow", _ctx()))
    assert (result.title, result.planning) == ("Monday", "SCHEDULED: <2026-12-02 Wed>")


@pytest.mark.parametrize(
    ("verb", "obj", "text", "title"),
    [
        ("check", "the tent poles by next friday", "check the tent poles by next friday",
         "check the tent poles"),
        ("remind me to", "book the physio", "remind me to book the physio", "book the physio"),
        ("jot down", "milk", "jot down milk", "milk"),
    ],
)  # fmt: skip
def test_an_errand_verb_is_part_of_the_task(verb: str, obj: str, text: str, title: str) -> None:
    result = _one(_run(TODO, text, _ctx(), verb=verb, object=obj))
    assert result.title == title
