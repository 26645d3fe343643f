"""The offline ``summarize`` skill: an extractive summary of the section.

The model-backed summarize (``orgrouter.skills.llm``) outranks this one when a backend
may be used; this one keeps the most representative sentences, in their order.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result, clarify
from orgrouter.skills.orgtext import read_prose, sentences

MAX_SENTENCES = 3
_LABEL = re.compile(r"^[\w ]{1,24}:(?:\s|$)")
_WORD = re.compile(r"[^\W\d_]{3,}")
_STOP_WORDS = (
    "about after again also and any are because been before being but can could did "
    "does for from had has have her here him his how into its just more most not now "
    "only other our out over same she should some such than that the their them then "
    "there these they this those through too under very was were what when where "
    "which while who will with would you your"
)
_STOP = frozenset(_STOP_WORDS.split())


class SummarizeSkill(BaseSkill):
    """Summarize the section by extraction, without a model."""

    name = "summarize"
    priority = 20

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the summary, or a clarification when the section has no prose."""
        picked = extract(ctx.subject())
        if not picked:
            return clarify(
                "Clarification needed: nothing to summarize",
                (
                    "The request's body and its parent section have no prose to "
                    "summarize. Put the request under the heading to summarize."
                ),
            )
        body = "\n".join(f"- {sentence}" for sentence in picked)
        if ctx.withheld():
            body += "\n\nPrivate subtree: summarized offline, nothing was sent to a model."
        return Emit((Result(title="Summary", body=body),))


def extract(section: str, limit: int = MAX_SENTENCES) -> list[str]:
    """Return up to ``limit`` of the section's most central sentences, in order."""
    prose = read_prose(section)
    # "Present: Alice, Bob" and "Action items:" label a list; they say little alone.
    said = [s for p in prose.paragraphs for s in sentences(p)]
    told = [s for s in said if not _LABEL.match(s)]
    candidates = told if len(told) >= limit else said
    if len(candidates) < limit:  # little prose: list items count as sentences too
        candidates += [item.text for item in prose.items if item.text]
    if len(candidates) <= limit:
        return candidates
    counts = Counter(w for s in candidates for w in _words(s))

    def score(sentence: str) -> float:
        words = _words(sentence)
        return sum(counts[w] for w in words) / math.sqrt(len(words)) if words else 0.0

    ranked = sorted(range(len(candidates)), key=lambda i: (-score(candidates[i]), i))
    return [candidates[i] for i in sorted(ranked[:limit])]


def _words(sentence: str) -> list[str]:
    """Return the content words of ``sentence``, lower-cased."""
    return [w for w in (m.lower() for m in _WORD.findall(sentence)) if w not in _STOP]


SKILL = SummarizeSkill()
