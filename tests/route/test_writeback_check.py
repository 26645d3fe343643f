"""apply_plans writes each result's check as it appends it: a later run reads it back."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from test_route_property import CONFIG, NOW, SKILLS, documents

from orgrouter.org.document import Document
from orgrouter.route.pipeline import RouteEnv, route_document
from orgrouter.route.request import find_requests
from orgrouter.route.results import written_results

NESTED = b"""\
* Project :work:
** @agent create todos for the action items
Action items:
- Alice writes the plan
*** @agent schedule the review for friday
** @agent tag this as reviewed
* Last"""


def _unedited(data: bytes, newline: bytes = b"\n") -> tuple[bytes, list[bool]]:
    """Return the routed bytes, and for each result in them whether it reads as edited."""
    env = RouteEnv(config=CONFIG, skills=SKILLS, now=NOW)
    routed = route_document(data, "n.org", env, newline=newline)
    document = Document(routed.data, "n.org", newline=newline)
    found = find_requests(document, env.names())
    return routed.data, [w.edited for r in found for w in written_results(document, r)]


def test_nested_requests_without_a_final_newline() -> None:
    routed, edited = _unedited(NESTED)
    assert routed.count(b":ORGROUTER_CHECK:") == 3 == len(edited)
    assert b"SCHEDULED: <2026-12-04 Fri>" in routed  # inside the text the check covers
    assert not any(edited)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_check_written_is_the_one_read_back(case: tuple[bytes, int]) -> None:
    data, _requests = case
    newline = b"\r\n" if data.count(b"\r\n") and data.count(b"\r\n") == data.count(b"\n") else b"\n"
    routed, edited = _unedited(data, newline)
    assert routed.count(b":ORGROUTER_CHECK:") == len(edited)
    assert not any(edited)
