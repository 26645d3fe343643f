"""Decomposition by a model, checked by the symbolic stage (seed 003's router).

The model proposes intents as a Lisp plist or JSON; every intent is validated here
(a known skill, sane text and arguments, grounded in the request) and vetoed when it
is not. When nothing usable is left, the rules decomposer answers instead and the
outcome says why, so a bad reply never becomes an action.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Message, NeuroBackend
from orgrouter.neuro.budget import BudgetReached
from orgrouter.neuro.prompts import skill_prompt
from orgrouter.route.decompose import Intent, decompose, mark_risk
from orgrouter.route.rules import Rules
from orgrouter.sexp import Keyword, Symbol

Proposed = dict[str, Any]  # one intent as the model wrote it, keys lower-case
ReplyFormat = Literal["plist", "json"]

MAX_INTENTS = 10
MAX_TEXT = 500
_AGENT = re.compile(r"^@?[\w-]{1,40}$")
_WORD = re.compile(r"\w{3,}")
_JSON_FENCE = re.compile(r"```[\w-]*[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class DecomposeOutcome:
    """The intents to delegate, who decided them, and what was vetoed and why."""

    intents: tuple[Intent, ...]
    source: Literal["model", "rules"]
    notes: tuple[str, ...] = ()
    vetoed: tuple[tuple[Proposed, str], ...] = field(default=())


def model_decompose(
    backend: NeuroBackend,
    instruction: str,
    known_skills: Collection[str],
    *,
    rules: Rules,
    selves: Sequence[str] = ("agent",),
    reply_format: ReplyFormat = "plist",
) -> DecomposeOutcome:
    """Ask ``backend`` to split ``instruction``; validate, else use the rules decomposer.

    Accepted intents are marked for risk exactly as rules-made ones, so the guardian
    asks for approval whichever stage proposed them.
    """

    def fall_back(why: str) -> DecomposeOutcome:
        intents = tuple(decompose(instruction, rules, selves=selves).intents)
        return DecomposeOutcome(intents, "rules", (f"{why}; used the rules decomposer",))

    skills = sorted({name.lower() for name in known_skills})  # registry.targets
    messages = [
        Message(
            "system",
            skill_prompt("decompose").format(skills=", ".join(skills))
            + " "
            + skill_prompt("decompose", reply_format),
        ),
        Message("user", instruction),
    ]
    try:
        reply = backend.complete(messages, purpose="decompose")
        proposed = read_reply(reply.text, reply_format)
    except BudgetReached as error:
        return fall_back(f"model not asked: {error.message}")
    except ModelError as error:
        return fall_back(f"model reply unusable: {error.message}")
    accepted, vetoed = validate(proposed, instruction, skills, rules)
    notes = tuple(f"vetoed intent {intent.get('text', '')!r}: {why}" for intent, why in vetoed)
    if not accepted:
        outcome = fall_back("model proposed no acceptable intent")
        return DecomposeOutcome(outcome.intents, "rules", notes + outcome.notes, tuple(vetoed))
    return DecomposeOutcome(tuple(accepted), "model", notes, tuple(vetoed))


def read_reply(text: str, reply_format: ReplyFormat) -> list[Proposed]:
    """Return the intents a model's reply proposes, as dicts with lower-case keys."""
    if reply_format == "json":
        return _read_json(text)
    from orgrouter.neuro.plist import as_dict, extract_form, loads

    form = as_dict(loads(extract_form(text)))
    kind = _name(form.get("type")).upper()
    if kind == "MULTI-DELEGATION":
        raw = form.get("intents")
        if not isinstance(raw, list):
            raise ModelError(":intents is not a list")
        return [_plain(as_dict(item)) for item in raw]
    if kind == "DELEGATION":
        return [_plain(as_dict(form.get("payload")))]
    raise ModelError(f"unknown :type {kind or 'nil'} (expected :MULTI-DELEGATION)")


def _read_json(text: str) -> list[Proposed]:
    fenced = _JSON_FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ModelError("the reply holds no JSON object")
    try:
        data, _ = json.JSONDecoder().raw_decode(body[start:])
    except ValueError as error:
        raise ModelError(f"cannot read the reply as JSON: {error}") from None
    if isinstance(data, dict) and str(data.get("type", "")).upper() == "DELEGATION":
        data = [data.get("payload")]
    elif isinstance(data, dict):
        data = data.get("intents")
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise ModelError("the JSON reply has no list of intents")
    return [{str(k).lower().replace("-", "_"): v for k, v in item.items()} for item in data]


def _name(value: object) -> str:
    if isinstance(value, Keyword | Symbol):
        return value.name
    return value if isinstance(value, str) else ""


def _plain(item: dict[str, object]) -> Proposed:
    """Return a plist intent with JSON-like values (symbols as names, dashes as _)."""
    out: Proposed = {}
    for key, value in item.items():
        key = key.replace("-", "_")
        if isinstance(value, Keyword | Symbol):
            value = value.name
        elif key == "args" and isinstance(value, list):
            from orgrouter.neuro.plist import as_dict

            value = {k: _name(v) or v for k, v in as_dict(value).items()}
        out[key] = value
    return out


def validate(
    proposed: Sequence[Proposed], instruction: str, skills: Collection[str], rules: Rules
) -> tuple[list[Intent], list[tuple[Proposed, str]]]:
    """Split ``proposed`` into accepted intents and (proposal, reason) vetoes."""
    accepted: list[Intent] = []
    vetoed: list[tuple[Proposed, str]] = []
    request_words = {w.lower() for w in _WORD.findall(instruction)}
    renumbered: dict[int, int] = {}  # the model's 1-based number -> our order
    for index, intent in enumerate(proposed):
        why = _veto(intent, index, request_words, skills)
        if why is None and any(d not in renumbered for d in intent.get("depends_on") or []):
            why = "depends on a vetoed intent"
        if why is not None:
            vetoed.append((intent, why))
            continue
        renumbered[index + 1] = len(accepted) + 1
        made = _intent(intent, len(accepted) + 1, instruction, rules)
        made.depends_on = [renumbered[d] for d in made.depends_on]
        accepted.append(made)
    return accepted, vetoed


def _veto(
    intent: Proposed, index: int, request_words: set[str], skills: Collection[str]
) -> str | None:
    """Return why ``intent`` is refused, or None when it is acceptable."""
    if index >= MAX_INTENTS:
        return f"more than {MAX_INTENTS} intents"
    skill = intent.get("skill")
    if not isinstance(skill, str) or skill.lower() not in skills:
        return f"unknown skill {skill!r}"
    text = intent.get("text")
    if not isinstance(text, str) or not text.strip():
        return "no text"
    if len(text) > MAX_TEXT or "\n" in text.strip():
        return "text is not one short line"
    for key in ("verb", "object"):
        if intent.get(key) is not None and not isinstance(intent.get(key), str):
            return f"{key} is not a string"
    agent = intent.get("agent")
    if agent is not None and not (isinstance(agent, str) and _AGENT.match(agent)):
        return f"agent {agent!r} is not a name"
    args = intent.get("args")
    if args is not None and not (
        isinstance(args, dict)
        and all(isinstance(v, str | int | float) and len(str(v)) <= MAX_TEXT for v in args.values())
    ):
        return "args are not a small map of strings"
    depends = intent.get("depends_on") or []
    if not isinstance(depends, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 0 < d <= index for d in depends
    ):
        return "depends_on does not name earlier intents"
    words = {w.lower() for w in _WORD.findall(text)}
    if words and len(words & request_words) * 2 < len(words):
        # A model may invent work nobody asked for; the intent must come from the request.
        return "not found in the request"
    return None


def _intent(proposed: Proposed, order: int, instruction: str, rules: Rules) -> Intent:
    """Return the intent for an accepted proposal, its span found in the instruction."""
    text = str(proposed["text"]).strip()
    start = instruction.lower().find(text.lower())
    if start >= 0:
        end, text = start + len(text), instruction[start : start + len(text)]
    else:  # paraphrased: the span is the whole instruction it came from
        start, end = 0, len(instruction)
    agent = proposed.get("agent")
    verb = proposed.get("verb") or text.split()[0]
    intent = Intent(
        order=order,
        skill=str(proposed["skill"]).lower(),
        verb=str(verb).lower(),
        object=str(proposed.get("object") or ""),
        agent=agent.lstrip("@").lower() if isinstance(agent, str) else None,
        start=start,
        end=end,
        text=text,
        basis="model",
        confidence=rules.confidence["verb"],
        depends_on=list(proposed.get("depends_on") or []),
    )
    mark_risk(intent, rules)
    return intent
