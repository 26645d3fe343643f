"""The golden set: requests with the gate fields and intents they must produce.

A golden directory holds TOML files (read recursively, in path order), each with any
number of ``[[case]]`` tables::

    [[case]]
    id = "summarize-then-todos"            # unique across the whole set
    text = "summarize this, then create todos for the action items"
    # items = ["call Bob", "book flights"] # body list items, for a headline with no text
    # origin = "user"                      # or "result", "delegation"
    # xfail = "why it fails today"         # a known failure, kept honest in the score
    gate = { primary_skill = "summarize", guardian_decision = "APPROVED", bypass = "" }
    intents = [
      { skill = "summarize", verb = "summarize", object = "this", order = 1 },
      { skill = "todo", verb = "create", order = 2, depends_on = [1] },
    ]

Only the fields a case names are checked; ``""`` stands for null (TOML has none). When
``intents`` is given, the number of intents must match too. ``replay`` is
deterministic (no rate limit, no clock), so two replays compare case by case.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from orgrouter.config import SensorGateConfig
from orgrouter.errors import ConfigError
from orgrouter.route.gate import GateResult, classify
from orgrouter.route.rules import Rules
from orgrouter.tomlwhere import line_of

GATE_FIELDS = ("intent", "domain_tags", "risk_level", "complexity", "primary_skill",
               "support_skills", "chain", "guardian_decision", "guardian_risk", "mode",
               "bypass", "clarify", "spawn_count", "spawn_score")
INTENT_FIELDS = ("skill", "verb", "object", "agent", "order", "depends_on", "needs_approval")
CASE_KEYS = {"id", "text", "items", "origin", "xfail", "gate", "intents", "note"}
ORIGINS = ("user", "result", "delegation")


@dataclass(frozen=True)
class Case:
    """One golden request and what the gate and decomposer must say about it."""

    id: str
    text: str
    items: tuple[str, ...]
    origin: str
    gate: Mapping[str, Any]
    intents: tuple[Mapping[str, Any], ...] | None
    xfail: str | None
    source: str  # file:line, for messages


@dataclass(frozen=True)
class CaseResult:
    """One case's outcome: passed, or which fields mismatched (expected vs actual).

    A replay is a tuple of these; refine scores and compares two (``refine.score``).
    """

    case_id: str
    passed: bool
    mismatched: tuple[str, ...] = ()
    details: tuple[str, ...] = ()


def package_golden_dir() -> Path:
    """Return the directory of the golden set shipped with orgrouter."""
    return Path(str(resources.files("orgrouter.golden")))


def _case(entry: Any, path: Path, text: str, index: int) -> Case:
    anchor = f'"{entry.get("id")}"' if isinstance(entry, dict) else "[[case]]"
    line = line_of(text, anchor) or line_of(text, "[[case]]")

    def bad(message: str) -> ConfigError:
        """Return an error about this case, at its line."""
        return ConfigError(f"golden case {index + 1}: {message}", path=path, line=line)

    if not isinstance(entry, dict):
        raise bad("must be a table")
    unknown = sorted(set(entry) - CASE_KEYS)
    if unknown:
        raise bad(f"unknown key {unknown[0]!r}; expected one of {', '.join(sorted(CASE_KEYS))}")
    case_id, request = entry.get("id"), entry.get("text", "")
    items = entry.get("items", [])
    if not isinstance(case_id, str) or not case_id:
        raise bad("needs an id")
    if not isinstance(request, str) or not isinstance(items, list) or not all(
        isinstance(item, str) for item in items
    ):
        raise bad("text must be a string and items a list of strings")
    origin = entry.get("origin", "user")
    if origin not in ORIGINS:
        raise bad(f"origin must be one of {', '.join(ORIGINS)}")
    gate = entry.get("gate", {})
    if not isinstance(gate, dict) or set(gate) - set(GATE_FIELDS):
        raise bad(f"gate keys must be among {', '.join(GATE_FIELDS)}")
    intents = entry.get("intents")
    if intents is not None and (
        not isinstance(intents, list)
        or not all(isinstance(i, dict) and not set(i) - set(INTENT_FIELDS) for i in intents)
    ):
        raise bad(f"intents must be tables with keys among {', '.join(INTENT_FIELDS)}")
    xfail = entry.get("xfail")
    return Case(
        id=case_id, text=request, items=tuple(items), origin=origin, gate=gate,
        intents=None if intents is None else tuple(intents),
        xfail=xfail if isinstance(xfail, str) and xfail else None,
        source=f"{path}:{line}" if line else str(path),
    )


def load_cases(directory: Path | None = None) -> list[Case]:
    """Load every case under ``directory`` (default: the package's own golden set)."""
    root = package_golden_dir() if directory is None else directory
    if not root.is_dir():
        raise ConfigError("the golden set is not a directory", path=root)
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*.toml")):
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"invalid TOML in golden file: {error}", path=path) from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read golden file: {error}", path=path) from None
        entries = data.get("case", [])
        if not isinstance(entries, list) or set(data) - {"case"}:
            raise ConfigError("a golden file holds only [[case]] tables", path=path, line=1)
        for index, entry in enumerate(entries):
            case = _case(entry, path, text, index)
            if case.id in seen:
                raise ConfigError(
                    f"golden case id {case.id!r} is also used at {seen[case.id]}",
                    path=path, line=line_of(text, f'"{case.id}"'),
                )
            seen[case.id] = case.source
            cases.append(case)
    return cases


def _null(value: Any) -> Any:
    return None if value == "" else value


def _gate_value(result: GateResult, name: str) -> Any:
    # spawn_count and spawn_score are the spawn decision's count and score.
    spawn = name.removeprefix("spawn_")
    return getattr(result.spawn, spawn) if spawn != name else getattr(result, name)


def gate_for(case: Case, rules: Rules) -> GateResult:
    """Return what the gate says about ``case``, exactly as the replay sees it."""
    return classify(
        case.text, rules, config=SensorGateConfig(), origin=case.origin,  # type: ignore[arg-type]
        items=case.items or None,
    )


def check(case: Case, rules: Rules) -> CaseResult:
    """Replay one case and compare every field it names."""
    result = gate_for(case, rules)
    mismatched: list[str] = []
    details: list[str] = []

    def compare(name: str, expected: Any, actual: Any) -> None:
        """Record ``name`` as mismatched unless ``actual`` is what was expected."""
        if _null(expected) != actual and not (expected == "" and actual == ""):
            mismatched.append(name)
            details.append(f"{name}: expected {_null(expected)!r}, got {actual!r}")

    for name, expected in case.gate.items():
        compare(f"gate.{name}", expected, _gate_value(result, name))
    if case.intents is not None:
        actual = result.decomposition.intents
        if len(actual) != len(case.intents):
            compare("intents.count", len(case.intents), len(actual))
        for number, (want, got) in enumerate(zip(case.intents, actual, strict=False), start=1):
            for name, expected in want.items():
                compare(f"intents[{number}].{name}", expected, getattr(got, name))
    return CaseResult(case.id, not mismatched, tuple(mismatched), tuple(details))


def replay(cases: Sequence[Case], rules: Rules) -> tuple[CaseResult, ...]:
    """Replay ``cases`` with ``rules``, in case order; deterministic, so two compare per case."""
    return tuple(check(case, rules) for case in cases)
