"""The offline ``summarize`` skill: an extractive summary of the section.

The model-backed summarize (``orgrouter.skills.llm``) outranks this one when a backend
may be used; this one keeps the most representative sentences, in their order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Heading,
    Result,
    clarify,
    proposal_stimulus,
)
from orgrouter.skills.datewords import COUNTS
from orgrouter.skills.orgtext import Table, read_prose, sentences, tables
from orgrouter.skills.wording import word_set

MAX_SENTENCES = 3
MAX_ASKED = 10  # "in 50 bullet points" is no summary
_ASKED = re.compile(
    r"\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)[ -]"
    r"(?:\w+[ -])?(?:bullet points?|bullets?|points?|sentences?|lines?|ideas?|takeaways?|"
    r"things?|items?)\b",
    re.IGNORECASE,
)
_ONE_LINE = re.compile(r"\b(?:tl;?dr|one[- ]liner|in a (?:nutshell|sentence|line))\b", re.I)
_LABEL = re.compile(r"^[\w ]{1,24}:(?:\s|$)")
_WORD = re.compile(r"[^\W\d_]{3,}")
_STOP = word_set(
    "about after again also and any are because been before being but can could did "
    "does for from had has have her here him his how into its just more most not now "
    "only other our out over same she should some such than that the their them then "
    "there these they this those through too under very was were what when where "
    "which while who will with would you your"
)


class SummarizeSkill(BaseSkill):
    """Summarize the section by extraction, without a model."""

    name = "summarize"
    priority = 20

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the summary, or a clarification when the section has no prose."""
        request = ctx.request
        outline = request.outline if request is not None else ()
        subject = ctx.subject()
        stimulus = proposal_stimulus(proposal)
        said = [*extract(subject, asked_length(stimulus.text)), *table_lines(tables(subject))]
        picked = [*said, *outline_lines(outline, alone=not said)]
        if not picked:
            return clarify(
                "Clarification needed: nothing to summarize",
                "The request's body and its parent section have no prose to "
                "summarize. Put the request under the heading to summarize.",
            )
        body = "\n".join(f"- {sentence}" for sentence in picked)
        if ctx.withheld():
            body += "\n\nPrivate subtree: summarized offline, nothing was sent to a model."
        return Emit((Result(title="Summary", body=body),))


def asked_length(text: str) -> int:
    """Return how many points the request asks for ("in 5 bullets", "tl;dr": 1)."""
    if _ONE_LINE.search(text):
        return 1
    match = _ASKED.search(text)
    if match is None:
        return MAX_SENTENCES
    word = match.group(1).lower()
    count = COUNTS[word] if word in COUNTS else int(word)  # _ASKED: a digit, or one to ten
    return max(1, min(count, MAX_ASKED))


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


def table_lines(found: Sequence[Table], limit: int = 20) -> list[str]:
    """Return one line per table row: its first cell, then the others by column name."""
    lines: list[str] = []
    for table in found:
        for row in table.rows[:limit]:
            cells = [cell for cell in row if cell]
            if not cells:
                continue
            if table.header and len(table.header) == len(row):
                named = [f"{h}: {c}" if h else c for h, c in zip(table.header, row, strict=True)]
                rest = [text for text, cell in zip(named[1:], row[1:], strict=True) if cell]
            else:
                rest = cells[1:]
            lines.append(f"{row[0] or cells[0]}: {'; '.join(rest)}" if rest else cells[0])
    return lines


def outline_lines(outline: Sequence[Heading], *, alone: bool, limit: int = 20) -> list[str]:
    """Return the section's child headlines, grouped by TODO state ("DONE (3): a; b; c").

    A weekly review's content is its child headlines: what was done and what is open.
    A headline without a keyword brings its first sentence; one without either is
    named only when nothing else is said (``alone``: the section has no text either).
    """
    if not outline:
        return []
    top = min(heading.depth for heading in outline)
    groups: dict[str, list[str]] = {}
    told: list[str] = []  # "Notes: We decided to freeze features."
    bare: list[str] = []  # titles alone: said only when nothing else is
    for heading in (h for h in outline if h.depth == top):
        if heading.todo:
            groups.setdefault(heading.todo, []).append(heading.title)
            continue
        said = [s for p in read_prose(heading.body).paragraphs for s in sentences(p)]
        if said:
            told.append(f"{heading.title}: {said[0]}")
        else:
            bare.append(heading.title)
    lines = [f"{kw} ({len(titles)}): {'; '.join(titles[:limit])}" for kw, titles in groups.items()]
    if alone and not lines and not told:
        return bare[:limit]
    return lines + told[:limit]


def _words(sentence: str) -> list[str]:
    """Return the content words of ``sentence``, lower-cased."""
    return [w for w in (m.lower() for m in _WORD.findall(sentence)) if w not in _STOP]


SKILL = SummarizeSkill()
