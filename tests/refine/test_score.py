"""The gate's judgement: regressions per case, and the score against the tolerance."""

from __future__ import annotations

from orgrouter.refine.score import CaseOutcome, Scores, compare


def scores(**cases: bool) -> Scores:
    return Scores({k: CaseOutcome(k, v, () if v else ("intents",)) for k, v in cases.items()})


def test_a_fix_without_regression_passes() -> None:
    verdict = compare(scores(a=True, b=False), scores(a=True, b=True), 0.0)
    assert verdict.to_json() == {
        "passed": True,
        "reason": None,
        "detail": None,
        "regressions": [],
        "fixed": ["b"],
        "baseline_score": 0.5,
        "score": 1.0,
        "tolerance": 0.0,
    }


def test_any_regression_rejects_even_with_a_better_score() -> None:
    verdict = compare(scores(a=True, b=False, c=False), scores(a=False, b=True, c=True), 0.5)
    assert (verdict.passed, verdict.reason, verdict.regressions, verdict.fixed) == (
        False,
        "regression",
        ("a",),
        ("b", "c"),
    )


def test_a_case_missing_from_the_candidate_replay_is_a_regression() -> None:
    verdict = compare(scores(a=True, b=True), scores(a=True), 0.0)
    assert verdict.regressions == ("b",)


def test_score_below_baseline_minus_tolerance_rejects() -> None:
    # A new failing case (not in the baseline) lowers the score without a regression.
    base = scores(a=True, b=True, c=True)
    worse = scores(a=True, b=True, c=True, d=False)
    assert compare(base, worse, 0.0).reason == "score"
    assert compare(base, worse, 0.25).passed
    assert compare(base, worse, 0.24).reason == "score"


def test_equal_scores_pass_at_zero_tolerance() -> None:
    assert compare(scores(a=True, b=False), scores(a=True, b=False), 0.0).passed


def test_scores_survive_storage() -> None:
    original = Scores(
        {"x": CaseOutcome("x", False, ("risk", "intents")), "y": CaseOutcome("y", True)}
    )
    assert Scores.loads(original.dumps()) == original
    assert original.to_json() == {
        "total": 2,
        "passed": 1,
        "score": 0.5,
        "failing": {"x": ["risk", "intents"]},
        "ids": ["x", "y"],
    }
