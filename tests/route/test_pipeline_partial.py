"""route_document indexes only the requests' subtrees, yet acts as on the whole outline."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from test_route_property import documents

from orgrouter.config import Config
from orgrouter.org.document import Document
from orgrouter.org.settings import InBufferSettings
from orgrouter.route.pipeline import RouteEnv, route_document
from orgrouter.skills.base import Action, BaseSkill, Context, Emit, Result, Retag
from orgrouter.skills.registry import load_skills

NOW = datetime(2026, 11, 30, 9, 0)


class TagFirst(BaseSkill):
    """A user skill that tags a headline far from the request (line 1)."""

    name = "tagfirst"
    priority = 90

    def trigger(self, stimulus: object, ctx: Context) -> bool:
        return getattr(stimulus, "sensor", "") == "delegation"

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        return Emit((Result(title="Tagged the first headline"),), (Retag((1, 3), ("seen",)),))


def test_a_retag_reaches_a_headline_outside_the_requests_subtree() -> None:
    config = Config()
    env = RouteEnv(config=config, skills=[TagFirst(), *load_skills(config).skills], now=NOW)
    data = b"* First\n** Child\nnot a headline\n* Other\n* Last\n** @agent note this\n"
    document = Document.around(data, [data.index(b"@agent")])
    assert [entry.line for entry in document.entries] == [1, 5, 6]  # First: the top's bound
    out = route_document(data, "n.org", env).data
    first, rest = out.split(b"\n", 1)
    assert first.split() == [b"*", b"First", b":seen:"]  # line 3 is no headline: untouched
    assert rest.startswith(b"** Child\nnot a headline\n* Other\n* Last\n")
    assert b"*** Tagged the first headline\n" in out


def full_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make route_document index every headline, as it did before Document.around."""

    def whole(
        cls: type[Document],
        data: bytes,
        offsets: object,
        path: str | None = None,
        *,
        newline: bytes | None = None,
        settings: InBufferSettings | None = None,
    ) -> Document:
        return cls(data, path, newline=newline, settings=settings)

    monkeypatch.setattr(Document, "around", classmethod(whole))


def test_requests_far_apart_in_a_deep_outline_route_as_with_a_full_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = Config()
    env = RouteEnv(config=config, skills=load_skills(config).skills, now=NOW)
    filler = b"".join(b"** section %d\ntext\n*** deeper\n" % n for n in range(200))
    data = (
        b"#+TITLE: deep\n* Top :work:\n" + filler + b"** Plans\n*** @agent create a todo to call "
        b"Ann\n* Next\n" + filler + b"*** @agent tag this with project\n**** below\n"
        b"* COMMENT Old\n** @agent create a todo to ignore\n"
    )
    out = route_document(data, "n.org", env)
    assert [(r.line, r.status) for r in out.requests] == [(604, "done"), (1206, "done")]
    text = out.data.decode()
    assert "*** @agent create a todo to call Ann\n:PROPERTIES:\n:ORGROUTER_STATUS: done\n" in text
    assert "**** TODO call Ann\n" in text
    assert route_document(out.data, "n.org", env).data == out.data  # a second pass: no change
    full_index(monkeypatch)
    whole = route_document(data, "n.org", env)
    assert whole.data == out.data
    assert [r.to_json() for r in whole.requests] == [r.to_json() for r in out.requests]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_documents_route_as_with_a_full_index(case: tuple[bytes, int]) -> None:
    data, _requests = case
    config = Config()
    env = RouteEnv(config=config, skills=load_skills(config).skills, now=NOW)
    partial = route_document(data, "n.org", env)
    with pytest.MonkeyPatch.context() as patch:
        full_index(patch)
        whole = route_document(data, "n.org", env)
    assert partial.data == whole.data
    assert [r.to_json() for r in partial.requests] == [r.to_json() for r in whole.requests]
