# [[file:../notes/skills/wordcount.org::*Module head][Module head:1]]
"""Word Count: prose words, reading time and code size of an Org section.

Tangled from notes/skills/wordcount.org; edit the note, not this file.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result, Sensor, Stimulus

WORDS_PER_MINUTE = 230
# Module head:1 ends here

# [[file:../notes/skills/wordcount.org::*Measuring Org text][Measuring Org text:1]]
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_BEGIN = re.compile(r"^[ \t]*#\+begin_src\b", re.IGNORECASE)
_END = re.compile(r"^[ \t]*#\+end_src\b", re.IGNORECASE)
_SKIP = re.compile(r"^[ \t]*(?:#\+\S*:|:[A-Za-z_+-]+:|(?:SCHEDULED|DEADLINE|CLOSED):)")


class Measure(NamedTuple):
    """How much there is to read in a section."""

    words: int
    blocks: int
    code_lines: int


def measure(text: str) -> Measure:
    """Return the prose words, code blocks and code lines of Org text."""
    words = blocks = code = 0
    in_block = False
    for line in text.splitlines():
        if in_block:
            if _END.match(line):
                in_block = False
            elif line.strip():
                code += 1
            continue
        if _BEGIN.match(line):
            in_block = True
            blocks += 1
            continue
        if _SKIP.match(line):
            continue
        words += len(_WORD.findall(line.lstrip("*")))
    return Measure(words, blocks, code)


def reading_minutes(words: int) -> int:
    """Return whole minutes to read WORDS at WORDS_PER_MINUTE."""
    return math.ceil(words / WORDS_PER_MINUTE)
# Measuring Org text:1 ends here

# [[file:../notes/skills/wordcount.org::*The skill][The skill:1]]
_ASKS = re.compile(r"\b(?:word ?count|count (?:the )?words|reading time|how long)", re.I)


class WordCountSkill(BaseSkill):
    """Answer with the section's words, reading time and code size."""

    name = "wordcount"
    priority = 40

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether the stimulus names this skill or asks for a count."""
        if stimulus.sensor != Sensor.DELEGATION:
            return False
        return self.delegated_to(stimulus) or bool(_ASKS.search(stimulus.text))

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return one result headline with the measures of ``ctx.subject()``."""
        found = measure(ctx.subject())
        minutes = reading_minutes(found.words)
        title = f"{found.words} words, about {minutes} min to read"
        body = (
            f"- prose words: {found.words}\n"
            f"- reading time: {minutes} min at {WORDS_PER_MINUTE} words a minute\n"
            f"- code: {found.code_lines} lines in {found.blocks} src blocks"
        )
        return Emit((Result(title=title, body=body),))
# The skill:1 ends here

# [[file:../notes/skills/wordcount.org::*Registration][Registration:1]]
SKILLS = [WordCountSkill()]
# Registration:1 ends here
