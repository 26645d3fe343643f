"""Read the dates people write in instructions, the way Org's date prompt reads them.

One grammar, written as a tokenizer and a recursive-descent parser (no second copy
anywhere). ``org-read-date`` is the reference for what Org itself reads: a weekday
name is the next such day *after* today (``tue`` said on a Tuesday is next week), a
day of the month or a month and day without a year is the next one to come (Org's
``org-read-date-prefer-future``), ``12/10`` is month/day, ``+2w`` is two weeks from
today, and ``3pm`` is 15:00. On top of that it reads the English around it::

    phrase    := repeater | moment
    repeater  := "every" ["other" | NUMBER] (WEEKDAY | UNIT | PART) [time] [start]
               | ("daily" | "weekly" | "monthly" | "yearly") [time] [start]
    start     := ("starting" | "from" | "beginning") [on] moment
    moment    := [lead] day [part] [time] | [lead] time [day] | [lead] PART
    day       := "today" | "tonight" | "tomorrow" | "yesterday"
               | ["the"] "day after tomorrow" | ["this" | "next"] WEEKDAY
               | ("next" | "this") ("week" | "month" | "year")
               | "end of" ["the" | "this" | "next"] ("week" | "month" | "year")
               | "in" COUNT UNIT | COUNT UNIT "from now" | "+" NUMBER [dwmy]
               | MONTH DAY [YEAR] | DAY ["of"] MONTH [YEAR] | "the" ORDINAL ["of" MONTH]
               | ORDINAL WEEKDAY "of" MONTH | ISO | SLASHED | TIMESTAMP
    time      := ["at"] (CLOCK | HOUR ("am" | "pm") | "noon" | "midnight") [("-" | "to") CLOCK]
    part      := ["in the"] ("morning" | "afternoon" | "evening" | "night")

``lead`` words (``on``, ``by``, ``before``, ``due``, ``at``, ``for``, ...) belong to the
phrase, so they leave the todo's title with it; ``by``/``before``/``due``/``until``
make the date a deadline. Weekday and month names are read in English and in the
other languages notes here are written in (French, German, Spanish, Dutch, Italian);
timestamps are written with English day names, as in Org's default locale.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import TypeVar

from orgrouter.records import NamedTuple
from orgrouter.skills.datewords import (
    ADVERBS,
    CLOCK_UNITS,
    COUNTS,
    DAY_PHRASES,
    DAY_WORDS,
    DEADLINE_LEADS,
    HOLIDAYS,
    LEADS,
    MONTH,
    ORDINALS,
    PARTS,
    STAMP,
    UNITS,
    WEEKDAY,
    WEEKDAYS,
    Token,
    tokenize,
)
from orgrouter.skills.daymath import (
    add_months,
    clock_passed,
    clock_time,
    month_days,
    nth_weekday,
    plural_weekday,
    real_date,
    shift_by,
)


class Found(NamedTuple):
    """A date read from text, and the characters it occupied."""

    day: date
    time: str | None  # "14:30" or "14:00-16:00"
    start: int
    end: int
    repeater: str | None = None  # "+1w"
    deadline: bool = False  # led by "by", "before", "due", "until"

    def timestamp(self) -> str:
        """Return the active Org timestamp: ``<2026-12-04 Fri 18:00 +1w>``."""
        return org_timestamp(self.day, self.time, self.repeater)


class _Moment(NamedTuple):
    day: date | None
    time: str | None
    end: int  # index of the token after the phrase


T = TypeVar("T")


def _by_first_word(
    phrases: tuple[tuple[tuple[str, ...], T], ...],
) -> dict[str, list[tuple[tuple[str, ...], T]]]:
    """Return ``phrases`` under their first word, in order: only those can start at a token."""
    found: dict[str, list[tuple[tuple[str, ...], T]]] = {}
    for words, value in phrases:
        found.setdefault(words[0], []).append((words, value))
    return found


_DAY_PHRASES = _by_first_word(DAY_PHRASES)
_HOLIDAYS = _by_first_word(HOLIDAYS)


class _Past(dict[int, str]):
    """A token's text by index, "" for an index past the tokens."""

    def __missing__(self, at: int) -> str:
        return ""


class _Parser:
    """The grammar of the module docstring over one instruction's tokens."""

    def __init__(self, tokens: list[Token], now: datetime) -> None:
        self.toks = tokens
        self.now = now
        self.today = now.date()
        # The lower-cased text and the kind of token ``at`` ("" past the end; a negative
        # index counts from the end, as a list's): the grammar asks some 100 of them a
        # phrase, so each is one dict lookup, not a method call.
        last = len(tokens)
        self.low: Callable[[int], str] = _Past(
            (at - shift, token.low) for shift in (0, last) for at, token in enumerate(tokens)
        ).__getitem__
        self.kind: Callable[[int], str] = _Past(
            (at - shift, token.kind) for shift in (0, last) for at, token in enumerate(tokens)
        ).__getitem__

    # -- helpers -------------------------------------------------------------------

    def words(self, at: int, *phrase: str) -> int | None:
        """Return the index after ``phrase`` when the words at ``at`` spell it."""
        for word in phrase:
            if self.low(at) != word:
                return None
            at += 1
        return at

    def count(self, at: int) -> tuple[int, int] | None:
        """Read a count: "3", "two", "a", "a couple of"."""
        if self.kind(at) == "number" and len(self.toks[at].text) <= 3:
            return int(self.toks[at].text), at + 1
        if self.low(at) in COUNTS:
            after = self.words(at + 1, "of") if self.low(at) in ("couple", "few") else at + 1
            return COUNTS[self.low(at)], after or at + 1
        return None

    # -- phrase --------------------------------------------------------------------
    def phrase(self, at: int) -> Found | None:
        """Return the date phrase starting at token ``at`` (leads included), or None."""
        start, deadline = at, False
        while self.low(at) in LEADS or self.words(at, "no", "later", "than"):
            if self.words(at, "no", "later", "than"):
                at, deadline = at + 3, True
                continue
            deadline = deadline or self.low(at) in DEADLINE_LEADS
            at += 1
        for lead in range(start, at + 1):  # the leads may be plain words ("for lunch")
            found = self.repeater(lead) or self.moment_found(lead)
            if found is not None:
                first = self.toks[start]
                return found._replace(start=first.start, deadline=deadline)
        return None

    def moment_found(self, at: int) -> Found | None:
        """Return the moment at ``at`` as a Found (None unless it names a day)."""
        moment = self.moment(at)
        if moment is None or moment.day is None:
            return None
        return self._found(at, moment.end, moment.day, moment.time)

    def _found(self, begin: int, end: int, day: date, clock: str | None, rep: str = "") -> Found:
        """Return a Found spanning tokens ``begin`` to ``end`` (exclusive)."""
        return Found(day, clock, self.toks[begin].start, self.toks[end - 1].end, rep or None)

    # -- repeater ------------------------------------------------------------------
    def repeater(self, at: int) -> Found | None:
        """Read "every other thursday", "every 4 weeks starting friday", "on sundays"."""
        begin = at
        part_hour: int | None = None
        day: date | None = None
        plural = plural_weekday(self.low(at))
        if self.low(at) in ADVERBS:
            code = ADVERBS[self.low(at)]  # "w", or "2w" for biweekly
            unit, step, at = code[-1], int(code[:-1] or 1), at + 1
        elif plural is not None:  # "water the plants on sundays": every sunday
            unit, step, day, at = "w", 1, self.weekday(plural), at + 1
        elif self.low(at) in ("every", "each"):
            at += 1
            step = 1
            if self.low(at) == "other":
                step, at = 2, at + 1
            elif (counted := self.count(at)) and counted[0] > 0 and self.low(counted[1]) in UNITS:
                step, at = counted
            word = self.low(at)
            if word in WEEKDAY:
                unit, day, at = "w", self.weekday(WEEKDAY[word]), at + 1
            elif word in UNITS:
                unit, at = UNITS[word], at + 1
                if unit == "f":
                    unit, step = "w", step * 2
            elif word in PARTS and word != "tonight":
                unit, at = "d", at + 1
            else:
                return None  # Org has no weekday-only repeater ("every weekday")
            part_hour = PARTS.get(word)
        else:
            return None
        clock, at = self.time_or_hour(at)
        if clock is None and part_hour is not None:
            clock = f"{part_hour:02d}:00"
        lead = at
        if self.low(lead) in ("starting", "from", "beginning", "commencing"):
            lead += 1
            lead += self.low(lead) in ("on", "this", "from")
        elif self.low(lead) == "on":  # "every month on the 1st", "every year on March 3"
            lead += 1
        if lead > at:
            moment = self.moment(lead)
            if moment is not None and moment.day is not None:
                day, at = moment.day, moment.end
                clock = moment.time or clock
        if day is None:
            day = self.today
            if clock is not None and clock_passed(clock, self.now):
                day += timedelta(days=1)
        return self._found(begin, at, day, clock, f"+{step}{unit}")

    # -- moment --------------------------------------------------------------------
    def moment(self, at: int) -> _Moment | None:
        """Return a day with an optional part of day and time (or a time then a day)."""
        soon = self.soon(at)
        if soon is not None:
            return soon
        if self.low(at) == "tonight" or (self.low(at) == "this" and self.part(at + 1)):
            after = at + 1 if self.low(at) == "tonight" else at + 2
            hour = PARTS["tonight" if self.low(at) == "tonight" else self.low(at + 1)]
            timed, end = self.time_or_hour(after)
            return _Moment(self.today, timed or f"{hour:02d}:00", end if timed else after)
        day = self.day(at)
        if day is not None:
            value, at = day
            clock: str | None = None
            part = self.part(at)
            if part is not None:
                clock, at = part
            timed, after = self.time_or_hour(at)
            return _Moment(value, timed or clock, after if timed else at)
        timed, after = self.time_or_hour(at)
        if timed is None:
            return None
        lead = after + (self.low(after) in ("on", "this"))
        day = self.day(lead)
        if day is not None:
            return _Moment(day[0], timed, day[1])
        return _Moment(self.today, timed, after)  # Org reads a lone "18:00" as today

    def soon(self, at: int) -> _Moment | None:
        """Read "in 2 hours", "in 30 minutes": the day and clock time that far ahead."""
        counted = self.count(at + 1) if self.low(at) == "in" else None
        if counted is None or self.low(counted[1]) not in CLOCK_UNITS:
            return None
        number, unit_at = counted
        later = self.now + timedelta(minutes=number * CLOCK_UNITS[self.low(unit_at)])
        return _Moment(later.date(), later.strftime("%H:%M"), unit_at + 1)

    def time_or_hour(self, at: int) -> tuple[str | None, int]:
        """Return a time, or "at 8" as 08:00 (a bare number needs its "at", or it is a quantity).

        "at 1" to "at 6" mean the afternoon, as people say them ("dinner at 6").
        """
        timed, after = self.time(at)
        if timed is None and self.low(at) == "at" and self.kind(at + 1) == "number":
            hour = int(self.toks[at + 1].text)
            if hour <= 23:
                return f"{hour + 12 if 1 <= hour <= 6 else hour:02d}:00", at + 2
        return timed, after

    def part(self, at: int) -> tuple[str, int] | None:
        """Read a part of day ("morning", "in the evening") as its usual hour."""
        after = self.words(at, "in", "the") or at
        if self.low(after) in PARTS and self.low(after) != "tonight":
            return f"{PARTS[self.low(after)]:02d}:00", after + 1
        return None

    def time(self, at: int) -> tuple[str | None, int]:
        """Return the clock time at ``at`` ("at 19:30", "3pm", "noon", "14:00-16:00")."""
        lead = at + (self.low(at) in ("at", "around", "à", "um", "a", "alle"))
        first = self.clock(lead)
        if first is None:
            return None, at
        clock, after = first
        if self.kind(after) == "dash" or self.low(after) in ("until", "till"):
            second = self.clock(after + 1)
            if second is not None:
                return f"{clock}-{second[0]}", second[1]
        return clock, after

    def clock(self, at: int) -> tuple[str, int] | None:
        """Read one clock time: "19:30", "3pm", "noon", "midnight"."""
        kind, low = self.kind(at), self.low(at)
        if kind in ("clock", "hour"):
            value = clock_time(self.toks[at].value)
            return (value, at + 1) if value else None
        if low in ("noon", "midday", "midi", "mittag"):
            return "12:00", at + 1
        if low == "midnight":
            return "00:00", at + 1
        return None

    # -- day -----------------------------------------------------------------------
    def day(self, at: int) -> tuple[date, int] | None:
        """Read a day by the first rule of ``_day_rules`` that reads one at ``at``."""
        for rule in self._day_rules:
            found = rule(self, at)
            if found is not None:
                return found
        return None

    def relative_word(self, at: int) -> tuple[date, int] | None:
        """Read "today", "tomorrow", "the day after tomorrow", "end of day", "demain"."""
        after = self.words(at + (self.low(at) == "the"), "day", "after", "tomorrow")
        if after is not None:
            return self.today + timedelta(days=2), after
        for words, days in _DAY_PHRASES.get(self.low(at), ()):
            after = self.words(at, *words)
            if after is not None:
                return self.today + timedelta(days=days), after
        offset = DAY_WORDS.get(self.low(at))
        return None if offset is None else (self.today + timedelta(days=offset), at + 1)

    def holiday(self, at: int) -> tuple[date, int] | None:
        """Read "christmas", "christmas eve", "new year's eve": the next one to come."""
        for words, (month, day) in _HOLIDAYS.get(self.low(at), ()):
            after = self.words(at, *words)
            if after is not None:
                return self._future(month, day, None, after)
        return None

    def named_weekday(self, at: int) -> tuple[date, int] | None:
        """Read "friday", "this friday", "next friday" (all: the next one after today)."""
        lead = at + (self.low(at) in ("next", "this", "coming"))
        word = self.low(lead)
        if word not in WEEKDAY:
            return None
        after = self.words(lead + 1 + (self.low(lead + 1) == "of"), "next", "week")
        if after is not None:  # "monday next week": that day of next week
            monday = self.today + timedelta(days=7 - self.today.weekday())
            return monday + timedelta(days=WEEKDAY[word]), after
        return self.weekday(WEEKDAY[word]), lead + 1

    def weekday(self, target: int) -> date:
        """Return the next ``target`` weekday after today (as ``org-read-date`` reads it).

        "next friday" reads the same: strictly after today.
        """
        ahead = (target - self.today.weekday()) % 7 or 7
        return self.today + timedelta(days=ahead)

    def period(self, at: int) -> tuple[date, int] | None:
        """Read "next week", "next month", "this weekend", "end of (the|next) month"."""
        end = self.words(at + (self.low(at) == "the"), "end", "of")
        if end is None and self.low(at) in ("eow", "eom", "eoy"):
            return self._end(
                {"eow": "week", "eom": "month", "eoy": "year"}[self.low(at)], 0
            ), at + 1
        if end is not None:
            shift = 0
            if self.low(end) in ("the", "this"):
                end += 1
            elif self.low(end) == "next":
                shift, end = 1, end + 1
            unit = self.low(end)
            if unit in ("week", "month", "year"):
                return self._end(unit, shift), end + 1
            return None
        unit = self.low(at + 1)  # "this week" is no day of its own
        if self.low(at) == "next" and unit in ("week", "month", "year"):
            if unit == "week":
                return self.today + timedelta(days=7 - self.today.weekday()), at + 2
            if unit == "month":
                return add_months(self.today.replace(day=1), 1), at + 2
            return date(self.today.year + 1, 1, 1), at + 2
        if after := self.words(at, "this", "weekend") or self.words(at, "the", "weekend"):
            return self.weekday(5), after
        if (after := self.words(at, "next", "weekend")) is not None:
            return self.weekday(5) + timedelta(days=7), after
        return None

    def _end(self, unit: str, shift: int) -> date:
        """Return the last day of this (or the next) week, month or year.

        A week ends on Friday, the end of the working week people mean by "end of the
        week"; a month and a year end on their last day.
        """
        if unit == "week":
            friday = self.today + timedelta(days=(4 - self.today.weekday()) % 7)
            return friday + timedelta(days=7 * shift)
        if unit == "month":
            first = add_months(self.today.replace(day=1), shift)
            return first.replace(day=month_days(first.year, first.month))
        return date(self.today.year + shift, 12, 31)

    def offset(self, at: int) -> tuple[date, int] | None:
        """Read "in 2 weeks", "in a fortnight", "3 days from now", Org's "+2w"."""
        if self.kind(at) == "org":
            text = self.toks[at].text
            unit = text[-1] if text[-1] in "dwmy" else "d"
            return shift_by(self.today, int(text[1:].rstrip("dwmy")), unit), at + 1
        lead = self.words(at, "in") or self.words(at, "within")
        counted = self.count(at if lead is None else lead)
        if counted is None:
            return None
        number, after = counted
        named = UNITS.get(self.low(after))
        if named is None:
            return None
        unit, number = ("w", number * 2) if named == "f" else (named, number)
        if lead is not None:
            return shift_by(self.today, number, unit), after + 1
        tail = self.words(after + 1, "from", "now") or self.words(after + 1, "from", "today")
        if tail is not None:
            return shift_by(self.today, number, unit), tail
        return None

    def calendar_day(self, at: int) -> tuple[date, int] | None:
        """Read "Dec 10", "10 December 2026", "the 12th", "12th of January"."""
        low = self.low(at)
        if low in MONTH and not (low == "may" and self.kind(at + 1) not in ("number", "ordinal")):
            day_at = at + 1 + (self.low(at + 1) == ".")  # "Dec. 10"
            if self.kind(day_at) in ("number", "ordinal"):
                day = int(self.toks[day_at].value or self.toks[day_at].text)
                year, after = self._year(day_at + 1)
                return self._future(MONTH[low], day, year, after)
            return None
        lead = at + (low == "the")
        if self.kind(lead) not in ("number", "ordinal"):
            return None
        day = int(self.toks[lead].value or self.toks[lead].text)
        # "of January", "3. Januar", "5 de enero", "le 15 décembre"
        month_at = lead + 1 + (self.low(lead + 1) in ("of", ".", "de", "di"))
        if self.low(month_at) in MONTH:  # "3 Jan 2027", "the 12th of January"
            year, after = self._year(month_at + 1)
            return self._future(MONTH[self.low(month_at)], day, year, after)
        if self.kind(lead) == "ordinal":  # "the 12th": a bare number is a quantity
            return self._this_or_next_month(day, lead + 1)
        return None

    def nth_weekday(self, at: int) -> tuple[date, int] | None:
        """Read "the first monday of january", "the last friday of the month"."""
        lead = at + (self.low(at) == "the")
        nth = ORDINALS.get(self.low(lead))
        if nth is None and self.kind(lead) == "ordinal":
            nth = int(self.toks[lead].value)
        if (
            nth is None
            or self.low(lead + 1) not in WEEKDAY
            or self.low(lead + 2) not in ("of", "in")
        ):
            return None
        target = WEEKDAY[self.low(lead + 1)]
        month_at = lead + 3
        if self.words(month_at, "the", "month") or self.words(month_at, "this", "month"):
            months, after = [self.today.month], month_at + 2
        elif self.low(month_at) in MONTH:
            months, after = [MONTH[self.low(month_at)]], month_at + 1
        else:
            return None
        for year in (self.today.year, self.today.year + 1):
            found = nth_weekday(year, months[0], target, nth)
            if found is not None and found >= self.today:
                return found, after
        return None

    def numeric(self, at: int) -> tuple[date, int] | None:
        """Read ISO ``2026-12-08``, ``12/10`` (month/day, as Org) and a typed timestamp."""
        kind = self.kind(at)
        if kind == "iso":
            parsed = real_date(*map(int, self.toks[at].text.split("-")))
            return (parsed, at + 1) if parsed else None
        if kind == "slash":
            parts = [int(p) for p in self.toks[at].text.split("/")]
            first, second = parts[0], parts[1]
            # Org reads month/day; a first number above 12 can only be a day (15/12).
            month, day = (second, first) if first > 12 else (first, second)
            if len(parts) == 3:
                year = parts[2] + (2000 if parts[2] < 100 else 0)
                parsed = real_date(year, month, day)
                return (parsed, at + 1) if parsed else None
            return self._future(month, day, None, at + 1)
        return None

    def _year(self, at: int) -> tuple[int | None, int]:
        """Read a four-digit year ("2027", ", 2027"), or none."""
        year_at = at + (self.low(at) == ",")
        if self.kind(year_at) == "number" and len(self.toks[year_at].text) == 4:
            return int(self.toks[year_at].text), year_at + 1
        return None, at

    def _future(
        self, month: int, day: int, year: int | None, after: int
    ) -> tuple[date, int] | None:
        """Return month/day in ``year``, else the next one to come (Org prefers the future)."""
        parsed = real_date(self.today.year if year is None else year, month, day)
        if year is None and parsed is not None and parsed < self.today:
            parsed = real_date(self.today.year + 1, month, day)
        return (parsed, after) if parsed else None

    def _this_or_next_month(self, day: int, after: int) -> tuple[date, int] | None:
        """Return day ``day`` of this month, or of the next when it has passed."""
        parsed = real_date(self.today.year, self.today.month, day)
        if parsed is None or parsed < self.today:
            month = add_months(self.today.replace(day=1), 1)
            parsed = real_date(month.year, month.month, day)
        return (parsed, after) if parsed else None

    _day_rules: tuple[Callable[[_Parser, int], tuple[date, int] | None], ...] = ()


_Parser._day_rules = (
    _Parser.numeric,
    _Parser.relative_word,
    _Parser.period,
    _Parser.named_weekday,
    _Parser.offset,
    _Parser.nth_weekday,
    _Parser.calendar_day,
    _Parser.holiday,
)


# What every reading of a date holds (a day needs a number, date or Org token, or a
# word naming a day, month, unit or holiday; a time a clock token, a number after "at",
# or a clock word; a repeater a unit, weekday, part of day or adverb): text without
# one of them holds no date. tests/skills/test_dates.py holds the grammar to it.
_ANCHOR_KINDS = frozenset(("stamp", "iso", "slash", "clock", "hour", "ordinal", "number", "org"))
_ANCHOR_WORDS = frozenset(
    (
        *MONTH,
        *WEEKDAY,
        *(name + "s" for name in WEEKDAY),  # "on sundays"
        *DAY_WORDS,
        *(words[-1] for words, _ in DAY_PHRASES),
        *(words[-1] for words, _ in HOLIDAYS),
        *PARTS,
        *UNITS,
        *CLOCK_UNITS,
        *ADVERBS,
        *("noon", "midday", "midi", "mittag", "midnight", "eow", "eom", "eoy", "weekend"),
    )
)


def find_date(text: str, now: date | datetime) -> Found | None:
    """Return the first date phrase of ``text``, read relative to ``now``, or None.

    A time written apart from the date ("on friday, at 3pm") joins it.
    """
    when = now if isinstance(now, datetime) else datetime.combine(now, time(0, 0))
    stamp = STAMP.search(text)
    if stamp is not None:
        typed = _typed_stamp(stamp, text)
        if typed is not None:
            return typed
    tokens = tokenize(text)
    if not any(t.kind in _ANCHOR_KINDS or t.low in _ANCHOR_WORDS for t in tokens):
        return None  # most text: no phrase to try at each of its tokens
    return _first_phrase(tokens, when)


def _first_phrase(tokens: list[Token], when: datetime) -> Found | None:
    """Return the first date phrase of ``tokens`` (the grammar tried at every token)."""
    parser = _Parser(tokens, when)
    for at in range(len(tokens)):
        if at and tokens[at - 1].low in LEADS:
            continue  # the phrase would have started at the lead
        found = parser.phrase(at)
        if found is None:
            continue
        if found.time is None:
            found = _join_time(parser, tokens, found)
        return found
    return None


def _join_time(parser: _Parser, tokens: list[Token], found: Found) -> Found:
    """Return ``found`` with a time written elsewhere in the text ("at 3pm")."""
    for at, tok in enumerate(tokens):
        if found.start <= tok.start < found.end or tok.low != "at":
            continue
        clock, after = parser.time(at)
        if clock is not None:
            first, last = tokens[at].start, tokens[after - 1].end
            return found._replace(
                time=clock, start=min(found.start, first), end=max(found.end, last)
            )
    return found


def _typed_stamp(match: re.Match[str], text: str) -> Found | None:
    """Return an active timestamp typed in the request, as written (repeater kept)."""
    day = real_date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    if day is None:
        return None
    lead = re.search(r"(?:\b(by|before|due|until|on|at|for)\s+)?$", text[: match.start()], re.I)
    start = match.start() if lead is None or not lead.group(1) else lead.start(1)
    deadline = bool(lead and lead.group(1) and lead.group(1).lower() in DEADLINE_LEADS)
    return Found(day, match.group(4), start, match.end(), match.group(5), deadline)


def org_timestamp(day: date, time: str | None = None, repeater: str | None = None) -> str:
    """Return the active Org timestamp for ``day``: ``<2026-12-04 Fri 18:00 +1w>``."""
    parts = [day.isoformat(), WEEKDAYS[day.weekday()][:3].capitalize(), time, repeater]
    return "<" + " ".join(part for part in parts if part) + ">"


def strip_date(text: str, found: Found) -> str:
    """Return ``text`` without the date phrase, and without words left dangling by it."""
    rest = " ".join((text[: found.start] + " " + text[found.end :]).split())
    rest = _DANGLING.sub("", rest)
    return rest.strip(" ,;:-–")


_DANGLING = re.compile(
    r"(?:\s+(?:on|at|by|for|due|before|until|starting|from|in|le|el|am))+\s*$"
    r"|(?:\s+(?:on|at|by|for|due|before|until|starting|from|le|el|am))+(?=\s*[,;.]|\s+(?:and|to)\b)",
    re.IGNORECASE,
)
