"""The sensor gate (seed 000): classify a request before anything runs.

``classify`` returns a ``GateResult`` whose ``to_json`` is the contract printed by
``orgrouter classify``: intent, domain tags, risk, confidence, complexity, skill chain,
the guardian's decision, the mode, the specialists to spawn and why, and any bypass.
A request that cannot be classified is REJECTED, never approved by default.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from orgrouter.config import SensorGateConfig
from orgrouter.records import field, fields, record
from orgrouter.route.decompose import Decomposition, decompose, decompose_items
from orgrouter.route.rules import LEVELS, Persona, Rules

if TYPE_CHECKING:  # the limiter is built by the runner, only when models are used
    from orgrouter.route.ratelimit import RateLimiter

Origin = Literal["user", "result", "delegation"]
APPROVED, REJECTED, HUMAN_REQUIRED = "APPROVED", "REJECTED", "HUMAN_REQUIRED"
INNOVATION, TRIVIAL, STANDARD = "DREAM_INNOVATION", "TRIVIAL", "STANDARD"


@record
class Spawn:
    """How many specialists to spawn, the score behind it, and why none if none."""

    count: int = 0
    wanted: int = 0  # ceil(score / 2) capped by max_personas, before the rate limit
    score: int = 0
    factors: list[tuple[str, int]] = field(default_factory=list)
    skip: str | None = None  # bypass|simplicity|rejected|clarify|approval|rate_limit

    def to_json(self) -> dict[str, Any]:
        """Return the ``spawn`` object of the gate JSON."""
        factors = [{"factor": name, "weight": weight} for name, weight in self.factors]
        return {**{name: getattr(self, name) for name in fields(self)}, "factors": factors}


@record
class GateResult:
    """Everything the gate decided about one request."""

    intent: str
    domain_tags: list[str]
    risk_level: str
    confidence: float
    complexity: str
    primary_skill: str | None
    support_skills: list[str]
    chain: list[str]
    guardian_decision: str
    guardian_risk: str
    mode: str
    personas: list[Persona]
    spawn: Spawn
    bypass: str | None
    reason: str | None
    clarify: bool
    decomposition: Decomposition

    @property
    def held(self) -> list[int]:
        """Return the orders of the intents that wait for the user's approval."""
        return [i.order for i in self.decomposition.intents if i.needs_approval]

    @property
    def runs(self) -> bool:
        """Return whether any intent may run now (approved, or safe beside held ones)."""
        if self.guardian_decision == REJECTED or self.clarify:
            return False
        return any(not i.needs_approval for i in self.decomposition.intents)

    def understood(self) -> list[str]:
        """Return one line per intent saying what was understood, for a clarification."""
        lines = []
        for intent in self.decomposition.intents:
            who = f" (for @{intent.agent})" if intent.agent else ""
            lines.append(f"{intent.skill}{who}: {intent.text} [{intent.confidence:.2f}]")
        return lines

    def to_json(self) -> dict[str, Any]:
        """Return the contract JSON object, keys in the seed's order (the fields' order)."""
        data = {name: getattr(self, name) for name in fields(self) if name != "decomposition"}
        data["personas"] = [
            {"name": p.name, "role": p.role, "domains": list(p.domains), "skills": list(p.skills)}
            for p in self.personas
        ]
        data["spawn"] = self.spawn.to_json()
        data["understood"] = self.understood()
        return data


def _max_level(levels: Sequence[str]) -> str:
    return max(levels, key=LEVELS.index, default="low")


_WORDS = re.compile(r"[\w][\w'+#-]*")


def domain_tags(text: str, rules: Rules) -> list[str]:
    """Return the domains whose words ``text`` uses, in order of first use."""
    # Every word counts, inside quotes and code too; "tomorrow's" is "tomorrow".
    words = [word.removesuffix("'s") for word in _WORDS.findall(text.lower().replace("’", "'"))]
    found: list[str] = []
    for at in range(len(words)):
        for size in range(min(rules.domain_words, len(words) - at), 0, -1):
            for domain in rules.domains.get(tuple(words[at : at + size]), ()):
                if domain not in found:
                    found.append(domain)
    return found


def _chain(decomposition: Decomposition, rules: Rules) -> list[str]:
    chain: list[str] = []
    for intent in decomposition.intents:
        for skill in (intent.skill, *rules.support.get(intent.skill, ())):
            if skill not in chain:
                chain.append(skill)
    return chain


def _complexity(decomposition: Decomposition, text: str) -> str:
    count = len(decomposition.intents)
    if count >= 4 or len(text) > 400:
        return "high"
    if count >= 2 or len(text) > 120:
        return "medium"
    return "low"


def spawn_score(
    text: str, tags: list[str], risk: str, chain: list[str], mode: str, rules: Rules
) -> list[tuple[str, int]]:
    """Return seed 000's spawn factors that apply, with their weights.

    Chain length counts the chain without the "always" skills: 2 skills score +2 and
    3 or more score +3 (the seed's "+2-3").
    """
    factors: list[tuple[str, int]] = []
    if len(tags) >= 3:
        factors.append(("domains", 3))
    elif len(tags) == 2:
        factors.append(("domains", 1))
    if risk == "high":
        factors.append(("high_risk", 2))
    effective = len([skill for skill in chain if skill not in rules.always])
    if effective >= 2:
        factors.append(("chain", 3 if effective >= 3 else 2))
    if mode == INNOVATION:
        factors.append(("innovation", 2))
    if rules.code.search(text) and len(text) > rules.long_prompt:
        factors.append(("code_long", 1))
    return factors


def is_simple(text: str, rules: Rules) -> bool:
    """Return whether ``text`` starts with a simplicity word (fix, update, ...)."""
    words = text.strip().lower().split(maxsplit=1)
    return bool(words) and words[0].strip(",.:;!") in rules.simplicity


def pick_personas(
    count: int, tags: list[str], chain: list[str], mode: str, rules: Rules
) -> list[Persona]:
    """Return the ``count`` personas that best match the request, ties in file order."""
    if count <= 0:
        return []  # most requests spawn none: no need to rank every persona for it

    def fit(persona: Persona) -> int:
        """Score a persona: shared domains count double, shared skills once."""
        score = 2 * len(set(persona.domains) & set(tags)) + len(set(persona.skills) & set(chain))
        return score + (2 if persona.innovation and mode == INNOVATION else 0)

    ranked = sorted(enumerate(rules.personas), key=lambda pair: (-fit(pair[1]), pair[0]))
    return [persona for _, persona in ranked[:count]]


def _rejected(text: str, reason: str, decomposition: Decomposition) -> GateResult:
    return GateResult(
        intent="unknown",
        domain_tags=[],
        risk_level="low",
        confidence=0.0,
        complexity="low",
        primary_skill=None,
        support_skills=[],
        chain=[],
        guardian_decision=REJECTED,
        guardian_risk="low",
        mode=STANDARD,
        personas=[],
        spawn=Spawn(skip="rejected"),
        bypass=None,
        reason=reason,
        clarify=False,
        decomposition=decomposition,
    )


def classify(
    text: str,
    rules: Rules,
    *,
    config: SensorGateConfig | None = None,
    origin: Origin = "user",
    items: Sequence[str] | None = None,
    limiter: RateLimiter | None = None,
    session: str = "cli",
    now: float | None = None,
    selves: Sequence[str] = ("agent",),
) -> GateResult:
    """Run the sensor gate on a request (``items``: its body list, if it has no text)."""
    config = config or SensorGateConfig()
    if origin == "result":
        empty = Decomposition(text, "empty", [])
        result = _rejected(text, "orgrouter's own result is never a request", empty)
        result.guardian_decision, result.bypass, result.mode = APPROVED, "result", TRIVIAL
        result.intent, result.spawn.skip, result.confidence = "result", "bypass", 1.0
        return result
    try:
        decomposition = (
            decompose_items(items, rules, selves=selves)
            if items
            else decompose(text, rules, selves=selves)
        )
    except Exception as error:  # a grammar failure must refuse, never approve (seed 000)
        reason = f"cannot classify: {type(error).__name__}: {error}".splitlines()[0]
        return _rejected(text, reason, Decomposition(text, "empty", []))
    if not decomposition.intents:
        why = decomposition.error or "no instruction found"
        return _rejected(text, f"cannot classify: {why}", decomposition)
    whole = text if not items else "\n".join(items)
    return _assess(whole, decomposition, rules, config, origin, limiter, session, now)


def _assess(
    text: str,
    decomposition: Decomposition,
    rules: Rules,
    config: SensorGateConfig,
    origin: Origin,
    limiter: RateLimiter | None,
    session: str,
    now: float | None,
) -> GateResult:
    intents = decomposition.intents
    bypass = (
        decomposition.kind
        if decomposition.kind in ("greeting", "compact")
        else "delegation"
        if origin == "delegation"
        else None
        if config.enabled
        else "disabled"
    )
    tags = domain_tags(text, rules)
    word_risk = _max_level([level for pattern, level in rules.risk_words if pattern.search(text)])
    risk = _max_level([word_risk, *(i.risk for i in intents)])
    confidence = round(min(i.confidence for i in intents), 2)
    chain = _chain(decomposition, rules)
    skills = {i.skill for i in intents}
    intent = (
        "multi_step"
        if len(skills) > 1
        else rules.skill_categories.get(intents[0].skill, intents[0].skill)
    )
    complexity = _complexity(decomposition, text)
    clarify = bypass is None and confidence < config.min_confidence
    intent = "unclear" if clarify else intent
    mode = (
        TRIVIAL
        if bypass in ("greeting", "compact")
        else INNOVATION
        if rules.innovation.search(text)
        else TRIVIAL
        if complexity == "low" and risk == "low" and len(intents) == 1
        else STANDARD
    )
    held = [i for i in intents if i.needs_approval]
    unattended = [i.risk for i in intents if not i.needs_approval]
    if clarify:
        decision, reason = (
            HUMAN_REQUIRED,
            (
                f"confidence {confidence:.2f} is below min_confidence {config.min_confidence:.2f}: "
                "asking what was meant"
            ),
        )
    elif held:
        decision = HUMAN_REQUIRED
        reason = "approval needed: " + "; ".join(
            f"intent {i.order} {i.text!r}: {i.risk_reason}" for i in held
        )
    else:
        decision, reason = APPROVED, None
    spawn = Spawn(factors=spawn_score(text, tags, risk, chain, mode, rules))
    spawn.score = sum(weight for _, weight in spawn.factors)
    # Capped by max_personas, and by how many personas the tables define.
    spawn.wanted = min(math.ceil(spawn.score / 2), config.max_personas, len(rules.personas))
    spawn.skip = (
        "bypass"
        if bypass is not None
        else "clarify"
        if clarify
        else "approval"
        if decision != APPROVED
        else "simplicity"
        if is_simple(text, rules)
        else None
    )
    if spawn.skip is None and spawn.wanted > 0:
        spawn.count = spawn.wanted
        if limiter is not None:
            grant = limiter.request(session, spawn.wanted, time.time() if now is None else now)
            if grant.limited:
                spawn.count, spawn.skip = 0, "rate_limit"
                reason = (
                    f"rate limit: {grant.used} of {grant.limit} spawns used in this "
                    f"session's window; handled directly"
                )
    primary = chain[0] if chain else None
    return GateResult(
        intent=intent,
        domain_tags=tags,
        risk_level=risk,
        confidence=confidence,
        complexity=complexity,
        primary_skill=primary,
        support_skills=chain[1:],
        chain=chain,
        guardian_decision=decision,
        guardian_risk=_max_level([word_risk, *unattended]) if not clarify else "low",
        mode=mode,
        personas=pick_personas(spawn.count, tags, chain, mode, rules),
        spawn=spawn,
        bypass=bypass,
        reason=reason,
        clarify=clarify,
        decomposition=decomposition,
    )
