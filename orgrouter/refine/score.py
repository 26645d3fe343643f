"""Scores of a golden replay, and the gate's comparison of a candidate to the baseline."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CaseOutcome:
    """One golden case's result: passed, or which fields mismatched."""

    case_id: str
    passed: bool
    mismatched: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scores:
    """Every case's outcome in one replay, keyed by case id."""

    cases: dict[str, CaseOutcome]

    @property
    def total(self) -> int:
        """Return how many cases were replayed."""
        return len(self.cases)

    @property
    def passed(self) -> int:
        """Return how many cases passed."""
        return sum(1 for case in self.cases.values() if case.passed)

    @property
    def score(self) -> float:
        """Return the fraction of cases that passed (1.0 for an empty set)."""
        return self.passed / self.total if self.total else 1.0

    def failing(self) -> list[CaseOutcome]:
        """Return the failing cases, in case id order."""
        return [self.cases[key] for key in sorted(self.cases) if not self.cases[key].passed]

    def to_json(self) -> dict[str, Any]:
        """Return a compact JSON form: the failing cases with their fields, and counts."""
        return {
            "total": self.total,
            "passed": self.passed,
            "score": round(self.score, 6),
            "failing": {case.case_id: list(case.mismatched) for case in self.failing()},
            "ids": sorted(self.cases),
        }

    def dumps(self) -> str:
        """Return the JSON text stored in the state database."""
        return json.dumps(self.to_json(), sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> Scores:
        """Rebuild Scores from ``dumps`` output."""
        return cls.from_json(json.loads(text))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scores:
        """Rebuild Scores from ``to_json`` output."""
        failing: dict[str, list[str]] = data["failing"]
        ids: list[str] = data["ids"]
        outcomes = (CaseOutcome(i, i not in failing, tuple(failing.get(i, ()))) for i in ids)
        return cls({outcome.case_id: outcome for outcome in outcomes})


@dataclass(frozen=True)
class Verdict:
    """The gate's answer: passed, or why not, with the cases named."""

    passed: bool
    reason: str | None  # None | "regression" | "score" | "invalid"
    regressions: tuple[str, ...]  # passed in the baseline, fail now
    fixed: tuple[str, ...]  # failed in the baseline, pass now
    baseline_score: float
    score: float
    tolerance: float
    detail: str | None = None  # why the rules could not be replayed at all

    def to_json(self) -> dict[str, Any]:
        """Return the verdict as a JSON-ready dict."""
        return {
            "passed": self.passed,
            "reason": self.reason,
            "detail": self.detail,
            "regressions": list(self.regressions),
            "fixed": list(self.fixed),
            "baseline_score": round(self.baseline_score, 6),
            "score": round(self.score, 6),
            "tolerance": self.tolerance,
        }


def compare(baseline: Scores, candidate: Scores, tolerance: float) -> Verdict:
    """Judge ``candidate`` against ``baseline`` case by case (seed 002, §3.5)."""
    regressions = tuple(
        case_id
        for case_id in sorted(baseline.cases)
        if baseline.cases[case_id].passed
        and not (case_id in candidate.cases and candidate.cases[case_id].passed)
    )
    fixed = tuple(
        case_id
        for case_id in sorted(candidate.cases)
        if candidate.cases[case_id].passed
        and case_id in baseline.cases
        and not baseline.cases[case_id].passed
    )
    # A tiny epsilon keeps float noise from rejecting an equal score at tolerance 0.
    below = candidate.score < baseline.score - tolerance - 1e-9
    reason = "regression" if regressions else "score" if below else None
    scores = (baseline.score, candidate.score)
    return Verdict(reason is None, reason, regressions, fixed, *scores, tolerance)


def invalid(baseline: Scores, detail: str, tolerance: float) -> Verdict:
    """Judge a candidate whose rules do not even load: every passing case regresses."""
    nothing = compare(baseline, Scores({}), tolerance)  # no case passes: each one regresses
    return dataclasses.replace(nothing, passed=False, reason="invalid", score=0.0, detail=detail)
