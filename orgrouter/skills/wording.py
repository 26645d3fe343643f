"""What is left of an instruction once its request words are gone: a todo's title.

"remind me to book the physio", "I must book the car's MOT - remind me", "block two
hours for revision", "recuérdame practicar ...": the words that ask (a reminder, an
obligation, a time block) are the request, not the thing to do. Both the ``todo``
and the ``schedule`` skill title their headline with what remains.
"""

from __future__ import annotations

import re

# A run of blanks, matched only from the run's start. A pattern searched for in a text
# is tried at every place in turn, and a leading \s+ (or \s*) read a long run of
# blanks again from each place inside it: quadratic in the run (20,000 blanks, a
# second per pattern). A match never starts inside a run where it could start at the
# run's start, so the matches are the same. Optional is ``{WS}?``.
WS = r"(?:(?<!\s)\s+)"

# Asking to be reminded, in the languages the notes here are written in.
REMIND = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would) you\s+)?"
    r"(?:remind me|don'?t let me forget|make sure I|rappelle-moi|recuérdame|"
    r"erinnere mich|herinner me eraan|ricordami)\s*"
    r"(?:(?:to|about|that|de|d'|daran,?|an|om|di)\s+)?",
    re.IGNORECASE,
)
# "I must", "we need to": the obligation is the request; the rest is the task.
_OBLIGATION = re.compile(
    r"^(?:I|we)\s+(?:must|need to|have to|should|ought to|want to|gotta|'ve got to|have got to)\s+",
    re.IGNORECASE,
)
# "... - remind me", "..., remind me please": a reminder asked for after the task.
_TRAILING_REMIND = re.compile(
    rf"{WS}?(?:[-–—,;:]\s*)?(?:please\s+)?(?:remind me|rappelle-moi|recuérdame)\b.*$", re.IGNORECASE
)
# "... in my calendar", "... to my agenda": where it goes, not what it is.
_CALENDAR = re.compile(
    rf"{WS}(?:in|into|to|on|onto)\s+(?:my|the|our)\s+(?:calendar|agenda|diary|planner|todo list)\b",
    re.IGNORECASE,
)
# "remind me on the 14th to pack": once the date is gone, "to" starts the title.
_INFINITIVE = re.compile(r"^to\s+(?=\S)", re.IGNORECASE)
# "block two hours for", "set aside an hour for": a time block around the task.
BLOCK = re.compile(
    r"^(?:block|set aside|reserve|make time|carve out|book)(?:\s+out)?"
    r"(?:\s+(?:an?|one|two|three|four|\d+|half an?)\s+(?:hours?|minutes?|mins?|days?))?"
    r"(?:\s+(?:of\s+)?time)?\s+for\s+",
    re.IGNORECASE,
)


def task_title(text: str) -> str:
    """Return what is to be done in ``text``, without the words that asked for it."""
    title = REMIND.sub("", text.strip(), count=1)
    title = _OBLIGATION.sub("", title, count=1)
    title = BLOCK.sub("", title, count=1)
    title = _INFINITIVE.sub("", title, count=1)
    title = _TRAILING_REMIND.sub("", title)
    title = _CALENDAR.sub("", title)
    return title.strip(" ,.;:-–—") or text.strip()


def stem(word: str) -> str:
    """Return ``word`` folded and without a plural ending ("curries" -> "curry")."""
    folded = word.casefold()
    if len(folded) > 4 and folded.endswith("ies"):
        return folded[:-3] + "y"
    if len(folded) > 4 and folded.endswith(("ches", "shes", "xes", "sses")):
        return folded[:-2]
    if len(folded) > 3 and folded.endswith("s") and not folded.endswith("ss"):
        return folded[:-1]
    return folded


def word_set(words: str) -> frozenset[str]:
    """Return the words of ``words`` (a table written as one string) as a set."""
    return frozenset(words.split())
