"""The golden set as refine sees it: cases to propose from, and scores per replay.

The gate engineer's ``orgrouter.route.golden`` owns the case format and the replay
(``load_cases(dir)``, ``replay(cases, rules) -> GoldenReport``); this module only turns
its report into refine's ``Scores``, so the gate compares two replays case by case.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orgrouter.refine.score import CaseOutcome, Scores


@dataclass(frozen=True)
class GoldenCase:
    """One case: its id, the request text, and the expected (skill, verb) per intent."""

    case_id: str
    text: str
    expected: tuple[tuple[str, str], ...]


def load_golden(golden_dir: Path) -> list[GoldenCase]:
    """Return the cases of the golden set in ``golden_dir``."""
    from orgrouter.route.golden import load_cases

    return [
        GoldenCase(
            case.id, case.text, tuple((intent.skill, intent.verb) for intent in case.intents)
        )
        for case in load_cases(golden_dir)
    ]


def replay_golden(golden_dir: Path, rules_dir: Path | None) -> Scores:
    """Replay the golden set with the rules in ``rules_dir`` (over the package's)."""
    from orgrouter.route.golden import load_cases, replay
    from orgrouter.route.rules import load_rules

    report = replay(load_cases(golden_dir), load_rules(rules_dir))
    return Scores(
        {
            result.id: CaseOutcome(result.id, result.passed, tuple(result.mismatched))
            for result in report.cases
        }
    )
