"""Split an instruction into ordered atomic intents, each with its exact source span.

Two halves: a lexer, written here, that reads the routing tables to decide which
word starts a clause and whether an "and" joins two clauses; and a small LALR grammar
(``decompose.lark``) for the structure: numbered steps, sequences, coordination and
delegation to named sub-agents. lark is imported on first use only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from orgrouter.route.rules import Phrase, Rules

if TYPE_CHECKING:
    from lark import Lark, Token, Tree

FAILED_TEXT = "Router failed to classify."

# Org blocks, fenced code, quoted text, Org links, =verbatim=, ~code~ and `code` are
# one opaque word each: the punctuation, lines and "and"s inside them split nothing
# ("translate "oui, ça va?" ...").
_OPAQUE = (
    r"(?ims:^[ \t]*\#\+begin_(?P<block>\w+)\b.*?^[ \t]*\#\+end_(?P=block)\b[^\n]*)"
    r"|(?s:```.*?```)|"
    r'"[^"\n]*"|“[^”\n]*”|\[\[[^\]\n]*\](?:\[[^\]\n]*\])?\]|`[^`\n]+`'
    r"|(?<![\w'])'[^'\n]+'(?![\w'])|(?<!\S)[=~][^\s=~][^\n]*?[=~](?=[\s,.;:!?)]|$)"
)
_RAW = re.compile(
    rf"(?P<opaque>{_OPAQUE})"
    r"|(?P<num>(?<!\S)\d{1,2}[.)](?=\s))"
    r"|(?P<mention>(?<![\w.@])@[^\W_][\w-]*)"
    r"|(?P<punct>[;!?\n,]|\.(?=\s|$)|:(?=\s|$))"
    r"|(?P<word>[^\s,;!?]+?)(?=[,;!?]|[.:](?=\s|$)|\s|$)"
)
_SENTENCE_END = frozenset(";.!?\n")


@dataclass(frozen=True)
class Raw:
    """One word, mention, step number or punctuation mark, with its offsets."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        """Return the text in lower case with curly apostrophes made straight."""
        return self.text.lower().replace("\u2019", "'")


@dataclass(frozen=True)
class Head:
    """How a clause's first words were read: the verb, its skill and how sure we are."""

    basis: str  # a key of the [confidence] table
    verb: str
    skill: str


@dataclass
class Intent:
    """One atomic intent: what to do, with which skill, and where it was written."""

    order: int
    skill: str
    verb: str
    object: str
    agent: str | None
    start: int
    end: int
    text: str
    basis: str
    confidence: float
    risk: str = "low"
    needs_approval: bool = False
    risk_reason: str | None = None
    depends_on: list[int] = field(default_factory=list)
    item: int | None = None  # index of the body list item it came from

    def to_json(self) -> dict[str, Any]:
        """Return the intent as the JSON object of ``orgrouter decompose --json``."""
        data: dict[str, Any] = {
            "order": self.order,
            "skill": self.skill,
            "verb": self.verb,
            "object": self.object,
            "agent": self.agent,
            "depends_on": list(self.depends_on),
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "basis": self.basis,
            "confidence": self.confidence,
            "risk": self.risk,
            "needs_approval": self.needs_approval,
            "risk_reason": self.risk_reason,
        }
        if self.item is not None:
            data["item"] = self.item
        return data

    def to_plist(self) -> dict[str, Any]:
        """Return the intent as the plist a ``:delegation`` stimulus carries."""
        from orgrouter.sexp import Keyword  # Lisp output is for the CLI and the seed

        data = {key.replace("_", "-"): value for key, value in self.to_json().items()}
        data["skill"] = Keyword(self.skill)
        data["risk"] = Keyword(self.risk)
        return data


@dataclass
class Decomposition:
    """An instruction's intents in order, and the shape they were written in."""

    text: str
    kind: str  # empty|greeting|compact|single|coordination|sequence|numbered|delegation|items
    intents: list[Intent]
    error: str | None = None  # why nothing could be read, when the grammar refused it
    context: list[str] = field(default_factory=list)  # statements that are not intents

    def to_json(self) -> dict[str, Any]:
        """Return the JSON of ``orgrouter decompose --json``."""
        return {
            "intents": [intent.to_json() for intent in self.intents],
            "kind": self.kind,
            "text": self.text,
            "context": list(self.context),
            "error": self.error,
        }

    def to_sexp(self) -> str:
        """Return what the seed's ``verify-skill-router`` consumes, as Lisp text."""
        from orgrouter.sexp import Keyword, dumps

        if not self.intents:
            log = {"type": Keyword("LOG"), "payload": {"text": FAILED_TEXT}}
            return dumps(log)
        if len(self.intents) == 1:
            one = {"type": Keyword("DELEGATION"), "payload": self.intents[0].to_plist()}
            return dumps(one)
        many = {
            "type": Keyword("MULTI-DELEGATION"),
            "intents": [intent.to_plist() for intent in self.intents],
        }
        return dumps(many)


def tokenize(text: str) -> list[Raw]:
    """Split ``text`` into words, mentions, step numbers and punctuation."""
    return [
        Raw(
            "word" if m.lastgroup in (None, "opaque") else m.lastgroup,
            m.group(),
            m.start(),
            m.end(),
        )
        for m in _RAW.finditer(text)
    ]


def _match(words: Sequence[str], at: int, phrases: Sequence[Phrase]) -> int:
    """Return how many words of the longest phrase matching at ``at`` (0 for none)."""
    for candidate in phrases:  # longest first
        if tuple(words[at : at + len(candidate)]) == candidate:
            return len(candidate)
    return 0


def _edits_within(a: str, b: str, limit: int) -> bool:
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


class _Lexer:
    """Turn raw tokens into the grammar's terminals, using the routing tables."""

    def __init__(self, raw: list[Raw], rules: Rules, selves: frozenset[str]) -> None:
        self.raw = raw
        self.rules = rules
        self.selves = selves
        # A step number that is not a step ("in 3. days") reads as a word.
        self.low = [token.low if token.kind in ("word", "num") else "\0" for token in raw]
        self.heads: dict[int, Head] = {}  # HEAD token start -> how it was read
        self.out: list[tuple[str, int, int]] = []
        self.steps = self._step_markers()

    def _step_markers(self) -> set[int]:
        """Return the raw indexes of "1)" "2)" ... markers, when the text is numbered."""
        markers: list[int] = []
        for index, token in enumerate(self.raw):
            if token.kind != "num":
                continue
            number = int(token.text[:-1])
            if number == len(markers) + 1:
                markers.append(index)
        return set(markers) if len(markers) >= 2 else set()

    def _emit(self, kind: str, start: int, end: int) -> None:
        if kind == "_SEQ" and (not self.out or self.out[-1][0] in ("_SEQ", "NUM")):
            return
        self.out.append((kind, start, end))

    def _block(self, at: int) -> bool:
        """Return whether the token at ``at`` is an Org block or fenced code."""
        return at < len(self.raw) and self.low[at].lstrip().startswith(("#+begin", "```"))

    def _is_word(self, at: int) -> bool:
        return at < len(self.raw) and self.low[at] != "\0"

    def _skip_fillers(self, at: int) -> int:
        while self._is_word(at):
            length = _match(self.low, at, self.rules.fillers)
            after = at + length
            if length and after < len(self.raw) and self.raw[after].text == ",":
                after += 1  # "first, summarize ..."
            mention = after < len(self.raw) and self.raw[after].kind == "mention"
            if not length or not (self._is_word(after) or mention):
                break
            at = after
        return at

    def _verb(self, at: int, strict: bool) -> tuple[int, Head] | None:
        """Read a verb phrase at ``at``; ``strict`` after "and", where nouns are likelier."""
        rules = self.rules
        for size in range(min(rules.max_phrase, len(self.low) - at), 0, -1):
            key = tuple(self.low[at : at + size])
            skill = rules.verbs.get(key)
            basis = "verb"
            if skill is None and key in rules.generic:
                skill, basis = rules.generic[key], "generic"
            if skill is None:
                continue
            if strict and size == 1 and key[0] in rules.ambiguous and not self._opens(at + 1):
                return None
            return size, Head(basis, " ".join(key), skill)
        return None

    def _opens(self, at: int) -> bool:
        """Return whether what is at ``at`` can only follow a verb (an object's start)."""
        if at >= len(self.raw) or self.raw[at].kind != "word":
            return True
        token = self.raw[at]
        return (
            self.low[at] in self.rules.determiners
            or token.text[:1] in "\"'“~=["
            or (token.text[:1].isdigit())
        )

    def _head(self, at: int) -> tuple[int, Head]:
        """Read the first words of a clause; always succeeds (``unknown`` at worst)."""
        found = self._verb(at, strict=False)
        if found is not None:
            return found
        word = self.low[at]
        asked = word.removesuffix("'s")  # "what's", "where's"
        if asked in self.rules.questions:
            return 1, Head("question", asked, self.rules.questions[asked])
        noun_at = at + 1 if word in self.rules.determiners and self._is_word(at + 1) else at
        for size in range(min(self.rules.max_phrase, len(self.low) - noun_at), 0, -1):
            skill = self.rules.nouns.get(tuple(self.low[noun_at : noun_at + size]))
            if skill is not None:
                return 0, Head("noun", "", skill)
        fuzzy = self._fuzzy(word)
        if fuzzy is not None:
            return 1, fuzzy
        return 1, Head("unknown", word, "ask")

    def _fuzzy(self, word: str) -> Head | None:
        """Return the verb ``word`` is a typo of, if it is near exactly one spelling."""
        if len(word) < 5 or not word.isalpha():
            return None
        for limit in (1, 2) if len(word) >= 8 else (1,):
            near = [
                (verb != skill, verb, skill, basis)  # the skill's own name first, then A-Z
                for verb, skill, basis in self.rules.spellings
                if abs(len(verb) - len(word)) <= limit and _edits_within(word, verb, limit)
            ]
            if near:
                _, verb, skill, basis = min(near)
                return Head(basis, verb, skill)
        return None

    def _delegation(self, at: int) -> int | None:
        """Return where the mention is if a delegation starts at ``at``, else None."""
        length = _match(self.low, at, self.rules.delegators)
        mention = at + length
        if (
            mention < len(self.raw)
            and self.raw[mention].kind == "mention"
            and (self.raw[mention].low[1:] not in self.selves)
        ):
            return mention
        return None

    def _join(self, at: int, in_delegation: bool) -> tuple[str, int] | None:
        """Classify "and"/"," at ``at``: a clause join, a new step, or None (object text)."""
        after = at + 1
        if self.raw[at].text == "," and self.low[after : after + 1] == ["and"]:
            after += 1
        step = _match(self.low, after, self.rules.sequence)
        if step and (self.raw[at].text == "," or self._step(after) is not None):
            return "_SEQ", after + step
        start = self._skip_fillers(after)
        if self._delegation(start) is not None:
            # "X and tell @writer to Y": a delegation after a plain clause is a new step.
            return ("_ANDAGENT" if in_delegation else "_SEQ"), after
        if self._is_word(start) and self._verb(start, strict=True) is not None:
            return "_AND", after
        return None

    def _step(self, at: int) -> tuple[str, int] | None:
        """Classify a sequence word ("then") inside a clause: a new step, or object text.

        Unless punctuation comes before it, it starts a step only when a verb follows,
        so "drops and then comes back" stays one clause.
        """
        after = at + _match(self.low, at, self.rules.sequence)
        start = self._skip_fillers(after)
        if self._is_word(start) and (
            self._verb(start, strict=False) is not None or self._fuzzy(self.low[start])
        ):
            return "_SEQ", after
        if self._delegation(start) is not None:
            return "_SEQ", after
        return None

    def run(self) -> list[tuple[str, int, int]]:
        """Return the terminals as (type, start, end) triples."""
        raw, at, clause_start, in_delegation = self.raw, 0, True, False
        while at < len(raw):
            token = raw[at]
            if at in self.steps:
                if self.out and self.out[-1][0] == "_SEQ":
                    self.out.pop()
                self.out.append(("NUM", token.start, token.end))
                at, clause_start, in_delegation = at + 1, True, False
                continue
            if self.steps and not self.out:
                at += 1  # "do these: 1) ... 2) ...": the preamble is not a step
                continue
            if token.text == "\n" and not clause_start and self._block(at + 1):
                at += 1  # "explain this:\n#+begin_src ...": the block is the clause's
                continue
            if token.kind == "punct" and (token.text in _SENTENCE_END):
                self._emit("_SEQ", token.start, token.end)
                at, clause_start, in_delegation = at + 1, True, False
                continue
            if clause_start:
                at, clause_start, in_delegation = self._clause_start(at, in_delegation)
                continue
            joined = None
            if token.text == "," or self.low[at] in ("and", "&", "plus"):
                joined = self._join(at, in_delegation)
            elif token.kind == "word" and _match(self.low, at, self.rules.sequence):
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
        if raw[at].kind == "punct":
            return at + 1, True, in_delegation
        if raw[at].kind == "mention" and raw[at].low[1:] in self.selves:
            return at + 1, True, in_delegation  # "@agent summarize": the address itself
        at = self._skip_fillers(at)  # "hey @coder, ...", "please ask @coder to ..."
        if at < len(raw) and raw[at].kind == "mention" and raw[at].low[1:] in self.selves:
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
        size, head = self._head(at)
        start = raw[at].start
        end = raw[at + size - 1].end if size else start
        self.heads[start] = head
        self._emit("HEAD", start, end)
        return at + size, False, in_delegation


@cache
def _parser() -> Lark:
    """Build the LALR parser once per process; lark is imported here, on first use."""
    from lark import Lark
    from lark.lexer import Lexer

    class _Feed(Lexer):
        """Hand lark the terminals our own lexer already made."""

        def __init__(self, conf: object) -> None:
            pass

        # lark's original one-argument interface: it hands over whatever was parsed.
        def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
            """Yield the prepared tokens unchanged."""
            yield from data

    grammar = resources.files("orgrouter.route").joinpath("decompose.lark").read_text("utf-8")
    return Lark(grammar, parser="lalr", lexer=_Feed)


class _Builder:
    """Turn the parse tree into intents, in order, with their dependencies."""

    def __init__(self, text: str, lexer: _Lexer, rules: Rules) -> None:
        self.text = text
        self.lexer = lexer
        self.rules = rules
        self.groups: list[list[Intent]] = []
        self.context: list[str] = []  # statements dropped as context
        self.delegated = False

    def build(self, tree: Tree[Token]) -> tuple[str, list[Intent]]:
        """Return the decomposition kind and its intents."""
        numbered = tree.children[0].data == "numbered"  # type: ignore[union-attr]
        # Depth first, left to right: document order (find_data promises no order).
        stack = [tree]
        while stack:
            node = stack.pop()
            if node.data == "group":
                self.groups.append(self._group(node))
                continue
            stack.extend(reversed([c for c in node.children if not isinstance(c, str)]))
        return self._finish(numbered)

    def build_plain(self, groups: list[list[_Clause]]) -> tuple[str, list[Intent]]:
        """Return the kind and intents of a plain ``sequence`` of ``coord`` groups.

        The same intents ``build`` makes of the tree lark parses from those terminals.
        """
        for clauses in groups:
            intents = [self._clause_at(head, words, None, None) for head, words in clauses]
            self.groups.append(_share_objects(intents))
        return self._finish(numbered=False)

    def _finish(self, numbered: bool) -> tuple[str, list[Intent]]:
        """Number the groups' intents, link each group to the one before, name the kind."""
        self._drop_context()
        intents: list[Intent] = []
        previous: list[int] = []
        for group_intents in self.groups:
            current = []
            for intent in group_intents:
                intent.order = len(intents) + 1
                intent.depends_on = list(previous)
                intents.append(intent)
                current.append(intent.order)
            previous = current or previous
        kind = (
            "numbered"
            if numbered
            else "delegation"
            if self.delegated
            else "sequence"
            if len(self.groups) > 1
            else "coordination"
            if len(intents) > 1
            else "single"
        )
        return kind, intents

    def _drop_context(self) -> None:
        """Drop statements ("It is used by the scheduler.") beside real instructions.

        A clause that starts with a subject word and holds no verb is context, not an
        intent; it is dropped only when another intent was understood, so a request that
        is only a statement still gets a clarification.
        """

        def context(intent: Intent) -> bool:
            return intent.basis == "unknown" and intent.verb in self.rules.subjects

        if any(not context(i) for group in self.groups for i in group):
            for group in self.groups:
                self.context.extend(i.text for i in group if context(i))
                group[:] = [i for i in group if not context(i)]
            self.groups = [group for group in self.groups if group]

    def _group(self, group: Tree[Token]) -> list[Intent]:
        node = group.children[0]
        assert not isinstance(node, str)
        if node.data == "coord":
            return self._coord(node, None, None)
        self.delegated = True
        intents: list[Intent] = []
        for delegation in node.children:
            assert not isinstance(delegation, str)
            by: Token | None = None
            agent = ""
            coord = None
            for child in delegation.children:
                if isinstance(child, str):
                    if child.type == "DELEGATE":
                        by = child
                    else:
                        agent = child[1:]
                else:
                    coord = child
            if coord is not None:
                intents.extend(self._coord(coord, agent, by))
            else:  # "ask @coder." : the sub-agent gets the request as written
                mention = delegation.children[-1]
                assert isinstance(mention, str)
                start = (by or mention).start_pos or 0
                intents.append(
                    self._intent(
                        Head("delegation", "ask", "ask"), start, mention.end_pos or start, "", agent
                    )
                )
        return intents

    def _coord(self, coord: Tree[Token], agent: str | None, by: Token | None) -> list[Intent]:
        intents = [self._clause(clause, agent, by) for clause in coord.children]  # type: ignore[arg-type]
        return _share_objects(intents)

    def _clause(self, clause: Tree[Token], agent: str | None, by: Token | None) -> Intent:
        head_token = clause.children[0]
        assert isinstance(head_token, str)
        words = [child for child in clause.children[1:] if isinstance(child, str)]
        head = (head_token.start_pos or 0, head_token.end_pos or 0)
        spans = [(word.start_pos or 0, word.end_pos or 0) for word in words]
        return self._clause_at(head, spans, agent, by)

    def _clause_at(
        self,
        head_span: tuple[int, int],
        words: list[tuple[int, int]],
        agent: str | None,
        by: Token | None,
    ) -> Intent:
        """Return the intent of one clause: its HEAD's span and its WORDs' spans."""
        start = head_span[0]
        head_end = head_span[1] or start
        end = (words[-1][1] if words else None) or head_end
        head = self.lexer.heads[start]
        obj = self.text[head_end:end].strip()
        if head.basis == "generic":
            head = self._by_noun(head, [self.text[a:b].lower() for a, b in words])
        if head.basis == "unknown" and self.text[end:].lstrip().startswith("?"):
            head = Head("question", head.verb, self.rules.questions.get(head.verb, "ask"))
        if agent is not None and head.basis in ("unknown", "noun", "question"):
            # "ask @coder about the build": the sub-agent gets the whole clause.
            verb = by.lower() if by is not None else "ask"
            head, obj = Head("delegation", verb, "ask"), self.text[start:end].strip()
        return self._intent(head, start, end, obj, agent)

    def _by_noun(self, head: Head, words: list[str]) -> Head:
        """Pick a generic verb's skill from the nouns of its object.

        What it is turned "into" (or made "as") decides first ("turn this email into a
        todo"); else the nouns before the first preposition ("create todos for X").
        """
        rules = self.rules
        for at, word in enumerate(words):
            if word in rules.targets:
                skill = self._noun_in(words[at + 1 :], stop=False)
                if skill is not None:
                    return Head("generic_noun", head.verb, skill)
        skill = self._noun_in(words, stop=True)
        return head if skill is None else Head("generic_noun", head.verb, skill)

    def _noun_in(self, words: list[str], stop: bool) -> str | None:
        """Return the skill of the first noun in ``words`` (up to a preposition if ``stop``)."""
        for at, word in enumerate(words):
            if stop and word in self.rules.prepositions:
                return None
            for size in range(min(self.rules.max_phrase, len(words) - at), 0, -1):
                skill = self.rules.nouns.get(tuple(words[at : at + size]))
                if skill is not None:
                    return skill
        return None

    def _intent(self, head: Head, start: int, end: int, obj: str, agent: str | None) -> Intent:
        rules = self.rules
        confidence = rules.confidence[head.basis]
        if agent is not None:
            confidence = max(confidence, rules.confidence["delegation"])
        intent = Intent(
            order=0,
            skill=head.skill,
            verb=head.verb,
            object=obj,
            agent=agent,
            start=start,
            end=end,
            text=self.text[start:end],
            basis=head.basis,
            confidence=confidence,
        )
        mark_risk(intent, rules)
        return intent


def _share_objects(intents: list[Intent]) -> list[Intent]:
    """Give a verb without an object the next one's ("summarize and tag this section")."""
    for index in range(len(intents) - 2, -1, -1):
        if not intents[index].object:
            intents[index].object = intents[index + 1].object
    return intents


# A clause as terminals: its HEAD's span and its WORDs' spans.
_Clause = tuple[tuple[int, int], list[tuple[int, int]]]


def plain_groups(terminals: Sequence[tuple[str, int, int]]) -> list[list[_Clause]] | None:
    """Return the groups of clauses of a plain instruction, or None for any other.

    Plain: only HEAD, WORD, _AND and _SEQ, as ``sequence: group (_SEQ group)*`` with
    each group a ``coord: clause (_AND clause)*`` and ``clause: HEAD WORD*`` (no
    numbered steps, no delegation). Most instructions are plain, and for them this
    is the whole grammar: the parse lark would make, without importing lark.
    Anything else (or a sequence the grammar refuses) goes to lark.
    """
    groups: list[list[_Clause]] = [[]]
    want_head = True
    for kind, start, end in terminals:
        if kind == "HEAD" and want_head:
            groups[-1].append(((start, end), []))
            want_head = False
        elif kind == "WORD" and not want_head:
            groups[-1][-1][1].append((start, end))
        elif kind in ("_AND", "_SEQ") and not want_head:
            if kind == "_SEQ":
                groups.append([])
            want_head = True
        else:
            return None
    return None if want_head else groups


def mark_risk(intent: Intent, rules: Rules) -> None:
    """Mark ``intent`` for approval when its verb is risky or it writes outside the root."""
    first = intent.verb.split(" ")[0] if intent.verb else ""
    verb = intent.verb if intent.verb in rules.risk_verbs else first  # "get rid of"
    level = rules.risk_verbs.get(verb)
    if level is not None:
        intent.risk, intent.needs_approval = level, True
        intent.risk_reason = f"{verb!r} is a risky verb ({level} risk)"
    if first in rules.outside_verbs and rules.outside_paths.search(intent.object):
        intent.risk, intent.needs_approval = "high", True
        intent.risk_reason = "writes outside the notes root"


def is_greeting(text: str, rules: Rules) -> bool:
    """Return whether ``text`` is only a greeting and courtesy words ("hi there!")."""
    rest, greeted = text.strip().lower(), False
    while rest:
        found = rules.greetings.match(rest)
        if found and found.end() and (found.end() == len(rest) or not rest[found.end()].isalnum()):
            rest, greeted = rest[found.end() :].lstrip(), True
            continue
        for word in rules.courtesy:
            if rest.startswith(word) and (
                len(word) == len(rest) or not word[-1].isalnum() or not rest[len(word)].isalnum()
            ):
                rest = rest[len(word) :].lstrip()
                break
        else:
            return False
    return greeted


def _whole(text: str, kind: str, skill: str, rules: Rules) -> Decomposition:
    """Return ``text`` as one intent of ``skill`` (a greeting or /compact)."""
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


def decompose(
    text: str, rules: Rules, *, selves: Sequence[str] = ("agent",), fast: bool = True
) -> Decomposition:
    """Split ``text`` into ordered atomic intents; ``selves`` are the agent's own names.

    ``fast`` reads plain instructions without lark (``plain_groups``); False parses
    every instruction with the grammar (the tests compare the two).
    """
    stripped = text.strip()
    if not stripped:
        return Decomposition(text, "empty", [])
    if rules.compact.fullmatch(stripped):
        return _whole(text, "compact", "compact", rules)
    if is_greeting(stripped, rules):
        return _whole(text, "greeting", "greet", rules)
    lexer = _Lexer(tokenize(text), rules, frozenset(name.lower() for name in selves))
    terminals = lexer.run()
    if not terminals:
        return Decomposition(text, "empty", [])
    plain = plain_groups(terminals) if fast else None
    if plain is not None:
        builder = _Builder(text, lexer, rules)
        kind, intents = builder.build_plain(plain)
        return Decomposition(text, kind, intents, context=builder.context)
    from lark import Token
    from lark.exceptions import LarkError

    tokens = [
        Token(kind, text[start:end], start_pos=start, end_pos=end) for kind, start, end in terminals
    ]
    try:
        tree = _parser().parse(tokens)  # type: ignore[arg-type,unused-ignore]  # tokens, not text
    except LarkError as error:
        # The lexer should never feed the grammar something it refuses; if it does,
        # the request is not understood (and so refused by the gate), never guessed.
        reason = str(error).splitlines()[0]
        return Decomposition(text, "empty", [], error=f"cannot parse the instruction: {reason}")
    builder = _Builder(text, lexer, rules)
    kind, intents = builder.build(tree)
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
