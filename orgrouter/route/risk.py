"""Risk by meaning: which intents wait for the user's approval, and why."""

from __future__ import annotations

from orgrouter.route.intent import Intent
from orgrouter.route.rules import Rules


def retimes(verb: str, obj: str, rules: Rules) -> bool:
    """Return whether ``verb`` moves something in time ("move the standup to 10am")."""
    words = verb.split(" ")
    listed = verb in rules.retime_verbs or (bool(words) and words[0] in rules.retime_verbs)
    timed = rules.retime_when.search(obj) is not None
    return listed and timed and rules.retime_places.search(obj) is None


def risk_level(verb: str, rules: Rules) -> tuple[str, str] | None:
    """Return (level, the verb as listed) if ``verb`` is risky: the phrase, else its first word."""
    for key in (verb, verb.split(" ")[0]):
        level = rules.risk_verbs.get(key)
        if level is not None:
            return level, key
    return None


def mark_risk(intent: Intent, rules: Rules) -> None:
    """Mark ``intent`` for approval when what it does is risky or it writes outside the root.

    A todo only records what the user will do ("buy batteries", "call the bank"), and a
    reschedule only moves a date: neither acts on anything.
    """
    verb = intent.verb.lower()
    first = verb.split(" ")[0] if verb else ""
    risky = risk_level(verb, rules) if verb else None
    if risky is not None and intent.skill != "todo" and not retimes(verb, intent.object, rules):
        level, listed = risky
        intent.risk, intent.needs_approval = level, True
        intent.risk_reason = f"{listed!r} is a risky verb ({level} risk)"
    if first in rules.outside_verbs and rules.outside_paths.search(intent.object):
        intent.risk, intent.needs_approval = "high", True
        intent.risk_reason = "writes outside the notes root"
