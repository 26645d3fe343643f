"""Property test: on any Org-shaped document, routing only inserts, and only once.

Documents are generated from the pieces real notes are made of (headlines with TODO
keywords, priorities and tags; paragraphs; lists with checkboxes; src blocks holding
lines that look like headlines or requests; property drawers; planning lines; blank
runs), in LF or CRLF, with or without a final newline, with requests at any level.
"""

from __future__ import annotations

from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from route_cli import only_insertions

from orgrouter.config import Config
from orgrouter.route.pipeline import RouteEnv, route_document
from orgrouter.skills.registry import load_skills

CONFIG = Config()
SKILLS = load_skills(CONFIG).skills
NOW = datetime(2026, 11, 30, 9, 0)
REQUESTS = (
    "@agent summarize this section, then create todos for the action items",
    "@agent schedule the review for friday",
    "@agent tag this as reviewed",
    "@agent delete the old drafts",
    "@agent hello",
    "@agent frobnicate",
    "@agent",
)
WORDS = st.sampled_from(
    ["alpha", "beta", "notes", "plan", "Ünïcode", "日本", "review", "todo", "x"]
)
TITLE = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)

BODY_PIECES = st.one_of(
    st.lists(WORDS, min_size=1, max_size=8).map(lambda w: " ".join(w) + "."),
    WORDS.map(lambda w: f"- [ ] {w}"),
    WORDS.map(lambda w: f"- {w}\n  continued"),
    st.just("#+begin_src org\n* @agent not a request\n,* escaped\n#+end_src"),
    st.just(":PROPERTIES:\n:ID: abc\n:END:"),
    st.just("SCHEDULED: <2026-12-01 Tue>"),
    st.just(""),
    st.just("Action items:\n- Alice writes the plan\n- Bob reviews it"),
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[bytes, int]:
    """Return an Org document's bytes and how many requests it holds."""
    lines: list[str] = []
    requests = 0
    for _ in range(draw(st.integers(0, 6))):
        level = draw(st.integers(1, 4))
        todo = draw(st.sampled_from(["", "TODO ", "DONE "]))
        if draw(st.booleans()):
            title = draw(st.sampled_from(REQUESTS))
            requests += todo != "DONE "  # a closed headline asks for nothing
        else:
            title = draw(TITLE)
        tags = draw(st.sampled_from(["", " :work:", " :@personal:x:"]))
        lines.append(f"{'*' * level} {todo}{title}{tags}")
        lines.extend(draw(st.lists(BODY_PIECES, max_size=3)))
    text = "\n".join(lines)
    if draw(st.booleans()):
        text += "\n"
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return text.replace("\n", newline).encode("utf-8"), requests


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_routing_only_inserts_and_is_stable(case: tuple[bytes, int]) -> None:
    data, requests = case
    env = RouteEnv(config=CONFIG, skills=SKILLS, now=NOW)
    newline = b"\r\n" if data.count(b"\r\n") and data.count(b"\r\n") == data.count(b"\n") else b"\n"
    first = route_document(data, "n.org", env, newline=newline)
    assert only_insertions(data, first.data)
    assert first.data.count(b":ORGROUTER_HASH:") == requests
    assert len(first.requests) == requests
    again = route_document(first.data, "n.org", env, newline=newline)
    assert again.data == first.data
    assert all(report.status == "unchanged" for report in again.requests)
