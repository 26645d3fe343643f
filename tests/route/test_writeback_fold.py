"""apply_plans splices a note once: folding the last step into the appends changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from test_route_property import CONFIG, NOW, SKILLS, documents

from orgrouter.org.edit import Splice, apply_splices
from orgrouter.route import writeback
from orgrouter.route.pipeline import RouteEnv, route_document

NESTED = b"""\
* Project :work:
** @agent create todos for the action items
Action items:
- Alice writes the plan
*** @agent schedule the review for friday
** @agent tag this as reviewed
* Last"""


def _both(data: bytes, newline: bytes = b"\n") -> tuple[bytes, bytes]:
    """Return the routed bytes with folding, and with the two-step splice it replaces."""
    env = RouteEnv(config=CONFIG, skills=SKILLS, now=NOW)
    folded = route_document(data, "n.org", env, newline=newline).data
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(writeback, "_fold_finishing", lambda *_args: None)
        stepwise = route_document(data, "n.org", env, newline=newline).data
    return folded, stepwise


def test_nested_requests_without_a_final_newline() -> None:
    folds: list[object] = []
    fold = writeback._fold_finishing
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(writeback, "_fold_finishing", lambda *args: folds.append(fold(*args)))
        route_document(NESTED, "n.org", RouteEnv(config=CONFIG, skills=SKILLS, now=NOW))
    assert folds and folds[0] is not None  # the folded path is the one taken
    folded, stepwise = _both(NESTED)
    assert folded == stepwise
    assert folded.count(b":ORGROUTER_CHECK:") == 3
    assert b"SCHEDULED: <2026-12-04 Fri>" in folded


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_folding_gives_the_stepwise_bytes(case: tuple[bytes, int]) -> None:
    data, _requests = case
    newline = b"\r\n" if data.count(b"\r\n") and data.count(b"\r\n") == data.count(b"\n") else b"\n"
    folded, stepwise = _both(data, newline)
    assert folded == stepwise


def test_compose_edits_inserted_text_only() -> None:
    data = b"abcdef"
    first = [Splice(2, 2, b"XY"), Splice(4, 5, b"Z")]
    middle = apply_splices(data, first)  # abXYcdZf
    second = [Splice(3, 3, b"-"), Splice(6, 7, b"W")]
    composed = writeback.compose_splices(first, second)
    assert composed is not None
    assert apply_splices(data, composed) == apply_splices(middle, second) == b"abX-YcdWf"
    # An edit of original text cannot fold into the inserted text: None, not a guess.
    assert writeback.compose_splices(first, [Splice(0, 1, b"q")]) is None
