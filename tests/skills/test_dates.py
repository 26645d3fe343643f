"""The date grammar: what people write, and Org's own reading where Org reads it."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.skills.dates import find_date, strip_date

NOW = datetime(2026, 12, 1, 9, 0)  # a Tuesday, the dev set's clock


@pytest.mark.parametrize(
    ("text", "stamp"),
    [
        ("call the vet Dec 10", "<2026-12-10 Thu>"),
        ("pay rent 12/10", "<2026-12-10 Thu>"),
        ("dentist on the 12th", "<2026-12-12 Sat>"),
        ("dentist on the 1st", "<2026-12-01 Tue>"),  # today: still to come
        ("renew the lease on 3 Jan 2027", "<2027-01-03 Sun>"),
        ("the 12th of January", "<2027-01-12 Tue>"),
        ("send the deposit by Jan 15", "<2027-01-15 Fri>"),  # next year's: prefer the future
        ("file the claim by the end of the month", "<2026-12-31 Thu>"),
        ("by end of next month", "<2027-01-31 Sun>"),
        ("finish the draft by the end of next week", "<2026-12-11 Fri>"),
        ("book tickets in two weeks", "<2026-12-15 Tue>"),
        ("in a fortnight", "<2026-12-15 Tue>"),
        ("3 days from now", "<2026-12-04 Fri>"),
        ("+2w", "<2026-12-15 Tue>"),
        ("call Ana the day after tomorrow", "<2026-12-03 Thu>"),
        ("tomorrow morning", "<2026-12-02 Wed 09:00>"),
        ("take the bins out tonight", "<2026-12-01 Tue 20:00>"),
        ("tonight at 9pm", "<2026-12-01 Tue 21:00>"),
        ("lunch with Jo tomorrow at noon", "<2026-12-02 Wed 12:00>"),
        ("on friday, at 3pm", "<2026-12-04 Fri 15:00>"),
        ("thursday 14:00-15:30", "<2026-12-03 Thu 14:00-15:30>"),
        ("revise on saturday afternoon", "<2026-12-05 Sat 14:00>"),
        ("the first monday of january", "<2027-01-04 Mon>"),
        ("next month", "<2027-01-01 Fri>"),
        ("next week", "<2026-12-07 Mon>"),
        ("tuesday", "<2026-12-08 Tue>"),  # today's weekday: next week's, as Org reads it
        ("next wednesday", "<2026-12-02 Wed>"),
        ("meet <2026-12-09 Wed 10:00 +1w> in room 2", "<2026-12-09 Wed 10:00 +1w>"),
        ("on 2026-12-08 at 19:00", "<2026-12-08 Tue 19:00>"),
        ("avant le 15/12", "<2026-12-15 Tue>"),  # a first number above 12 is a day
        ("el sábado", "<2026-12-05 Sat>"),
        ("am Freitag", "<2026-12-04 Fri>"),
        ("send it by end of day", "<2026-12-01 Tue>"),
        ("buy presents before christmas", "<2026-12-25 Fri>"),
        ("call mum this afternoon at 4pm", "<2026-12-01 Tue 16:00>"),
        ("by noon tomorrow", "<2026-12-02 Wed 12:00>"),
        ("December 3, 2026", "<2026-12-03 Thu>"),
        ("by Dec 3rd", "<2026-12-03 Thu>"),
    ],
)
def test_dates_people_write(text: str, stamp: str) -> None:
    found = find_date(text, NOW)
    assert found is not None, text
    assert found.timestamp() == stamp


@pytest.mark.parametrize(
    ("text", "stamp"),
    [
        ("water the plants every sunday at 18:00", "<2026-12-06 Sun 18:00 +1w>"),
        ("every other thursday", "<2026-12-03 Thu +2w>"),
        ("flea treatment every 4 weeks starting this friday", "<2026-12-04 Fri +4w>"),
        ("a writing block every morning at 8:00", "<2026-12-02 Wed 08:00 +1d>"),  # 8:00 passed
        ("stand-up every day at 10", "<2026-12-01 Tue 10:00 +1d>"),
        ("pay the nanny weekly", "<2026-12-01 Tue +1w>"),
        ("every 2 months", "<2026-12-01 Tue +2m>"),
        ("every fortnight", "<2026-12-01 Tue +2w>"),
        ("water the plants on sundays", "<2026-12-06 Sun +1w>"),
        ("pay rent every month on the 28th", "<2026-12-28 Mon +1m>"),
        ("every year on March 3", "<2027-03-03 Wed +1y>"),
    ],
)
def test_repeaters(text: str, stamp: str) -> None:
    found = find_date(text, NOW)
    assert found is not None
    assert found.timestamp() == stamp


@pytest.mark.parametrize(
    "text",
    [
        "2 tins chickpeas and 4 garlic cloves",
        "check the monitor on a sunny satellite",
        "the 3 bullet points",
        "2026-02-30",
        "a story about memory",
        "my next 1:1",
        "every weekday",  # Org has no such repeater: no date rather than a wrong one
    ],
)
def test_not_dates(text: str) -> None:
    assert find_date(text, NOW) is None


@pytest.mark.parametrize(
    ("text", "rest", "deadline"),
    [
        ("finish this book by the end of the month", "finish this book", True),
        ("todos for the open items, due on the 20th", "todos for the open items", True),
        ("Dev orders the books before Dec 18", "Dev orders the books", True),
        ("a call on 2026-12-08 at 19:00 to agree the route", "a call to agree the route", False),
        ("choir rehearsal every thursday at 19:30", "choir rehearsal", False),
        ("set a deadline for the renewal at the end of the month", "set a deadline for the renewal",
         False),
    ],
)  # fmt: skip
def test_date_words_leave_the_title(text: str, rest: str, deadline: bool) -> None:
    found = find_date(text, NOW)
    assert found is not None
    assert (strip_date(text, found), found.deadline) == (rest, deadline)


# What Org's date prompt itself reads; each is checked against org-read-date below.
ORG_SYNTAX = ["Dec 10", "12/10", "3 Jan 2027", "Jan 15", "fri", "tue", "+2w", "+3", "12/18"]


def test_org_syntax_is_read_as_org_reads_it_offline() -> None:
    expected = {
        "Dec 10": "2026-12-10", "12/10": "2026-12-10", "3 Jan 2027": "2027-01-03",
        "Jan 15": "2027-01-15", "fri": "2026-12-04", "tue": "2026-12-08",
        "+2w": "2026-12-15", "+3": "2026-12-04", "12/18": "2026-12-18",
    }  # fmt: skip
    for text in ORG_SYNTAX:
        found = find_date(text, NOW)
        assert found is not None and found.day.isoformat() == expected[text], text


@pytest.mark.emacs
def test_org_syntax_agrees_with_org_read_date(emacs: str, tmp_path: Path) -> None:
    strings = " ".join(f'"{text}"' for text in ORG_SYNTAX)
    script = tmp_path / "read.el"
    script.write_text(
        "(require 'org)\n(require 'cl-lib)\n"
        "(let ((now (encode-time 0 0 9 1 12 2026)) (decode (symbol-function 'decode-time)))\n"
        # org-read-date-analyze takes today from (decode-time), the C clock: fixed too,
        # or the comparison held only on the day NOW names.
        "  (cl-letf (((symbol-function 'current-time) (lambda () now))\n"
        "            ((symbol-function 'decode-time)\n"
        "             (lambda (&optional time &rest more) (apply decode (or time now) more))))\n"
        f"    (dolist (s '({strings}))\n"
        '      (princ (format "%s\\t%s\\n" s (org-read-date nil nil s nil now))))))\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    org = dict(line.split("\t") for line in done.stdout.splitlines() if "\t" in line)
    assert set(org) == set(ORG_SYNTAX)
    for text, day in org.items():
        found = find_date(text, NOW)
        assert found is not None and found.day.isoformat() == day, text


@pytest.mark.parametrize(
    ("text", "stamp"),
    [
        ("dinner on friday at 6", "<2026-12-04 Fri 18:00>"),
        ("stand-up tomorrow at 9", "<2026-12-02 Wed 09:00>"),
        ("pay the cleaner biweekly", "<2026-12-01 Tue +2w>"),
        ("the fair on Dec. 12", "<2026-12-12 Sat>"),
        ("call Bo monday next week", "<2026-12-07 Mon>"),
        ("remind me in 2 hours to call", "<2026-12-01 Tue 11:00>"),
        ("in 30 minutes", "<2026-12-01 Tue 09:30>"),
        ("am 3. Januar", "<2027-01-03 Sun>"),
        ("el 5 de enero", "<2027-01-05 Tue>"),
        ("le 15 décembre", "<2026-12-15 Tue>"),
    ],
)
def test_spoken_forms(text: str, stamp: str) -> None:
    found = find_date(text, NOW)
    assert found is not None and found.timestamp() == stamp


def test_month_days_is_the_calendar_s_answer_in_every_month() -> None:
    # daymath counts a month's days itself so a route never loads calendar (and locale).
    import calendar

    from orgrouter.skills.daymath import month_days

    for year in (*range(1, 2500), 9999):
        for month in range(1, 13):
            assert month_days(year, month) == calendar.monthrange(year, month)[1], (year, month)


def _grammar_words() -> list[str]:
    """Return every word the date grammar compares a token with (its source's literals too)."""
    import re

    from orgrouter.skills import dates, datewords

    source = Path(dates.__file__).read_text(encoding="utf-8")
    literals = re.findall(r"\"([^\W\d_][\w']*)\"", source)
    tables = [
        *datewords.WEEKDAY, *datewords.MONTH, *datewords.COUNTS, *datewords.ORDINALS,
        *datewords.CLOCK_UNITS, *datewords.UNITS, *datewords.DAY_WORDS, *datewords.PARTS,
        *datewords.LEADS, *datewords.ADVERBS,
        *(w for words, _ in (*datewords.DAY_PHRASES, *datewords.HOLIDAYS) for w in words),
    ]  # fmt: skip
    return sorted({*literals, *tables, *(w + "s" for w in datewords.WEEKDAY)})


# The words that join a phrase, often: random text of them and the tables' words.
_JOINING = ["every", "each", "other", "in", "within", "a", "an", "the", "this", "next", "of",
            "at", "on", "from", "now", "starting", "end", "few", "couple", "no", "later", "than"]
_TOKENS = st.sampled_from(
    [*_JOINING * 8, *_grammar_words(), "3", "12", "2027", "3pm", "19:30", "12th", "2026-12-08",
     "12/10", "+2w", "-", ",", ".", "to", "passport", "renew", "zz"]
)  # fmt: skip
# One short phrase per way the grammar reads a date or a time, each with one anchor.
_ONE_ANCHOR = [
    "in a fortnight", "every week", "in an hour", "daily", "on sundays", "at noon", "tonight",
    "this morning", "the weekend", "eod", "close of business", "christmas", "new year", "eow",
    "tomorrow", "friday", "dec 10", "the 12th", "+2w", "2026-12-08", "12/10", "3pm", "19:30",
    "at 8", "the first monday of january", "end of the month", "in two days", "every evening",
]  # fmt: skip


@pytest.mark.parametrize("text", _ONE_ANCHOR)
def test_each_way_of_reading_a_date_is_found_past_the_anchor_test(text: str) -> None:
    from orgrouter.skills.dates import _first_phrase
    from orgrouter.skills.datewords import tokenize

    found = _first_phrase(tokenize(text), NOW)
    assert found is not None and find_date(text, NOW) == found


@settings(max_examples=3000, deadline=None)
@given(st.lists(_TOKENS, max_size=7))
def test_text_without_an_anchor_word_or_token_holds_no_date(words: list[str]) -> None:
    # find_date tries the grammar only on text with an anchor: the long way must agree.
    from orgrouter.skills.dates import _ANCHOR_KINDS, _ANCHOR_WORDS, _first_phrase
    from orgrouter.skills.datewords import tokenize

    text = " ".join(words)
    tokens = tokenize(text)
    found = _first_phrase(tokens, NOW)
    assert find_date(text, NOW) == found
    if found is not None:
        assert any(t.kind in _ANCHOR_KINDS or t.low in _ANCHOR_WORDS for t in tokens), text
