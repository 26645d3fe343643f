"""Split an instruction into ordered atomic intents, each with its exact source span.

The stages, one module each: ``segment`` (tokens, clauses, courtesy and framing, with
the verb lexicon of ``lexicon``), ``grammar`` (the structure: numbered steps,
sequences, coordination, delegation to named sub-agents), ``build`` (skills, context,
dependencies) and ``risk``. Greetings and ``/compact`` are read whole first.
"""

from __future__ import annotations

from collections.abc import Sequence

from orgrouter.route.build import Builder
from orgrouter.route.grammar import GrammarError, parse
from orgrouter.route.greeting import is_greeting
from orgrouter.route.intent import Decomposition, Intent
from orgrouter.route.risk import mark_risk
from orgrouter.route.rules import Rules
from orgrouter.route.segment import Segmenter

# What other modules take from here (the decomposer's whole interface).
__all__ = ["Decomposition", "Intent", "decompose", "decompose_items", "mark_risk"]


def _whole(text: str, kind: str, skill: str, rules: Rules) -> Decomposition:
    """Return ``text`` as one intent of ``skill`` (a greeting, /compact, or nothing read)."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    verb = text[start:end].split()[0].lower() if end > start else ""
    intent = Intent(
        order=1,
        skill=skill,
        verb=verb,
        object="",
        agent=None,
        start=start,
        end=end,
        text=text[start:end],
        basis=kind,
        confidence=rules.confidence[kind],
    )
    return Decomposition(text, kind, [intent])


def decompose(text: str, rules: Rules, *, selves: Sequence[str] = ("agent",)) -> Decomposition:
    """Split ``text`` into ordered atomic intents; ``selves`` are the agent's own names."""
    stripped = text.strip()
    if not stripped:
        return Decomposition(text, "empty", [])
    if rules.compact.fullmatch(stripped):
        return _whole(text, "compact", "compact", rules)
    names = frozenset(name.lower() for name in selves)
    if is_greeting(stripped, rules, names):
        return _whole(text, "greeting", "greet", rules)
    segmenter = Segmenter(text, rules, names)
    terminals = segmenter.run()
    if not terminals:
        # Only punctuation or addresses ("?", "@agent"): nothing to do, so ask.
        return Decomposition(text, "single", _whole(text, "unknown", "ask", rules).intents)
    try:
        parsed = parse(terminals)
    except GrammarError as error:
        # The segmenter should never feed the grammar something it refuses; if it does,
        # the request is not understood (and so refused by the gate), never guessed.
        return Decomposition(text, "empty", [], error=f"cannot parse the instruction: {error}")
    builder = Builder(text, segmenter, rules)
    kind, intents = builder.build(parsed)
    if builder.greeted and not intents:
        return _whole(text, "greeting", "greet", rules)
    return Decomposition(text, kind, intents, context=builder.context)


def decompose_items(
    items: Sequence[str], rules: Rules, *, selves: Sequence[str] = ("agent",)
) -> Decomposition:
    """Decompose body list items (independent of each other); spans are into each item."""
    intents: list[Intent] = []
    for index, item in enumerate(items):
        offset = len(intents)
        for intent in decompose(item, rules, selves=selves).intents:
            intent.item = index
            intent.order += offset
            intent.depends_on = [order + offset for order in intent.depends_on]
            intents.append(intent)
    return Decomposition("\n".join(items), "items" if intents else "empty", intents)
