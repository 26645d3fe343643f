"""The words and tokens of the date grammar (``orgrouter.skills.dates``).

The vocabulary (weekday and month names in the languages notes here are written in,
counts, units, parts of day, the words that lead a date) and the tokenizer that cuts
an instruction into what the grammar reads, each token with its offsets.
"""

from __future__ import annotations

import re
from functools import cached_property

from orgrouter.records import record
from orgrouter.skills.wording import word_set

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

WEEKDAY_NAMES = {
    0: "monday mon lundi montag lunes maandag lunedi lunedì",
    1: "tuesday tue tues mardi dienstag martes dinsdag martedi martedì",
    2: "wednesday wed mercredi mittwoch miercoles miércoles woensdag mercoledi mercoledì",
    3: "thursday thu thur thurs jeudi donnerstag jueves donderdag giovedi giovedì",
    4: "friday fri vendredi freitag viernes vrijdag venerdi venerdì",
    5: "saturday samedi samstag sabado sábado zaterdag sabato",
    6: "sunday dimanche sonntag domingo zondag domenica",
}
MONTH_NAMES = {
    1: "january jan janvier januar enero januari gennaio",
    2: "february feb fevrier février februar febrero februari febbraio",
    3: "march mar mars märz maerz marzo maart",
    4: "april apr avril abril aprile",
    5: "may mai mayo mei maggio",
    6: "june jun juin juni junio giugno",
    7: "july jul juillet juli julio luglio",
    8: "august aug aout août agosto augustus",
    9: "september sep sept septembre septiembre settembre",
    10: "october oct octobre oktober octubre ottobre",
    11: "november nov novembre noviembre",
    12: "december dec decembre décembre dezember diciembre dicembre",
}
WEEKDAY = {name: day for day, names in WEEKDAY_NAMES.items() for name in names.split()}
MONTH = {name: month for month, names in MONTH_NAMES.items() for name in names.split()}
COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple": 2, "few": 3,
}  # fmt: skip
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
CLOCK_UNITS = {"minute": 1, "minutes": 1, "mins": 1, "min": 1, "hour": 60, "hours": 60}
UNITS = {"day": "d", "days": "d", "week": "w", "weeks": "w", "fortnight": "f",
          "month": "m", "months": "m", "year": "y", "years": "y"}  # fmt: skip
DAY_WORDS = {"today": 0, "tomorrow": 1, "yesterday": -1, "demain": 1, "morgen": 1,
              "mañana": 1, "domani": 1, "aujourd'hui": 0, "hoy": 0, "heute": 0}  # fmt: skip
# "end of day": today; the phrases are read before their first word alone.
DAY_PHRASES = ((("end", "of", "day"), 0), (("end", "of", "today"), 0), (("eod",), 0),
                (("close", "of", "business"), 0), (("cob",), 0))  # fmt: skip
HOLIDAYS = ((("christmas", "eve"), (12, 24)), (("christmas",), (12, 25)), (("xmas",), (12, 25)),
             (("new", "year", "eve"), (12, 31)), (("new", "year", "day"), (1, 1)),
             (("new", "year"), (1, 1)), (("halloween",), (10, 31)))  # fmt: skip
PARTS = {"morning": 9, "afternoon": 14, "evening": 19, "night": 20, "tonight": 20}
# Words that lead a date and go with it; the deadline ones make it a DEADLINE.
DEADLINE_LEADS = word_set("by before due until till avant antes vor voor entro")
LEADS = DEADLINE_LEADS | word_set("on at for from starting le la el am op il dès des")
ADVERBS = {"daily": "d", "weekly": "w", "monthly": "m", "yearly": "y", "annually": "y",
           "biweekly": "2w", "fortnightly": "2w"}  # fmt: skip

TOKEN = re.compile(
    r"(?P<stamp><\d{4}-\d{2}-\d{2}[^>\n]{0,40}>)"
    r"|(?P<iso>\d{4}-\d{2}-\d{2})(?![\w-])"
    r"|(?P<slash>\d{1,2}/\d{1,2}(?:/\d{2,4})?)(?![\w/])"
    r"|(?P<clock>\d{1,2}[:h]\d{2})(?!\d)\s*(?P<clock_half>[ap]\.?m\.?\b)?"
    r"|(?P<hour>\d{1,2})\s*(?P<half>[ap]\.?m\b\.?)"
    r"|(?P<ordinal>\d{1,2})(?:st|nd|rd|th|er|e|º|°)\b"
    r"|(?P<number>\d+)(?![\w.,:/]\d)"
    r"|(?P<org>\+\d{1,3}[dwmy]?)(?!\w)"
    r"|(?P<dash>-|–|to\b)"
    r"|(?P<word>[^\W\d_]+(?:'s)?)"
    r"|(?P<other>\S)"
)
STAMP = re.compile(
    r"<(\d{4})-(\d{2})-(\d{2})(?: [^\s\d>]+)?(?: (\d{1,2}:\d{2}(?:-\d{1,2}:\d{2})?))?"
    r"(?: ([.+]?\+\d+[hdwmy]))?>"
)


@record(frozen=True)
class Token:
    """One word, number, clock time, date or mark of an instruction, with its offsets."""

    kind: str
    text: str
    start: int
    end: int
    value: str = ""

    @cached_property  # the date grammar asks each token for it a hundred times
    def low(self) -> str:
        """Return the token's text lower-cased, curly apostrophe straight, no possessive.

        "next week's file", "friday's meeting": the possessive still names the day.
        """
        low = self.text.lower().replace("\u2019", "'")
        return low[:-2] if low.endswith("'s") and len(low) > 3 else low


def tokenize(text: str) -> list[Token]:
    """Return the tokens of ``text`` the date grammar reads, with their offsets."""
    tokens: list[Token] = []
    for match in TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind in ("clock_half", "half"):
            kind = "clock" if match.group("clock") else "hour"
        value = ""
        if kind == "clock":
            half = match.group("clock_half") or ""
            value = match.group("clock").replace("h", ":") + half.replace(".", "").lower()
        elif kind == "hour":
            value = match.group("hour") + match.group("half").replace(".", "").lower()
        elif kind == "ordinal":
            value = match.group("ordinal")
        tokens.append(Token(kind, match.group(0), match.start(), match.end(), value))
    return tokens
