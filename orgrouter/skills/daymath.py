"""Calendar arithmetic for the date grammar: months that end, clock times that pass."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from orgrouter.skills.datewords import WEEKDAY


def plural_weekday(word: str) -> int | None:
    """Return the weekday "mondays" (or "on mondays") names, every week; None otherwise."""
    if len(word) > 4 and word.endswith("s") and word[:-1] in WEEKDAY and len(word[:-1]) > 5:
        return WEEKDAY[word[:-1]]
    return None


def clock_time(value: str) -> str | None:
    """Return "15:00" for "3pm", "19:30", "7:30am"; None for an impossible time."""
    half = value[-2:] if value.endswith(("am", "pm")) else ""
    digits = value[:-2] if half else value
    hour_text, _, minute_text = digits.partition(":")
    hour, minute = int(hour_text), int(minute_text or 0)
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59 or (half and int(hour_text) > 12):
        return None
    return f"{hour:02d}:{minute:02d}"


def clock_passed(clock: str, now: datetime) -> bool:
    """Return whether ``clock`` ("08:00") is already past at ``now``."""
    hour, minute = (int(p) for p in clock[:5].split(":"))
    return (hour, minute) <= (now.hour, now.minute)


def real_date(year: int, month: int, day: int) -> date | None:
    """Return the date, or None when there is no such day (Feb 30)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def month_days(year: int, month: int) -> int:
    """Return how many days ``month`` of ``year`` has (calendar, and its locale, stay unloaded)."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def add_months(day: date, months: int) -> date:
    """Return ``day`` ``months`` later, clipped to the month's last day (Jan 31 + 1: Feb 28)."""
    total = day.year * 12 + day.month - 1 + months
    year, month = divmod(total, 12)
    last = month_days(year, month + 1)
    return date(year, month + 1, min(day.day, last))


def shift_by(day: date, number: int, unit: str) -> date:
    """Return ``day`` moved by ``number`` units (``d``, ``w``, ``m``, ``y``), as Org's ``+2w``."""
    if unit in ("d", "w"):
        return day + timedelta(days=number * (7 if unit == "w" else 1))
    return add_months(day, number * (12 if unit == "y" else 1))


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """Return the ``nth`` (``-1``: last) ``weekday`` of the month, or None."""
    days = [d for d in range(1, month_days(year, month) + 1)
            if date(year, month, d).weekday() == weekday]  # fmt: skip
    if nth == -1:
        return date(year, month, days[-1])
    return date(year, month, days[nth - 1]) if 0 < nth <= len(days) else None
