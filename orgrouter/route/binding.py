"""Approvals bind to content: the user approves exactly what was shown, nothing else.

A skill that does something risky (write a file the write policy holds, archive,
refile, delete) describes it as an ``Effect``: a subject and the items it will write,
each with the sha256 of its bytes. Asking for approval records the effect, and its
digest, in the approval headline's drawer (``ORGROUTER_APPROVES``) and in the state
database, and shows both in the body. When the user approves, the skill describes
what it would do *now* and calls ``require_approval`` again: only if the digest is the
same, and orgrouter asked that very approval in this note, does it go ahead; otherwise
a new approval is asked, saying what changed::

    from orgrouter.route.binding import Effect, require_approval

    effect = Effect.of("tangle notes/a.org", {"../out/run.sh": data})
    ask = require_approval(stimulus.payload, ctx, effect, reason="it writes outside ...")
    if ask is not None:
        return Emit((ask,))   # not approved, or approved something else: ask (again)
    ...                       # approved exactly this: do it

A note can carry an ``APPROVED`` headline its author wrote (a planted note, a shared
repository): without the state database's record of the digest orgrouter asked, it is
taken as a request for approval, never as one. The record is withdrawn once the
approval is used or rejected, so a copy of an old approval headline is no approval.
Without a state database (a library caller) only the drawer's digest is checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from orgrouter.config import AgentConfig
from orgrouter.io.text import sha256
from orgrouter.records import NamedTuple
from orgrouter.route.results import APPROVAL_KEY
from orgrouter.skills.base import Context, Result

if TYPE_CHECKING:
    from orgrouter.state import StateDB

DIGEST_KEY = "ORGROUTER_APPROVES"  # on approval results: sha256 of the effect approved
EFFECT_FIELD = "effect"  # key of the effect in the held intent (ORGROUTER_APPROVAL)
APPROVED_DIGEST = "approved_digest"  # payload key: the digest the approval's drawer holds
WAITING = "WAITING"
APPROVED_FLAG = "approved"  # payload key of a delegation the user approved
# What an approval headline keeps of the held intent: enough to run it, nothing more.
HELD_KEYS = ("order", "skill", "verb", "object", "agent", "text", "risk", "risk_reason",
             EFFECT_FIELD)  # fmt: skip
_AGAIN = "; asked again because "
_SCHEMA, _VERSION = "approvals", 1
_DDL = """
CREATE TABLE IF NOT EXISTS approvals_asked (
    note TEXT NOT NULL,
    digest TEXT NOT NULL,
    asked_at REAL NOT NULL,
    PRIMARY KEY (note, digest)
)
"""


class Effect(NamedTuple):
    """What an approved action will do: a subject and (item, sha256 of its bytes) pairs."""

    subject: str
    items: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, subject: str, contents: Mapping[str, bytes] | None = None) -> Effect:
        """Return the effect of writing ``contents`` (item name to bytes) for ``subject``."""
        given = (contents or {}).items()
        pairs = ((name, sha256(data).hexdigest()) for name, data in given)
        return cls(subject, tuple(sorted(pairs)))

    @property
    def digest(self) -> str:
        """Return the sha256 of the effect: subject, item names and their bytes' hashes."""
        import json  # most routes ask no approval; json stays off their start-up

        canonical = json.dumps([self.subject, [list(i) for i in self.items]], ensure_ascii=False)
        return sha256(canonical.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        """Return the effect as JSON data (kept in the approval's held intent)."""
        return {"subject": self.subject, "items": [list(item) for item in self.items]}

    @classmethod
    def from_json(cls, value: object) -> Effect | None:
        """Return the effect ``to_json`` gave, or None if ``value`` is not one."""
        if not isinstance(value, dict) or not isinstance(value.get("subject"), str):
            return None
        items = value.get("items", [])
        if not isinstance(items, list) or not all(
            isinstance(i, list) and len(i) == 2 and all(isinstance(s, str) for s in i)
            for i in items
        ):
            return None
        return cls(value["subject"], tuple((str(a), str(b)) for a, b in items))

    def lines(self) -> list[str]:
        """Return the body lines that show the effect (each item and the digest)."""
        shown = [f"- {name} (sha256 {sha[:12]})" for name, sha in self.items]
        return [f"- {self.subject}", *shown, f"Approval digest: {self.digest}"]

    def changes_since(self, approved: Effect) -> list[str]:
        """Return what differs from the ``approved`` effect, one phrase per change."""
        changes = []
        if self.subject != approved.subject:
            changes.append(f"the subject is now {self.subject!r} (was {approved.subject!r})")
        old, new = dict(approved.items), dict(self.items)
        changes += [f"{name} was added" for name in new if name not in old]
        changes += [f"{name} was dropped" for name in old if name not in new]
        changes += [f"{name} has other bytes" for name, sha in new.items()
                    if old.get(name, sha) != sha]
        return changes or ["the approval's record does not match what it shows"]


def approved_effect(payload: Mapping[str, Any]) -> Effect | None:
    """Return the effect the user approved in ``payload``, if its digest checks out."""
    effect = Effect.from_json(payload.get(EFFECT_FIELD))
    if effect is None or payload.get(APPROVED_DIGEST) != effect.digest:
        return None
    return effect


def require_approval(
    payload: Mapping[str, Any], ctx: Context, effect: Effect, reason: str
) -> Result | None:
    """Return None when the user approved exactly ``effect``; else the approval to ask.

    The new approval says what changed when an earlier one approved something else.
    """
    note = _note(ctx)
    changed: list[str] = []
    if payload.get(APPROVED_FLAG):
        approved = approved_effect(payload)
        if approved is None and not payload.get(APPROVED_DIGEST):
            changed = ["the approval holds no digest of what it approved (an older orgrouter "
                       "asked it, or it was written by hand)"]  # fmt: skip
        elif approved is None:
            changed = ["the approval's digest does not match the effect it holds"]
        elif approved.digest != effect.digest:
            changed = effect.changes_since(approved)
        elif ctx.state is not None and not _was_asked(ctx.state, note, effect.digest):
            changed = ["orgrouter has no record of asking this approval (a copied or "
                       "hand-written approval, or the state was reset)"]  # fmt: skip
        else:
            if not ctx.dry_run and ctx.state is not None:
                withdraw(ctx, effect.digest)  # one approval, one run: a copy of it is no approval
            return None
    if not ctx.dry_run and ctx.state is not None:
        reinstate(ctx.state, note, effect.digest)
    held = {k: v for k, v in payload.items() if k not in (APPROVED_FLAG, APPROVED_DIGEST)}
    held[EFFECT_FIELD] = effect.to_json()
    reason = reason.split(_AGAIN, 1)[0]  # a reason asked again keeps its first words
    held["risk_reason"] = reason + (_AGAIN + "; ".join(changed) if changed else "")
    return approval_result(held, ctx.config.agent, effect)


def withdraw(ctx: Context, digest: str) -> None:
    """Forget that orgrouter asked the approval ``digest`` in this note (used or rejected)."""
    db = ctx.state
    if db is None or ctx.dry_run or not digest:
        return
    db.ensure_schema(_SCHEMA, _VERSION, _DDL)
    with db.transaction() as conn:
        conn.execute(
            "DELETE FROM approvals_asked WHERE note = ? AND digest = ?", (_note(ctx), digest)
        )


def reinstate(db: StateDB, note: str, digest: str) -> None:
    """Record again that approval ``digest`` was asked in ``note``: its action was deferred.

    ``require_approval`` withdraws an approval as it lets it run; an action that then
    waits for a later run (a move whose target Emacs has open) puts it back, so the
    later run acts on the same approval instead of asking again.
    """
    import time

    db.ensure_schema(_SCHEMA, _VERSION, _DDL)
    with db.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO approvals_asked (note, digest, asked_at) VALUES (?, ?, ?)",
            (note, digest, time.time()),
        )


def _note(ctx: Context) -> str:
    path = ctx.request.path if ctx.request is not None else None
    return "" if path is None else str(path.resolve())


def _was_asked(db: StateDB, note: str, digest: str) -> bool:
    db.ensure_schema(_SCHEMA, _VERSION, _DDL)
    row = db.conn.execute(
        "SELECT 1 FROM approvals_asked WHERE note = ? AND digest = ?", (note, digest)
    ).fetchone()
    return row is not None


def intent_subject(payload: Mapping[str, Any]) -> str:
    """Return what a held intent without a skill's own effect approves: its words."""
    return f"{payload.get('text', '')} (by skill {payload.get('skill', '')})"


def approval_result(
    payload: Mapping[str, Any], agent: AgentConfig, effect: Effect | None = None
) -> Result:
    """Return the approval headline that holds ``payload`` until the user decides.

    ``effect`` is exactly what approving it permits (default: the intent's words); its
    digest goes into the drawer and the body, and the held intent keeps the effect.
    """
    import json  # most routes hold no approval; json stays off their start-up

    text = str(payload.get("text", ""))
    reason = payload.get("risk_reason") or f"{payload.get('verb', 'this')} is risky"
    effect = effect or Effect(subject=intent_subject(payload))
    held = {k: payload[k] for k in HELD_KEYS if payload.get(k) not in (None, "", [])}
    held[EFFECT_FIELD] = effect.to_json()
    shown = "\n".join(["It approves exactly this:", *effect.lines()])
    return Result(
        f"Approve: {text}",
        f"Held for approval: {reason}. Nothing has run.\n{shown}\n"
        f"To run it, change {WAITING} to {agent.approve_keyword} and route again; "
        f"{agent.reject_keyword} closes it. If what it does changes before then, "
        "orgrouter asks again.",
        kind="approval",
        todo=WAITING,
        properties=(
            (APPROVAL_KEY, json.dumps(held, ensure_ascii=False, sort_keys=True)),
            (DIGEST_KEY, effect.digest),
        ),
    )
