"""Decomposition by a model: plist and JSON replies, vetoes, and the rules fallback."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conftest import ChatServer

from orgrouter.config import NeuroConfig
from orgrouter.neuro.backend import NeuroBackend
from orgrouter.neuro.decompose import model_decompose, validate
from orgrouter.neuro.factory import make_backend

SKILLS = ["summarize", "todo", "translate", "draft", "ask", "schedule"]


def rules(text: str) -> Sequence[Mapping[str, Any]]:
    """Stand in for the rules decomposer: the whole instruction as one ask intent."""
    return [{"skill": "ask", "text": text, "order": 1}]


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
    outcome = model_decompose(model(chat_server.url), instruction, SKILLS, fallback=rules)
    assert outcome.source == "model"
    assert outcome.notes == ()
    assert outcome.intents == (
        {
            "skill": "summarize",
            "verb": "summarize",
            "object": "this section",
            "agent": None,
            "order": 1,
            "depends_on": [],
            "text": "summarize this section",
            "span": (0, 22),
        },
        {
            "skill": "todo",
            "verb": "create",
            "object": "todos for the action items",
            "agent": None,
            "order": 2,
            "depends_on": [1],
            "text": "create todos for the action items",
            "span": (29, 62),
        },
    )
    [request] = chat_server.received
    sent = request.json()["messages"]
    assert sent[1] == {"role": "user", "content": instruction}
    assert "ask, draft, schedule, summarize, todo, translate" in sent[0]["content"]
    assert "(:type :MULTI-DELEGATION" in sent[0]["content"]


def test_json_reply_with_args(chat_server: ChatServer) -> None:
    chat_server.play("json_reply")
    instruction = "translate the intro into French and draft a reply to Anna"
    outcome = model_decompose(
        model(chat_server.url), instruction, SKILLS, fallback=rules, reply_format="json"
    )
    assert outcome.source == "model"
    assert [(i["skill"], i["text"], i.get("args")) for i in outcome.intents] == [
        ("translate", "translate the intro into French", {"language": "French"}),
        ("draft", "draft a reply to Anna", None),
    ]
    assert '"type": "MULTI-DELEGATION"' in chat_server.received[0].json()["messages"][0]["content"]


def test_unknown_skill_and_empty_text_are_vetoed(chat_server: ChatServer) -> None:
    chat_server.play("plist_vetoed")
    outcome = model_decompose(model(chat_server.url), "summarize this", SKILLS, fallback=rules)
    assert outcome.source == "model"
    assert [i["text"] for i in outcome.intents] == ["summarize this"]
    assert outcome.notes == (
        "vetoed intent 'rm -rf ~/notes': unknown skill 'shell'",
        "vetoed intent '': no text",
    )


def test_garbage_falls_back_to_rules_and_says_so(chat_server: ChatServer) -> None:
    chat_server.play("garbage")
    outcome = model_decompose(model(chat_server.url), "plan my week", SKILLS, fallback=rules)
    assert outcome.source == "rules"
    assert outcome.intents == ({"skill": "ask", "text": "plan my week", "order": 1},)
    [note] = outcome.notes
    assert note.startswith(
        "model reply unusable: endpoint answered with something that is not JSON"
    )
    assert note.endswith("; used the rules decomposer")


def test_prose_reply_falls_back(chat_server: ChatServer) -> None:
    chat_server.reply("I would start by summarizing the section.")
    outcome = model_decompose(model(chat_server.url), "summarize it", SKILLS, fallback=rules)
    assert outcome.source == "rules"
    assert outcome.notes == (
        "model reply unusable: the reply holds no Lisp form (no parentheses); "
        "used the rules decomposer",
    )


def test_all_vetoed_falls_back(chat_server: ChatServer) -> None:
    chat_server.reply('(:type :MULTI-DELEGATION :intents ((:skill "email" :text "send it")))')
    outcome = model_decompose(model(chat_server.url), "send it", SKILLS, fallback=rules)
    assert outcome.source == "rules"
    assert outcome.notes == (
        "vetoed intent 'send it': unknown skill 'email'",
        "model proposed no acceptable intent; used the rules decomposer",
    )


def test_budget_reached_falls_back_without_a_call(chat_server: ChatServer) -> None:
    outcome = model_decompose(
        model(chat_server.url, budget_tokens=1), "summarize it", SKILLS, fallback=rules
    )
    assert outcome.source == "rules"
    assert outcome.notes[0].startswith("model not asked: budget reached: 0 of 1 tokens")
    assert chat_server.received == []


def test_connection_refused_falls_back(closed_port_url: str) -> None:
    outcome = model_decompose(
        model(closed_port_url, max_retries=0), "summarize it", SKILLS, fallback=rules
    )
    assert outcome.source == "rules"
    assert outcome.notes[0].startswith(
        "model reply unusable: gave up after 1 attempts: cannot connect"
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
    )
    assert [why for _, why in vetoed] == [
        "not found in the request",
        "depends on a vetoed intent",
        "agent 'coder; rm' is not a name",
        "args are not a small map of strings",
    ]
    assert [(i["order"], i["agent"]) for i in accepted] == [(1, "writer")]
