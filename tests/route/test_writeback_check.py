"""apply_plans writes each result's check as it appends it: a later run reads it back."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from test_route_property import CONFIG, NOW, SKILLS, documents

from orgrouter.marks import RESULT_KEY
from orgrouter.org.document import Document
from orgrouter.route.pipeline import RouteEnv, route_document
from orgrouter.route.request import find_requests
from orgrouter.route.results import CHECK_KEY, marked_headlines, result_check, written_results

NESTED = b"""\
* Project :work:
** @agent create todos for the action items
Action items:
- Alice writes the plan
*** @agent schedule the review for friday
** @agent tag this as reviewed
* Last"""


def _unedited(
    data: bytes, newline: bytes = b"\n", *, force: bool = False
) -> tuple[bytes, list[bool]]:
    """Return the routed bytes, and for each result in them whether it reads as edited."""
    env = RouteEnv(config=CONFIG, skills=SKILLS, now=NOW, force=force)
    routed = route_document(data, "n.org", env, newline=newline)
    document = Document(routed.data, "n.org", newline=newline)
    found = find_requests(document, env.names())
    return routed.data, [w.edited for r in found for w in written_results(document, r)]


def test_nested_requests_without_a_final_newline() -> None:
    routed, edited = _unedited(NESTED)
    assert routed.count(b":ORGROUTER_CHECK:") == 3 == len(edited)
    assert b"SCHEDULED: <2026-12-04 Fri>" in routed  # inside the text the check covers
    assert not any(edited)


# Found by routing generated notes with 0.2 and this code alike (route, then --force):
# 0.2's forced re-route wrote the planned result a check of other text, so from then on
# it read as the user's edit (kept by every later --force, counted as a correction).
ODD_FORCED = b"""\
#+STARTUP: odd
* @agent Step 1 - summarize. Step 2 - todos. Step 3 - schedule a review on Monday.
#+begin_example
** @agent summarize in example
#+end_example
"""


def _checks(data: bytes) -> list[bool]:
    """Return, for every result in ``data``, whether its check matches its text."""
    document = Document(data, "n.org")
    heads = [document.head(i) for i in marked_headlines(document)]
    return [h.value(CHECK_KEY) == result_check(data, h) for h in heads if h.value(CHECK_KEY)]


def test_a_forced_reroute_writes_checks_it_reads_back() -> None:
    # The block's "** " line is a headline to Org, so the results land in its subtree.
    first, _ = _unedited(ODD_FORCED)
    assert _checks(first) == [True, True, True]
    again, _ = _unedited(first, force=True)
    assert b"SCHEDULED: <2026-12-07 Mon>" in again
    assert _checks(again) == [True, True, True]
    assert again == first  # the same answers, so the same bytes


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_check_written_is_the_one_read_back(case: tuple[bytes, int]) -> None:
    data, _requests = case
    newline = b"\r\n" if data.count(b"\r\n") and data.count(b"\r\n") == data.count(b"\n") else b"\n"
    routed, edited = _unedited(data, newline)
    assert routed.count(b":ORGROUTER_CHECK:") == len(edited)
    assert not any(edited)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_a_requests_results_are_its_marked_children(case: tuple[bytes, int]) -> None:
    # written_results steps from child to child; a search of the whole subtree for
    # marks (as it once did) finds the same results.
    data, _requests = case
    routed, _ = _unedited(data)
    document = Document(routed, "n.org")
    for request in find_requests(document, ("agent",)):
        entry = request.entry
        marked = marked_headlines(document, entry.end, entry.subtree_end)
        children = [i for i in marked if document.entries[i].parent == entry.index]
        expected = [i for i in children if document.head(i).value(RESULT_KEY) is not None]
        assert [w.index for w in written_results(document, request)] == expected
