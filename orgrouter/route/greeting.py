"""Greetings and courtesy: "hi there!", "thanks, that's perfect", "please and thank you"."""

from __future__ import annotations

from collections.abc import Iterable

from orgrouter.route.rules import Rules

# The agent's names -> (the courtesy table, its words and those names, longest first)
_WORDS: dict[frozenset[str], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def is_greeting(
    text: str, rules: Rules, selves: Iterable[str] = (), *, courtesy_only: bool = False
) -> bool:
    """Return whether ``text`` is only greetings and courtesy words ("hi there!").

    ``selves`` (the agent's own names) count as courtesy ("hi otto"). With
    ``courtesy_only``, courtesy alone is enough ("please", "ta"): a clause the
    decomposer drops beside a real request.
    """
    rest, greeted, polite = text.strip().lower().replace("\u2019", "'"), False, False
    names = frozenset(name.lower() for name in selves)
    held = _WORDS.get(names)
    if held is None or held[0] is not rules.courtesy:  # sorted once per run, not per request
        words = tuple(sorted({*rules.courtesy, *names}, key=len, reverse=True))
        held = _WORDS[names] = (rules.courtesy, words)
    words = held[1]
    while rest:
        found = rules.greetings.match(rest)
        if found and found.end() and (found.end() == len(rest) or not rest[found.end()].isalnum()):
            rest, greeted = rest[found.end() :].lstrip(), True
            if _thanks_for(found.group(0), rest, rules):
                return True  # "thanks for the summary yesterday": what for is courtesy too
            continue
        if not rest.startswith(words):  # one test in C: most requests start with no such word
            return False
        for word in words:
            if rest.startswith(word) and (
                len(word) == len(rest) or not word[-1].isalnum() or not rest[len(word)].isalnum()
            ):
                rest, polite = rest[len(word) :].lstrip(), polite or word[-1].isalnum()
                break
        else:
            return False
    return greeted or (courtesy_only and polite)


def _thanks_for(greeting: str, rest: str, rules: Rules) -> bool:
    """Return whether ``rest`` only says what ``greeting`` thanks for ("for the help").

    One phrase, no second clause: "thanks for the notes and tag it" is a request.
    """
    if not greeting.startswith(("thank", "thx", "cheers", "many thanks", "big thanks")):
        return False
    if not rest.startswith("for "):
        return False
    phrase = rest.rstrip(" .!")
    return not any(mark in phrase for mark in ",;:?.") and not set(phrase.split()) & rules.joiners
