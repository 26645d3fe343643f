"""The structure of an instruction, parsed from the segmenter's terminals.

The grammar (the only one; the segmenter folds runs of separators into one _SEQ and
never emits one first or last, so one token of look-ahead decides every step)::

    start:       numbered | sequence
    numbered:    (NUM sequence?)+                 "1) summarize this 2) create todos"
    sequence:    group (_SEQ group)*              "summarize this; then tag it"
    group:       coord | delegations
    coord:       clause (_AND clause)*            "summarize X and create todos for Y"
    clause:      HEAD WORD*
    delegations: delegation (_ANDAGENT delegation)*
    delegation:  DELEGATE? MENTION _TO? coord?    "ask @coder to refactor this"

Each group runs after the one before; the clauses of one group are independent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from orgrouter.errors import OrgRouterError
from orgrouter.records import NamedTuple

Span = tuple[int, int]
Terminal = tuple[str, int, int]
T = TypeVar("T")


class Clause(NamedTuple):
    """A HEAD and the WORDs after it."""

    head: Span
    words: tuple[Span, ...]


class Delegation(NamedTuple):
    """A sub-agent (MENTION), the word that hands it the task (DELEGATE), and the task."""

    by: Span | None
    mention: Span
    clauses: tuple[Clause, ...] | None


class Group(NamedTuple):
    """One step: coordinated clauses, or delegations to sub-agents."""

    clauses: tuple[Clause, ...] = ()
    delegations: tuple[Delegation, ...] = ()


class Parse(NamedTuple):
    """The groups in order, and whether they were numbered steps."""

    numbered: bool
    groups: tuple[Group, ...]


class GrammarError(OrgRouterError):
    """The terminals do not form an instruction (the segmenter should never allow it)."""

    exit_code = 3


class _Parser:
    def __init__(self, terminals: Sequence[Terminal]) -> None:
        self.terms = terminals
        self.at = 0

    def peek(self) -> str | None:
        return self.terms[self.at][0] if self.at < len(self.terms) else None

    def take(self, kind: str) -> Span:
        if self.peek() != kind:
            found = self.peek() or "the end"
            raise GrammarError(f"expected {kind} at terminal {self.at + 1}, found {found}")
        _, start, end = self.terms[self.at]
        self.at += 1
        return start, end

    def start(self) -> Parse:
        groups: list[Group] = []
        numbered = self.peek() == "NUM"
        if numbered:
            while self.peek() == "NUM":
                self.take("NUM")
                if self.peek() not in ("NUM", None):
                    groups.extend(self.sequence())
        else:
            groups.extend(self.sequence())
        if self.peek() is not None:
            raise GrammarError(f"unexpected {self.peek()} at terminal {self.at + 1}")
        return Parse(numbered, tuple(groups))

    def sequence(self) -> list[Group]:
        return self.separated(self.group, "_SEQ")

    def group(self) -> Group:
        if self.peek() in ("DELEGATE", "MENTION"):
            return Group(delegations=tuple(self.separated(self.delegation, "_ANDAGENT")))
        return Group(clauses=self.coord())

    def coord(self) -> tuple[Clause, ...]:
        return tuple(self.separated(self.clause, "_AND"))

    def separated(self, item: Callable[[], T], separator: str) -> list[T]:
        """Parse ``item (separator item)*``."""
        found = [item()]
        while self.peek() == separator:
            self.take(separator)
            found.append(item())
        return found

    def clause(self) -> Clause:
        head = self.take("HEAD")
        words = []
        while self.peek() == "WORD":
            words.append(self.take("WORD"))
        return Clause(head, tuple(words))

    def delegation(self) -> Delegation:
        by = self.take("DELEGATE") if self.peek() == "DELEGATE" else None
        mention = self.take("MENTION")
        if self.peek() == "_TO":
            self.take("_TO")
        clauses = self.coord() if self.peek() == "HEAD" else None
        return Delegation(by, mention, clauses)


def parse(terminals: Sequence[Terminal]) -> Parse:
    """Return the structure of ``terminals``; raise ``GrammarError`` if they form none."""
    return _Parser(terminals).start()
