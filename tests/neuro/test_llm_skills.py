"""Model-backed skills and specialists through the real kernel and a real HTTP server."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from chatserver import ChatServer

from orgrouter.config import Config, NeuroConfig
from orgrouter.neuro.factory import make_backend
from orgrouter.neuro.privacy import shareable
from orgrouter.route.kernel import Outcome, run
from orgrouter.skills.base import Context, Request, Skill, delegation
from orgrouter.skills.registry import builtin_skills, dispatch_order
from orgrouter.skills.replies import MAX_REPLY_CHARS, clip
from orgrouter.skills.specialists import specialists

SECRET = "my bank PIN is 4711"
SECTION = (
    "The team met on Monday. We agreed to ship the parser on Friday.\n"
    "** Diary :@personal:\n"
    f"{SECRET}\n"
    "*** Deeper private note\n"
    "still private\n"
    "** Public follow-up\n"
    "Anna reviews the budget next week.\n"
    "** Summary\n"
    ":PROPERTIES:\n"
    ":ORGROUTER_RESULT: abc/1\n"
    ":END:\n"
    "an earlier result, not sent again\n"
)


def config_for(url: str | None, **neuro: Any) -> Config:
    config = Config()
    if url is not None:
        config.neuro = NeuroConfig(
            backend="openai", endpoint=url, model="llama3.2:3b", max_retries=0, **neuro
        )
    return config


def context(config: Config, *, private: bool = False, section: str = SECTION) -> Context:
    request = Request(
        path=None,
        line=1,
        headline="@agent summarize this section",
        instruction="summarize this section",
        agent="agent",
        section=section,
        private=private,
    )
    backend = make_backend(config.neuro, sleep=lambda _: None)
    return Context(
        config=config, now=datetime(2026, 11, 30, 12, 0), request=request, backend=backend
    )


def skills(config: Config) -> list[Skill]:
    return dispatch_order(builtin_skills())  # the model skills, whatever the backend


def route(skill: str, text: str, ctx: Context) -> Outcome:
    return run(delegation({"skill": skill, "text": text, "order": 1}), skills(ctx.config), ctx)


def titles(outcome: Outcome) -> list[tuple[str, str, str]]:
    return [(e.skill, e.result.kind, e.result.title) for e in outcome.emitted]


def test_summarize_uses_the_model_and_converts_markdown(chat_server: ChatServer) -> None:
    chat_server.play("markdown_reply")
    ctx = context(config_for(chat_server.url))
    outcome = route("summarize", "summarize this section", ctx)
    assert titles(outcome) == [("summarize-model", "result", "Summary")]
    result = outcome.emitted[0].result
    assert result.properties == (("ORGROUTER_MODEL", "llama3.2:3b"),)
    assert result.body.splitlines()[:3] == [
        "*Plan*",
        "",
        "- First, *install* the ~orgrouter~ package.",
    ]
    assert "#+begin_src python\n,* not a headline\n" in result.body
    assert "\n,#+TITLE: injected\n" in result.body
    [request] = chat_server.received
    sent = request.json()["messages"]
    assert sent[0]["role"] == "system"
    assert sent[1]["content"] == (
        "summarize this section\n\nThe notes:\n\n"
        "The team met on Monday. We agreed to ship the parser on Friday.\n"
        "** Public follow-up\n"
        "Anna reviews the budget next week."
    )


def test_privacy_tagged_text_is_never_sent(chat_server: ChatServer) -> None:
    for _ in range(6):
        chat_server.reply("Done.")
    ctx = context(config_for(chat_server.url))
    for skill in ("summarize", "ask", "translate", "draft", "rewrite", "explain"):
        outcome = route(skill, f"{skill} this section", ctx)
        assert [e.result.kind for e in outcome.emitted] == ["result"]
    assert len(chat_server.received) == 6
    for request in chat_server.received:
        assert SECRET not in request.body
        assert "still private" not in request.body
        assert "Deeper private note" not in request.body


def test_private_request_is_answered_without_a_call(chat_server: ChatServer) -> None:
    ctx = context(config_for(chat_server.url), private=True)
    ctx.backend = None  # as the route pipeline hands private requests no backend
    assert titles(route("translate", "translate this into German", ctx)) == [
        ("ask", "result", "Not sent to a model: private")
    ]
    assert titles(route("ask", "what does this mean?", ctx)) == [
        ("ask", "result", "Not sent to a model: private")
    ]
    summary = route("summarize", "summarize this section", ctx)
    assert titles(summary) == [("summarize", "result", "Summary")]  # offline, extractive
    assert "nothing was sent to a model" in summary.emitted[0].result.body
    assert chat_server.received == []


def test_without_a_model_the_offline_skills_answer() -> None:
    ctx = context(config_for(None))
    assert titles(route("ask", "what is org?", ctx)) == [("ask", "result", "No model configured")]
    assert titles(route("draft", "draft a reply", ctx)) == [
        ("ask", "result", "No model configured")
    ]
    assert titles(route("summarize", "summarize this section", ctx)) == [
        ("summarize", "result", "Summary")
    ]


@pytest.mark.parametrize(
    ("scenario", "body_start"),
    [
        ("garbage", "endpoint answered with something that is not JSON"),
        ("empty_choices", "model reply has no choices or no message content"),
        ("server_error_always", "gave up after 1 attempt: HTTP 503"),
    ],
)
def test_model_failures_become_error_results(
    chat_server: ChatServer, scenario: str, body_start: str
) -> None:
    chat_server.play(scenario)
    outcome = route("explain", "explain this", context(config_for(chat_server.url)))
    assert titles(outcome) == [("explain", "error", "Model error: explain not done")]
    assert outcome.emitted[0].result.body.startswith(body_start)


def test_a_hang_becomes_an_error_result(chat_server: ChatServer) -> None:
    chat_server.play("hang")
    ctx = context(config_for(chat_server.url, timeout_s=0.2))
    outcome = route("draft", "draft a reply", ctx)
    assert titles(outcome) == [("draft", "error", "Model error: draft not done")]
    assert outcome.emitted[0].result.body == (
        f"model timed out after 0.2s (neuro.timeout_s) (llama3.2:3b at {chat_server.url})"
    )


def test_budget_reached_is_a_clear_result(chat_server: ChatServer) -> None:
    chat_server.play("ollama_success")
    ctx = context(config_for(chat_server.url, budget_tokens=80))
    assert titles(route("explain", "explain this", ctx)) == [("explain", "result", "Explanation")]
    outcome = route("explain", "explain that", ctx)
    assert titles(outcome) == [("explain", "error", "Budget reached: explain not done")]
    assert outcome.emitted[0].result.body == (
        "budget reached: 79 of 80 tokens spent this run (neuro.budget_tokens); no further "
        "model calls until the next run. It runs again on the next run."
    )
    assert len(chat_server.received) == 1


def test_rewrite_without_text_asks_for_clarification(chat_server: ChatServer) -> None:
    ctx = context(config_for(chat_server.url), section="")
    assert titles(route("rewrite", "rewrite this", ctx)) == [
        ("rewrite", "clarification", "Clarification needed: nothing to rewrite")
    ]
    assert chat_server.received == []


@dataclass(frozen=True)
class Persona:
    name: str
    role: str


PERSONAS = [Persona("The Detective", "Root Cause Analysis"), Persona("Ms Nobody", "Cooking")]


def test_specialists_answer_then_synthesis(chat_server: ChatServer) -> None:
    chat_server.reply("# Causes\n* the cache")
    chat_server.reply("Add salt.")
    chat_server.reply("Both agree: check the cache first.")
    ctx = context(config_for(chat_server.url))
    results = specialists(ctx, "why is the build slow?", PERSONAS)
    assert [(r.title, r.body) for r in results] == [
        ("The Detective (Root Cause Analysis)", "*Causes*\n- the cache"),
        ("Ms Nobody (Cooking)", "Add salt."),
        ("Synthesis", "Both agree: check the cache first."),
    ]
    assert results[0].properties == (
        ("ORGROUTER_PERSONA", "The Detective"),
        ("ORGROUTER_MODEL", "llama3.2:3b"),
    )
    systems = [r.json()["messages"][0]["content"] for r in chat_server.received]
    assert systems[0].startswith("You are The Detective, a specialist in root cause analysis.")
    assert systems[1].startswith("You are Ms Nobody, a specialist in Cooking.")
    assert systems[2].startswith("You combine the answers of several specialists")
    synthesis_input = chat_server.received[2].json()["messages"][1]["content"]
    assert "The Detective (Root Cause Analysis) said:\n# Causes\n* the cache" in synthesis_input
    assert all(SECRET not in r.body for r in chat_server.received)


def test_a_failing_specialist_does_not_stop_the_others(chat_server: ChatServer) -> None:
    chat_server.play("server_error_always")
    chat_server.reply("Add salt.")
    results = specialists(context(config_for(chat_server.url)), "why?", PERSONAS)
    assert [(r.kind, r.title) for r in results] == [
        ("error", "Model error: The Detective not done"),
        ("result", "Ms Nobody (Cooking)"),
    ]


def test_specialists_stop_at_the_budget(chat_server: ChatServer) -> None:
    chat_server.reply("Look at the cache.", prompt_tokens=180, completion_tokens=10)
    ctx = context(config_for(chat_server.url, budget_tokens=200))
    results = specialists(ctx, "why?", PERSONAS)
    assert [(r.kind, r.title) for r in results] == [
        ("result", "The Detective (Root Cause Analysis)"),
        ("error", "Budget reached: Ms Nobody and the rest not done"),
    ]
    assert len(chat_server.received) == 1


def test_specialists_for_private_or_offline_requests(chat_server: ChatServer) -> None:
    private = context(config_for(chat_server.url), private=True)
    assert [r.title for r in specialists(private, "why?", PERSONAS)] == [
        "Specialists not consulted: private"
    ]
    private.backend = None  # as the route pipeline hands private requests no backend
    assert [r.title for r in specialists(private, "why?", PERSONAS)] == [
        "Specialists not consulted: private"
    ]
    assert specialists(context(config_for(None), private=True), "why?", PERSONAS) == ()
    assert specialists(context(config_for(None)), "why?", PERSONAS) == ()
    assert chat_server.received == []


def test_shareable_keeps_public_siblings_after_a_private_subtree() -> None:
    text = "a\n* x :work:@personal:\nb\n** c\nd\n* y :work:\ne\n"
    assert shareable(text, ["@personal"]) == "a\n* y :work:\ne\n"


def test_the_specialists_skill_takes_roles_from_the_routing_tables(
    chat_server: ChatServer,
) -> None:
    chat_server.reply("Check the logs.")
    chat_server.reply("Explain it simply.")
    chat_server.reply("Check the logs, then explain.")
    ctx = context(config_for(chat_server.url))
    stimulus = delegation(
        {
            "skill": "specialists",
            "text": "why is it slow?",
            "personas": ["The Detective", "The Teacher"],
        }
    )
    outcome = run(stimulus, skills(ctx.config), ctx)
    assert titles(outcome) == [
        ("specialists", "result", "The Detective (Root Cause Analysis)"),
        ("specialists", "result", "The Teacher (Explanations)"),
        ("specialists", "result", "Synthesis"),
    ]


def test_the_specialists_skill_without_a_model_only_logs() -> None:
    ctx = context(config_for(None))
    stimulus = delegation({"skill": "specialists", "text": "why?", "personas": ["The Teacher"]})
    outcome = run(stimulus, skills(ctx.config), ctx)
    assert outcome.emitted == []
    assert outcome.logs == ["specialists skipped: no model, so the request is handled directly"]


def test_a_runaway_reply_is_clipped_at_a_line_end_and_fences_closed() -> None:
    reply = "```python\n" + "x = 1\n" * (MAX_REPLY_CHARS // 6 + 10)
    clipped = clip(reply)
    assert len(clipped) < MAX_REPLY_CHARS + 60
    assert clipped.endswith(f"x = 1\n```\n\n[The answer was cut at {MAX_REPLY_CHARS} characters.]")
    assert clip("short") == "short"
