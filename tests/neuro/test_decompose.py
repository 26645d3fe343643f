"""Decomposition by a model: plist and JSON replies, vetoes, and the rules fallback."""

from __future__ import annotations

from typing import Any

from chatserver import ChatServer
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.config import NeuroConfig
from orgrouter.errors import ModelError
from orgrouter.neuro.backend import NeuroBackend
from orgrouter.neuro.factory import make_backend
from orgrouter.route.decompose import decompose
from orgrouter.route.modeldecompose import (
    DecomposeOutcome,
    model_decompose,
    read_reply,
    validate,
)
from orgrouter.route.rules import default_rules

SKILLS = ["summarize", "todo", "translate", "draft", "ask", "schedule", "delete"]
RULES = default_rules()


def split(backend: NeuroBackend, instruction: str, **options: Any) -> DecomposeOutcome:
    return model_decompose(backend, instruction, SKILLS, rules=RULES, **options)


def assert_rules_answered(outcome: DecomposeOutcome, instruction: str) -> None:
    assert outcome.source == "rules"
    assert list(outcome.intents) == decompose(instruction, RULES).intents
    assert outcome.intents  # the rules decomposer did find something to do


def model(url: str, **overrides: Any) -> NeuroBackend:
    made = make_backend(
        NeuroConfig(backend="openai", endpoint=url, model="llama3.2:3b", **overrides),
        sleep=lambda _: None,
    )
    assert made is not None
    return made


def test_plist_reply_becomes_delegations(chat_server: ChatServer) -> None:
    chat_server.play("plist_reply")
    instruction = "summarize this section, then create todos for the action items"
    outcome = split(model(chat_server.url), instruction)
    assert outcome.source == "model"
    assert outcome.notes == ()
    assert [intent.to_json() for intent in outcome.intents] == [
        {
            "order": 1,
            "skill": "summarize",
            "verb": "summarize",
            "object": "this section",
            "agent": None,
            "depends_on": [],
            "start": 0,
            "end": 22,
            "text": "summarize this section",
            "basis": "model",
            "confidence": RULES.confidence["verb"],
            "risk": "low",
            "needs_approval": False,
            "risk_reason": None,
        },
        {
            "order": 2,
            "skill": "todo",
            "verb": "create",
            "object": "todos for the action items",
            "agent": None,
            "depends_on": [1],
            "start": 29,
            "end": 62,
            "text": "create todos for the action items",
            "basis": "model",
            "confidence": RULES.confidence["verb"],
            "risk": "low",
            "needs_approval": False,
            "risk_reason": None,
        },
    ]
    [request] = chat_server.received
    sent = request.json()["messages"]
    assert sent[1] == {"role": "user", "content": instruction}
    assert "ask, delete, draft, schedule, summarize, todo, translate" in sent[0]["content"]
    assert "(:type :MULTI-DELEGATION" in sent[0]["content"]


def test_json_reply_with_args(chat_server: ChatServer) -> None:
    chat_server.play("json_reply")
    instruction = "translate the intro into French and draft a reply to Anna"
    outcome = split(model(chat_server.url), instruction, reply_format="json")
    assert outcome.source == "model"
    assert [(i.skill, i.text, i.start) for i in outcome.intents] == [
        ("translate", "translate the intro into French", 0),
        ("draft", "draft a reply to Anna", 36),
    ]
    assert '"type": "MULTI-DELEGATION"' in chat_server.received[0].json()["messages"][0]["content"]


def test_unknown_skill_and_empty_text_are_vetoed(chat_server: ChatServer) -> None:
    chat_server.play("plist_vetoed")
    outcome = split(model(chat_server.url), "summarize this")
    assert outcome.source == "model"
    assert [i.text for i in outcome.intents] == ["summarize this"]
    assert outcome.notes == (
        "vetoed intent 'rm -rf ~/notes': unknown skill 'shell'",
        "vetoed intent '': no text",
    )


def test_garbage_falls_back_to_rules_and_says_so(chat_server: ChatServer) -> None:
    chat_server.play("garbage")
    outcome = split(model(chat_server.url), "summarize my week")
    assert_rules_answered(outcome, "summarize my week")
    [note] = outcome.notes
    assert note.startswith(
        "model reply unusable: endpoint answered with something that is not JSON"
    )
    assert note.endswith("; used the rules decomposer")


def test_prose_reply_falls_back(chat_server: ChatServer) -> None:
    chat_server.reply("I would start by summarizing the section.")
    outcome = split(model(chat_server.url), "summarize it")
    assert_rules_answered(outcome, "summarize it")
    assert outcome.notes == (
        "model reply unusable: the reply holds no Lisp form (no parentheses); "
        "used the rules decomposer",
    )


def test_all_vetoed_falls_back(chat_server: ChatServer) -> None:
    chat_server.reply('(:type :MULTI-DELEGATION :intents ((:skill "email" :text "send it")))')
    outcome = split(model(chat_server.url), "send it")
    assert_rules_answered(outcome, "send it")
    assert outcome.notes == (
        "vetoed intent 'send it': unknown skill 'email'",
        "model proposed no acceptable intent; used the rules decomposer",
    )


def test_budget_reached_falls_back_without_a_call(chat_server: ChatServer) -> None:
    outcome = split(model(chat_server.url, budget_tokens=1), "summarize it")
    assert_rules_answered(outcome, "summarize it")
    assert outcome.notes[0].startswith("model not asked: budget reached: 0 of 1 tokens")
    assert chat_server.received == []


def test_connection_refused_falls_back(closed_port_url: str) -> None:
    outcome = split(model(closed_port_url, max_retries=0), "summarize it")
    assert_rules_answered(outcome, "summarize it")
    assert outcome.notes[0].startswith(
        "model reply unusable: gave up after 1 attempt: cannot connect"
    )


def test_validate_refuses_invented_work_and_dangling_dependencies() -> None:
    accepted, vetoed = validate(
        [
            {"skill": "todo", "text": "email the whole company my password"},
            {"skill": "todo", "text": "create todos", "depends_on": [1]},
            {"skill": "todo", "text": "create todos", "agent": "coder; rm"},
            {"skill": "summarize", "text": "summarize notes", "args": {"x": ["a"]}},
            {"skill": "summarize", "text": "summarize notes", "agent": "@Writer"},
        ],
        "summarize notes and create todos",
        SKILLS,
        RULES,
    )
    assert [why for _, why in vetoed] == [
        "not found in the request",
        "depends on a vetoed intent",
        "agent 'coder; rm' is not a name",
        "args are not a small map of strings",
    ]
    assert [(i.order, i.agent) for i in accepted] == [(1, "writer")]


def test_risky_model_intents_need_approval_like_rules_ones(chat_server: ChatServer) -> None:
    chat_server.reply(
        '(:type :DELEGATION :payload (:skill "delete" :verb "delete" :text "delete this"))'
    )
    outcome = split(model(chat_server.url), "delete this")
    assert outcome.source == "model"
    [intent] = outcome.intents
    assert (intent.skill, intent.needs_approval, intent.risk) == ("delete", True, "high")


replies = st.one_of(
    st.text(max_size=80),
    st.lists(
        st.sampled_from(
            [
                "(",
                ")",
                ":type",
                ":MULTI-DELEGATION",
                ":DELEGATION",
                ":intents",
                ":payload",
                ":skill",
                '"todo"',
                ":text",
                '"do it"',
                ":args",
                ":depends-on",
                "nil",
                "1",
                "'",
                "{",
                "}",
                "[",
                "]",
                '"intents":',
                ",",
                '"skill": "todo"',
                "```",
            ]
        ),
        max_size=30,
    ).map(" ".join),
)


@settings(max_examples=400, deadline=None)
@given(replies, st.sampled_from(["plist", "json"]))
def test_any_reply_is_intents_or_a_model_error(reply: str, reply_format: Any) -> None:
    try:
        proposed = read_reply(reply, reply_format)
    except ModelError:
        return
    accepted, vetoed = validate(proposed, "do it and todo", SKILLS, RULES)
    assert len(accepted) + len(vetoed) == len(proposed)
