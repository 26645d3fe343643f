"""Segment an instruction into clauses: the terminals the grammar (``grammar.py``) reads.

The tokenizer makes words, mentions, step markers and punctuation; the segmenter
decides, with the routing tables, which word starts a clause (HEAD), whether an "and"
or a comma joins two clauses (_AND) or is part of an object ("pros and cons"), and
which words are courtesy and framing around the request ("would you mind ...",
"so I need ...", "Hi otto,"), never intents themselves.
"""

from __future__ import annotations

import bisect
import re

from orgrouter.org.blockspans import parsed_block_spans
from orgrouter.records import NamedTuple
from orgrouter.route.intent import Head
from orgrouter.route.lexicon import NOT_A_WORD, PARTICLE_WINDOW, fuzzy, match, verb_at
from orgrouter.route.rules import Rules

# Org blocks (found by blockspans), fenced code, quoted text, Org links, =verbatim=,
# ~code~ and `code` are one opaque word each: the punctuation, lines and "and"s inside
# them split nothing ("translate "oui, ça va?" ..."). So is "tl;dr", whose ";" separates
# nothing.
_OPAQUE = (
    r"(?s:```.*?```)|"
    r'"[^"\n]*"|“[^”\n]*”|\[\[[^\]\n]*\](?:\[[^\]\n]*\])?\]|`[^`\n]+`'
    r"|(?<![\w'])'[^'\n]+'(?![\w'])|(?<!\S)[=~][^\s=~][^\n]*?[=~](?=[\s,.;:!?)]|$)"
    r"|(?i:(?<!\S)tl;dr)"
)
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_INVISIBLE = dict.fromkeys(map(ord, "\ufeff\u200b\u200c\u200d\u2060"))  # BOM, zero widths
# What an object starts with, after an unknown verb ("then blorp it", "and frob the notes").
_OBJECT_STARTS = frozenset({"it", "them", "this", "that", "these", "those", "the", "a", "an",
                            "my", "our", "your", "all", "everything", "each", "every"})
_TIME_NOUNS = frozenset({"day", "next", "following", "week", "weekend", "morning", "evening",
                        "night", "month", "year", "same", "other"})
_SHORT = 12  # the most tokens of a clause read as courtesy or as a bare noun request
_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# Step markers: "1." "2)" "(3)" "a)" "(b)" "c." "i." "(ii)" "step 1:" "Step 2 -".
_MARKER = (
    r"(?<!\S)(?:(?i:step)\s*(?:\d{1,2}|(?i:one|two|three|four|five|six|seven|eight|nine|ten))"
    r"\s*(?:[:.)]|[-–—](?=\s))"
    r"|\(\d{1,2}\)|\d{1,2}[.)]|\#\d{1,2}|\d{1,2}\s+[-–—](?=\s)"
    r"|\([a-zA-Z]\)|[a-zA-Z][.)]|\((?i:[ivx]{1,4})\)|(?i:[ivx]{1,4})[.)])"
    r"(?=\s)"
)
_RAW = re.compile(
    rf"(?P<opaque>{_OPAQUE})"
    rf"|(?P<num>{_MARKER})"
    r"|(?P<mention>(?<![\w.@])@[^\W_][\w-]*)"
    r"|(?P<stop>(?<!\S)(?::-?[)(D]|;-?\)|<3)(?=\s|$)|(?<=\s)(?:--|[-–—])(?=\s))"
    r"|(?P<punct>[;!?\n,]|\.(?=\s|$)|:(?=\s|$))"
    r"|(?P<word>[^\s,;!?]+?)(?=[,;!?]|[.:](?=\s|$)|\s|$)"
)
# Words after a comma that leave a noun as its own request: "sum up, todos after".
_AFTERWARDS = frozenset({"after", "afterwards", "next", "too", "then", "later", "also",
                         "as well", "please", "pls"})


class Raw(NamedTuple):
    """One word, mention, step marker or punctuation mark, with its offsets."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        """Return the text in lower case, curly apostrophes straight, invisible marks gone."""
        return self.text.lower().replace("\u2019", "'").translate(_INVISIBLE)


def tokenize(text: str) -> list[Raw]:
    """Split ``text`` into words, mentions, step markers and punctuation."""
    tokens = []
    # Each block Org parses, without its closing line's LF, unless fenced code holds it.
    blocks = [(b.begin, b.end - text.endswith("\n", 0, b.end))
              for b in reversed(parsed_block_spans(text, body=True))]
    position = 0
    while True:
        while blocks and blocks[-1][0] < position:
            blocks.pop()  # inside a block or a fence already read
        m = _RAW.search(text, position)
        if blocks and (m is None or m.start() >= blocks[-1][0]):
            start, position = blocks.pop()
            tokens.append(Raw("word", text[start:position], start, position))
            continue
        if m is None:
            return tokens
        position = m.end()
        kind = m.lastgroup
        if kind in (None, "opaque"):
            kind = "word"
        elif kind == "stop":
            kind = "punct"
        tokens.append(Raw(kind, m.group(), m.start(), m.end()))


def ordinals(marker: str) -> set[int]:
    """Return the step numbers a marker may stand for ("i." is 1 as a numeral, 9 as a letter)."""
    core = re.sub(r"(?i)^step\s*", "", marker).strip("#().:-–— \t").lower()
    found = set()
    if core.isdigit():
        found.add(int(core))
    if len(core) == 1 and core.isalpha():
        found.add(ord(core) - ord("a") + 1)
    if core in _NUMBERS:
        found.add(_NUMBERS.index(core) + 1)
    if core in _ROMAN:
        found.add(_ROMAN.index(core) + 1)
    return found


class Segmenter:
    """Turn raw tokens into the grammar's terminals, using the routing tables."""

    def __init__(self, text: str, rules: Rules, selves: frozenset[str]) -> None:
        self.text = text
        self.folded = text.replace("\u2019", "'")  # for the frame patterns (same offsets)
        self.raw = raw = tokenize(text)
        self.rules = rules
        self.selves = selves
        # A step marker that is not a step ("in 3. days", "a. b.") reads as a word.
        self.low = [t.low if t.kind in ("word", "num") else NOT_A_WORD for t in raw]
        self.heads: dict[int, Head] = {}  # HEAD token start -> how it was read
        # HEAD token start -> the span of its verb, when the verb comes later in the
        # clause ("tomorrow morning remind me to ...", "I need X pulled out")
        self.late_verbs: dict[int, tuple[int, int]] = {}
        self.particles: dict[int, tuple[int, int]] = {}  # HEAD start -> its particle's span
        self.out: list[tuple[str, int, int]] = []
        self.steps = self._step_markers()
        self.list_skill: str | None = None  # "To do: 1) ... 2) ...": what every step is
        self.inflected = False  # the current clause's verb was an -ing/-ed form

    def _step_markers(self) -> set[int]:
        """Return the raw indexes of the step markers, when the text is numbered."""
        markers: list[int] = []
        for index, token in enumerate(self.raw):
            if token.kind == "num" and len(markers) + 1 in ordinals(token.text):
                markers.append(index)
        return set(markers) if len(markers) >= 2 else set()  # one "1." numbers nothing

    def _emit(self, kind: str, start: int, end: int) -> None:
        if kind == "_SEQ" and (not self.out or self.out[-1][0] in ("_SEQ", "NUM")):
            return
        self.out.append((kind, start, end))

    def _block(self, at: int) -> bool:
        """Return whether the token at ``at`` is an Org block or fenced code."""
        return at < len(self.raw) and self.low[at].lstrip().startswith(("#+begin", "```"))

    def _is_word(self, at: int) -> bool:
        return at < len(self.raw) and self.low[at] != NOT_A_WORD

    def _symbol(self, at: int) -> bool:
        """Return whether the word at ``at`` is only symbols ("👍", "***"), not a joiner."""
        word = self.low[at]
        return not any(char.isalnum() for char in word) and word not in self.rules.joiners

    def _mention(self, at: int, *, other: bool) -> bool:
        """Return whether ``at`` is a mention (of a sub-agent, when ``other``)."""
        if at >= len(self.raw) or self.raw[at].kind != "mention":
            return False
        return not other or self.raw[at].low[1:] not in self.selves

    def _frame(self, at: int, pattern: re.Pattern[str]) -> int:
        """Return the index after a request frame starting at ``at`` (``at`` if none)."""
        found = pattern.match(self.folded, self.raw[at].start)
        if found is None:
            return at
        return bisect.bisect_left(self.raw, found.end(), lo=at, key=lambda token: token.start)

    def _skip_fillers(self, at: int) -> tuple[int, bool]:
        """Skip courtesy, framing and the agent's own name; return (index, desire frame?).

        A desire frame ("I need", "it would be great to have") says a noun or a
        participle may name the intent instead of a verb.
        """
        desire = False
        while self._is_word(at):
            after = max(
                at + match(self.low, at, self.rules.fillers),
                self._frame(at, self.rules.courtesy_frames),
            )
            if after == at and (self.low[at] in self.selves or self._symbol(at)):
                after = at + 1  # "hi otto, ...", "👍 summarize this"
            if after == at and self.low[at] in ("can", "could", "would", "will"):
                after = at + 1 if self._mention(at + 1, other=True) else at  # "could @writer"
            wanted = False
            if after == at:
                after = self._frame(at, self.rules.desire_frames)
                wanted = after > at
            if after < len(self.raw) and self.raw[after].text in (",", ":") and after > at:
                after += 1  # "first, summarize ...", "long story short: ..."
            if after == at or not (self._is_word(after) or self._mention(after, other=False)):
                break
            at, desire = after, desire or wanted
        return at, desire

    def _verb(self, at: int, strict: bool, inflected: bool = False) -> tuple[int, Head] | None:
        """Read a verb phrase at ``at``; ``strict`` after "and", where nouns are likelier.

        ``inflected`` also reads -ing/-ed forms: after a frame ("would you mind
        condensing"), or after "and" when the clause before was one ("pulled out and
        turned into todos").
        """
        found = verb_at(self.low, at, self.rules, inflected=inflected)
        if found is None:
            return None
        ambiguous = found[0] == 1 and self.low[at] in self.rules.ambiguous
        if strict and ambiguous and not self._opens(at + 1):
            return None
        return found

    def _opens(self, at: int) -> bool:
        """Return whether what is at ``at`` can only follow a verb (an object's start)."""
        if at >= len(self.raw) or self.raw[at].kind != "word":
            return True
        token = self.raw[at]
        return (
            self.low[at] in self.rules.determiners
            or token.text[:1] in "\"'“~=[:"
            or (token.text[:1].isdigit())
        )

    def _noun(self, at: int) -> str | None:
        """Return the skill of a noun phrase at ``at`` (after one determiner), if any.

        Not when a statement's verb follows it: "the meeting ran long" is no meeting
        to schedule.
        """
        rules = self.rules
        noun_at = at + 1 if self.low[at] in rules.determiners and self._is_word(at + 1) else at
        for size in range(min(rules.max_phrase, len(self.low) - noun_at), 0, -1):
            skill = rules.nouns.get(tuple(self.low[noun_at : noun_at + size]))
            if skill is not None:
                after = self.low[noun_at + size : noun_at + size + 1]
                return None if after and after[0] in rules.statement_verbs else skill
        return None

    def _head(self, at: int, desire: bool, framed: bool) -> tuple[int, Head]:
        """Read the first words of a clause; always succeeds (``unknown`` at worst)."""
        found = self._verb(at, strict=False, inflected=framed)
        if found is not None:
            self.inflected = self.low[at] != found[1].verb.split(" ")[0]
            self._particle(at, found)
            return found
        word = self.low[at]
        asked = word.removesuffix("'s")  # "what's", "where's"
        if asked in self.rules.questions and not desire:
            return 1, Head("question", asked, self.rules.questions[asked])
        skill = self._noun(at)
        if skill is not None:
            return 0, Head("noun", "", skill)
        typo = fuzzy(word, self.rules)
        if typo is not None:
            return 1, typo
        if desire:
            wanted = self._wanted(at)
            if wanted is not None:
                return 1, wanted
        if word in self.rules.time_openers:
            later = self._after_time(at)
            if later is not None:
                return 1, later
        return 1, Head("unknown", word, "ask")

    def _after_time(self, at: int) -> Head | None:
        """Return the verb after a time phrase that opens a clause ("every monday at 7 ...").

        Only a time phrase: it names a time and holds no article ("this is a bit of a
        mess" is no time).
        """
        rules = self.rules
        for later in range(at + 1, min(len(self.raw), at + _SHORT)):
            word = self.low[later]
            if word == NOT_A_WORD or word in rules.joiners or word in ("a", "an", "the"):
                return None
            found = verb_at(self.low, later, rules)
            if found is not None and found[1].basis == "verb":
                phrase = self.text[self.raw[at].start : self.raw[later].start]
                return self._late(at, later, found) if rules.retime_when.search(phrase) else None
        return None

    def _wanted(self, at: int) -> Head | None:
        """Read what a desire frame asks for: "I need a polite note", "... pulled out"."""
        rules = self.rules
        for later in range(at, min(len(self.raw), at + _SHORT)):
            word = self.low[later]
            if word == NOT_A_WORD or (later > at and word in rules.joiners):
                return None
            skill = self._noun(later)
            if skill is not None:
                return Head("noun", "", skill)
            found = verb_at(self.low, later, rules, inflected=True)
            if found is not None and found[1].verb.split(" ")[0] != word:
                self.inflected = True  # "pulled out" (a base form would be a new clause)
                return self._late(at, later, found)
        return None

    def _particle(self, at: int, found: tuple[int, Head]) -> None:
        """Record where a split phrasal verb's particle is ("boil it down"): not object text."""
        size, head = found
        words = head.verb.split(" ")
        if size != 1 or len(words) != 2:
            return
        for later in range(at + 2, min(len(self.raw), at + 2 + PARTICLE_WINDOW)):
            if self.low[later] == words[1]:
                self.particles[self.raw[at].start] = (self.raw[later].start, self.raw[later].end)
                return

    def _late(self, at: int, later: int, found: tuple[int, Head]) -> Head:
        """Record that the clause at ``at`` has its verb at ``later``; return the verb."""
        size, head = found
        span = (self.raw[later].start, self.raw[later + size - 1].end)
        self.late_verbs[self.raw[at].start] = span
        return head

    def _delegation(self, at: int) -> int | None:
        """Return where the mention is if a delegation starts at ``at``, else None."""
        mention = at + match(self.low, at, self.rules.delegators)
        return mention if self._mention(mention, other=True) else None

    def _sentence_rest(self, at: int) -> tuple[int, str]:
        """Return where the sentence containing ``at`` ends and its text from ``at``.

        Only a short rest matters (courtesy, "todos after"): a longer one is read as
        empty, so a long run of commas costs linear time.
        """
        end = at
        while end < len(self.raw) and not (
            self.raw[end].kind == "punct" and self.raw[end].text not in (",", ":")
        ):
            end += 1
            if end - at > _SHORT:
                return at, ""
        if at >= len(self.raw):
            return end, ""
        stop = self.raw[end - 1].end if end > at else self.raw[at].start
        return end, self.text[self.raw[at].start : stop]

    def _join(self, at: int, in_delegation: bool) -> tuple[str, int] | None:
        """Classify "and"/"," at ``at``: a clause join, a new step, or None (object text)."""
        from orgrouter.route.greeting import is_greeting

        comma = self.raw[at].text == ","
        after = at + 1
        if comma and self.low[after : after + 1] == ["and"]:
            after += 1
        step = match(self.low, after, self.rules.sequence)
        if step and (comma or self._step(after) is not None):
            return "_SEQ", after + step
        if comma:
            _, rest = self._sentence_rest(after)
            if rest and is_greeting(rest, self.rules, self.selves, courtesy_only=True):
                return "_SEQ", after  # "..., thanks!": courtesy, its own clause
        if comma and self._noun_request(after):
            return "_SEQ", after
        if self.low[at] == "+" and self._noun(after) is not None:
            return "_SEQ", after  # "recap + todos": terse notes join what they want by "+"
        start, desire = self._skip_fillers(after)
        if self._delegation(start) is not None:
            # "X and tell @writer to Y": a delegation after a plain clause is a new step.
            return ("_ANDAGENT" if in_delegation else "_SEQ"), after
        if not self._is_word(start):
            return None
        if self._verb(start, strict=True, inflected=self.inflected) is not None:
            return "_AND", after
        framed = start > after and self._frame(after, self.rules.courtesy_frames) > after
        if desire or framed:
            return "_AND", after  # "..., so I need a polite note", "..., any chance you could"
        plain = self.low[at] in ("and", ",", "&", "+")
        if plain and (self._typo(start) or self._unknown_verb(start)):
            return "_AND", after  # "sumarize and mkae todos", "summarize it and blorp the rest"
        return None

    def _unknown_verb(self, at: int) -> bool:
        """Return whether an unknown word after "then" reads as a verb ("then blorp it").

        A bare form (not "comes", "dropped", "going") with an object's start after it:
        kept as its own clause, so the clarification names it instead of an object
        swallowing it.
        """
        word, rules = self.low[at], self.rules
        known = (rules.determiners, rules.prepositions, rules.subjects, rules.questions)
        if not word.isalpha() or len(word) < 3 or any(word in table for table in known):
            return False
        if word.endswith(("s", "ed", "ing")) or self._noun(at) is not None:
            return False
        if self.raw[at].text[:1].isupper():
            return False  # "Ana and Tom the plumber": a name
        if self.low[at + 2 : at + 3] and self.low[at + 2] in _TIME_NOUNS:
            return False  # "milk, eggs and butter the day before"
        return self._is_word(at + 1) and self.low[at + 1] in _OBJECT_STARTS

    def _typo(self, at: int) -> bool:
        """Return whether the word at ``at`` after "and" is a misspelt verb ("mkae").

        Stricter than at a clause's start, where a verb is expected: the same length and
        first letter ("milk and bread" is no "read"), and not a verb already.
        """
        word = self.low[at]
        typo = fuzzy(word, self.rules)
        return (
            typo is not None
            and typo.verb != word
            and len(typo.verb) == len(word)
            and typo.verb[0] == word[0]
        )

    def _noun_request(self, at: int) -> bool:
        """Return whether a comma's clause is a noun and "after" ("sum up, todos after")."""
        end, _ = self._sentence_rest(at)
        words = self.low[at:end]
        if not words or self._noun(at) is None:
            return False
        tail = [w for w in words[1:] if w in _AFTERWARDS]
        return len(words) <= 3 and bool(tail) and len(tail) == len(words) - 1

    def _step(self, at: int) -> tuple[str, int] | None:
        """Classify a sequence word ("then") inside a clause: a new step, or object text.

        Unless punctuation comes before it, it starts a step only when a verb follows,
        so "drops and then comes back" stays one clause.
        """
        after = at + match(self.low, at, self.rules.sequence)
        start, _ = self._skip_fillers(after)
        if self._is_word(start) and (
            self._verb(start, strict=False) is not None
            or fuzzy(self.low[start], self.rules)
            or self._unknown_verb(start)
        ):
            return "_SEQ", after
        if self._delegation(start) is not None:
            return "_SEQ", after
        return None

    def _joiner(self, terminal: tuple[str, int, int]) -> bool:
        kind, start, end = terminal
        return kind == "WORD" and self.text[start:end].lower() in self.rules.joiners

    def _preamble(self, upto: int) -> None:
        """Read "To do: 1) ... 2) ...": a preamble naming a kind makes every step one."""
        words = [w for w in self.low[:upto] if w != NOT_A_WORD]
        if 0 < len(words) <= 3:
            key = tuple(words)
            skill = self.rules.nouns.get(key) or self.rules.verbs.get(key)
            if skill in self.rules.outputs:
                self.list_skill = skill

    def run(self) -> list[tuple[str, int, int]]:
        """Return the terminals as (type, start, end) triples."""
        raw, at, clause_start, in_delegation = self.raw, 0, True, False
        while at < len(raw):
            token = raw[at]
            if at in self.steps:
                if not self.out:
                    self._preamble(at)
                while self.out and (self.out[-1][0] == "_SEQ" or self._joiner(self.out[-1])):
                    self.out.pop()  # "(a) call the garage and (b) ...": the "and" is no object
                self.out.append(("NUM", token.start, token.end))
                at, clause_start, in_delegation = at + 1, True, False
                continue
            if self.steps and not self.out:
                at += 1  # "do these: 1) ... 2) ...": the preamble is not a step
                continue
            if token.text == "\n" and not clause_start and self._block(at + 1):
                at += 1  # "explain this:\n#+begin_src ...": the block is the clause's
                continue
            if token.kind == "punct" and token.text not in (",", ":"):
                self._emit("_SEQ", token.start, token.end)
                at, clause_start, in_delegation = at + 1, True, False
                continue
            if clause_start:
                at, clause_start, in_delegation = self._clause_start(at, in_delegation)
                continue
            joined = None
            if token.text == "," or self.low[at] in self.rules.joiners:
                joined = self._join(at, in_delegation)
            elif token.kind == "word" and match(self.low, at, self.rules.sequence):
                joined = self._step(at)
            if joined is not None:
                kind, at = joined
                self._emit(kind, token.start, token.end)
                clause_start = True
                in_delegation = in_delegation and kind != "_SEQ"
                continue
            self._emit("WORD", token.start, token.end)
            at += 1
        while self.out and self.out[-1][0] in ("_SEQ", "NUM"):
            self.out.pop()
        return self.out

    def _clause_start(self, at: int, in_delegation: bool) -> tuple[int, bool, bool]:
        """Emit what starts a clause at ``at``; return (next index, clause_start, in_deleg)."""
        raw, begin = self.raw, at
        carried, self.inflected = self.inflected, False  # "pulled out and turned into"
        if raw[at].kind == "punct":
            return at + 1, True, in_delegation
        if self._mention(at, other=False) and raw[at].low[1:] in self.selves:
            return at + 1, True, in_delegation  # "@agent summarize": the address itself
        at, desire = self._skip_fillers(at)  # "hey @coder, ...", "please ask @coder to ..."
        if self._mention(at, other=False) and raw[at].low[1:] in self.selves:
            return at + 1, True, in_delegation
        mention = self._delegation(at)
        after_mention = bool(self.out) and self.out[-1][0] in ("MENTION", "_TO", "DELEGATE")
        if mention is not None and after_mention:
            # "@a @b": only the first names the sub-agent; the second is what it is told.
            self.heads[raw[at].start] = Head("unknown", raw[at].low, "ask")
            self._emit("HEAD", raw[at].start, raw[at].end)
            return at + 1, False, in_delegation
        if mention is not None:
            if mention > at:
                self._emit("DELEGATE", raw[at].start, raw[mention - 1].end)
            self._emit("MENTION", raw[mention].start, raw[mention].end)
            at = mention + 1
            if at < len(raw) and (self.low[at] in ("to", ",") or raw[at].text in (":", ",")):
                self._emit("_TO", raw[at].start, raw[at].end)
                at += 1
            return at, True, True
        if not self._is_word(at):
            return max(at, begin + 1), True, in_delegation  # always move on
        size, head = self._head(at, desire, framed=at > begin or carried)
        start = raw[at].start
        end = raw[at + size - 1].end if size else start
        self.heads[start] = head
        self._emit("HEAD", start, end)
        return at + size, False, in_delegation
