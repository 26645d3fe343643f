"""What the decomposer returns: atomic intents with their source spans, as JSON or Lisp."""

from __future__ import annotations

from typing import Any

from orgrouter.records import NamedTuple, field, record

FAILED_TEXT = "Router failed to classify."
# The keys of an intent's ``decompose --json`` object, in their contract order.
_JSON_KEYS = ("order", "skill", "verb", "object", "agent", "depends_on", "start", "end", "text",
              "basis", "confidence", "risk", "needs_approval", "risk_reason")  # fmt: skip


class Head(NamedTuple):
    """How a clause's first words were read: the verb, its skill and how sure we are."""

    basis: str  # a key of the [confidence] table
    verb: str
    skill: str


@record
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
        data = {key: getattr(self, key) for key in _JSON_KEYS}
        data["depends_on"] = list(self.depends_on)
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


@record
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
            return dumps({"type": Keyword("LOG"), "payload": {"text": FAILED_TEXT}})
        if len(self.intents) == 1:
            return dumps({"type": Keyword("DELEGATION"), "payload": self.intents[0].to_plist()})
        intents = [intent.to_plist() for intent in self.intents]
        return dumps({"type": Keyword("MULTI-DELEGATION"), "intents": intents})
