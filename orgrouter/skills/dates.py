"""Read the dates people write in instructions, the way Org's date prompt does.

``today``, ``tomorrow``, ``yesterday``, a weekday (``friday``: that day this week or
later, today included, as ``org-read-date`` reads ``fri``), ``next friday`` (strictly
after today), ``in 3 days`` / ``in 2 weeks``, ISO ``2026-12-04``, and an optional time
``at 14:30``. Weekday names in timestamps are English, as in Org's default locale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ABBREV = {name[:3]: index for index, name in enumerate(WEEKDAYS)}
# Full names, and only the abbreviations that are not also common words (sat, sun).
_DAY = (
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tues|tue|wed|thurs|thu|fri)\b"
)
_PATTERNS = (
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("relative", re.compile(r"\bin\s+(\d{1,3}|a|one|two|three)\s+(day|week)s?\b", re.I)),
    ("next", re.compile(rf"\bnext\s+{_DAY}", re.I)),
    ("next_week", re.compile(r"\bnext\s+week\b", re.I)),
    ("word", re.compile(r"\b(today|tonight|tomorrow|yesterday)\b", re.I)),
    ("weekday", re.compile(rf"\b(?:on\s+|this\s+)?{_DAY}", re.I)),
)
_TIME = re.compile(r"\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b", re.I)
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3}


@dataclass(frozen=True)
class Found:
    """A date read from text, and the characters it occupied."""

    day: date
    time: str | None  # "14:30"
    start: int
    end: int


def find_date(text: str, today: date) -> Found | None:
    """Return the first date ``text`` names relative to ``today``, or None."""
    best: Found | None = None
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            day = _resolve(kind, match, today)
            if day is None:
                continue
            if best is None or match.start() < best.start:
                best = Found(day, None, match.start(), match.end())
            break
    if best is None:
        return None
    time = _TIME.search(text)
    if time is None:
        return best
    hour, minute, half = int(time.group(1)), int(time.group(2) or 0), time.group(3)
    if half and half.lower() == "pm" and hour < 12:
        hour += 12
    if half and half.lower() == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return best
    return Found(
        best.day,
        f"{hour:02d}:{minute:02d}",
        min(best.start, time.start()),
        max(best.end, time.end()),
    )


def org_timestamp(day: date, time: str | None = None) -> str:
    """Return the active Org timestamp for ``day``: ``<2026-12-04 Fri>``."""
    name = WEEKDAYS[day.weekday()][:3].capitalize()
    return f"<{day.isoformat()} {name}{' ' + time if time else ''}>"


def _resolve(kind: str, match: re.Match[str], today: date) -> date | None:
    """Return the date one match names."""
    if kind == "iso":
        try:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
    if kind == "relative":
        amount = match.group(1).lower()
        count = _NUMBERS[amount] if amount in _NUMBERS else int(amount)
        unit = 7 if match.group(2).lower() == "week" else 1
        return today + timedelta(days=count * unit)
    if kind == "next_week":
        return today + timedelta(days=7 - today.weekday())  # next week's Monday
    if kind == "word":
        word = match.group(1).lower()
        offset = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}[word]
        return today + timedelta(days=offset)
    target = _ABBREV[match.group(1).lower()[:3]]
    ahead = (target - today.weekday()) % 7
    if kind == "next" and ahead == 0:
        ahead = 7
    return today + timedelta(days=ahead)
