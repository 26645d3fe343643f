"""Read verbs as people write them: phrases, phrasal verbs split by their object,
inflected forms ("condensing", "pulled out") and typos, against the routing tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orgrouter.route.intent import Head
from orgrouter.route.rules import Phrase, Rules

NOT_A_WORD = "\0"  # what punctuation reads as in a list of lower-case words
PARTICLE_WINDOW = 5  # how many words an object may hold before its particle ("boil it down")


def match(words: Sequence[str], at: int, phrases: Mapping[str, tuple[Phrase, ...]]) -> int:
    """Return how many words of the longest phrase matching at ``at`` (0 for none)."""
    for candidate in phrases.get(words[at], ()) if at < len(words) else ():
        if tuple(words[at : at + len(candidate)]) == candidate:
            return len(candidate)
    return 0


def base_forms(word: str) -> list[str]:
    """Return the base forms ``word`` may be an -ing or -ed form of ("jotting": "jot")."""
    forms: list[str] = []
    for suffix in ("ing", "ed"):
        stem = word.removesuffix(suffix)
        if stem == word or len(stem) < 2:
            continue
        forms.append(stem)
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.append(stem[:-1])  # "jotting", "tagging" (before "tagge")
        forms.append(stem + "e")
        if suffix == "ed" and stem.endswith("i"):
            forms.append(stem[:-1] + "y")  # "tidied"
    return forms


def verb_at(
    low: Sequence[str], at: int, rules: Rules, *, inflected: bool = False
) -> tuple[int, Head] | None:
    """Read a verb phrase at ``at``: contiguous, then split by its object ("boil it down").

    ``inflected`` also reads -ing and -ed forms ("would you mind condensing ...").
    Returns how many words the head takes and how it was read.
    """
    for first in (low[at], *(base_forms(low[at]) if inflected else ())):
        # A phrase first, then one split by its object, then the word alone: "tidy the
        # tasks away" is not "tidy".
        found = (
            _contiguous(low, at, rules, first, least=2)
            or _separated(low, at, rules, first)
            or _contiguous(low, at, rules, first, least=1)
        )
        if found is not None:
            return found
    return None


def _contiguous(
    low: Sequence[str], at: int, rules: Rules, first: str, least: int
) -> tuple[int, Head] | None:
    for size in range(min(rules.max_phrase, len(low) - at), least - 1, -1):
        key = (first, *low[at + 1 : at + size])
        skill = rules.verbs.get(key)
        basis = "verb"
        if skill is None and key in rules.generic:
            skill, basis = rules.generic[key], "generic"
        if skill is not None:
            return size, Head(basis, " ".join(key), skill)
    return None


def _separated(low: Sequence[str], at: int, rules: Rules, first: str) -> tuple[int, Head] | None:
    """Return the phrasal verb whose particle comes a few words after ``first``."""
    entries = rules.separable.get(first)
    if not entries:
        return None
    for later in range(at + 2, min(at + 2 + PARTICLE_WINDOW, len(low))):
        word = low[later]
        if word == NOT_A_WORD or word in rules.joiners:
            return None  # the particle belongs to this clause or to none
        for particle, skill, basis in entries:
            if word == particle:
                return 1, Head(basis, f"{first} {particle}", skill)
    return None


def edits_within(a: str, b: str, limit: int) -> bool:
    """Return whether ``a`` becomes ``b`` in at most ``limit`` edits (transpositions count 1)."""
    if abs(len(a) - len(b)) > limit:
        return False
    if limit == 1:
        return _one_edit(a, b)
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return False
        previous2, previous = previous, current
    return previous[-1] <= limit


def _one_edit(a: str, b: str) -> bool:
    """Return whether ``a`` and ``b`` differ by at most one edit or one swap (linear)."""
    if a == b:
        return True
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    if len(a) == len(b):
        if a[start + 1 :] == b[start + 1 :]:
            return True  # one substitution
        pair_a, pair_b = a[start : start + 2], b[start : start + 2]
        return a[start + 2 :] == b[start + 2 :] and pair_a == pair_b[::-1]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


def _swapped(a: str, b: str) -> bool:
    """Return whether ``a`` is ``b`` with two neighbouring letters swapped ("mkae")."""
    # One edit that keeps the letters (a substitution changes them) is a swap.
    return len(a) == len(b) and a != b and sorted(a) == sorted(b) and _one_edit(a, b)


def fuzzy(word: str, rules: Rules) -> Head | None:
    """Return the verb ``word`` is a typo of, if it is near exactly one spelling.

    Words of five letters or more may be one edit away (two from eight letters); a
    shorter word only by one doubled key ("ttag") or, at four letters, two swapped
    neighbours ("mkae"): any other edit of so short a word reaches too many others.
    """
    if len(word) < 4 or not word.isalpha():
        return None
    for at in range(1, len(word)):
        if word[at] == word[at - 1]:  # a doubled key ("ttag", "sennd")
            single = word[:at] + word[at + 1 :]
            if (single,) in rules.verbs:
                return Head("fuzzy", single, rules.verbs[(single,)])
            if (single,) in rules.generic:
                return Head("generic", single, rules.generic[(single,)])
    if len(word) == 4:
        near = sorted(
            (verb != skill, verb, skill, basis)
            for verb, skill, basis in rules.spellings.get(4, ())
            if _swapped(word, verb)
        )
        return Head(near[0][3], near[0][1], near[0][2]) if near else None
    for limit in (1, 2) if len(word) >= 8 else (1,):
        candidates = [
            (verb != skill, verb, skill, basis)  # the skill's own name first, then A-Z
            for size in range(len(word) - limit, len(word) + limit + 1)
            for verb, skill, basis in rules.spellings.get(size, ())
            if edits_within(word, verb, limit)
        ]
        if candidates:
            _, verb, skill, basis = min(candidates)
            return Head(basis, verb, skill)
    return None
