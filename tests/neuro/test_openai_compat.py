"""The OpenAI-compatible client against a real HTTP server replaying recorded replies."""

from __future__ import annotations

import logging

import pytest
from chatserver import ChatServer

from orgrouter.config import NeuroConfig
from orgrouter.errors import ConfigError, ModelError
from orgrouter.neuro.backend import Completion, Message
from orgrouter.neuro.budget import BudgetReached, TokenBudget
from orgrouter.neuro.factory import make_backend
from orgrouter.neuro.openai_compat import OpenAIBackend, chat_url, retry_after_s

ASK = [Message("system", "You answer briefly."), Message("user", "What is Org mode?")]


def backend(url: str, sleeps: list[float] | None = None, **overrides: object) -> OpenAIBackend:
    config = NeuroConfig(backend="openai", endpoint=url, model="llama3.2:3b", timeout_s=5.0)
    for key, value in overrides.items():
        setattr(config, key, value)
    record = [] if sleeps is None else sleeps
    made = make_backend(config, env={"TEST_KEY": "sk-test-secret-1234"}, sleep=record.append)
    assert isinstance(made, OpenAIBackend)
    return made


def test_ollama_success_returns_text_and_usage(chat_server: ChatServer) -> None:
    chat_server.play("ollama_success")
    reply = backend(chat_server.url).complete(ASK, purpose="ask")
    assert reply == Completion(
        "The meeting agreed to ship the parser on Friday and to review the budget next week.",
        48,
        31,
    )
    [request] = chat_server.received
    assert request.path == "/v1/chat/completions"
    assert request.json() == {
        "model": "llama3.2:3b",
        "messages": [
            {"role": "system", "content": "You answer briefly."},
            {"role": "user", "content": "What is Org mode?"},
        ],
        "temperature": 0.2,
        "stream": False,
    }
    assert "Authorization" not in request.headers


def test_openai_shape_and_bearer_key_from_env(chat_server: ChatServer) -> None:
    chat_server.play("openai_success")
    reply = backend(chat_server.url, api_key_env="TEST_KEY").complete(ASK, purpose="ask")
    assert reply.text == (
        "Org mode is an Emacs major mode for notes, planning and literate programming."
    )
    assert (reply.prompt_tokens, reply.completion_tokens) == (61, 22)
    assert chat_server.received[0].headers["Authorization"] == "Bearer sk-test-secret-1234"


def test_missing_usage_is_estimated_and_charged(chat_server: ChatServer) -> None:
    chat_server.play("no_usage")
    made = backend(chat_server.url)
    reply = made.complete(ASK, purpose="ask")
    assert reply.text == "An answer from llama.cpp without a usage block."
    assert (reply.prompt_tokens, reply.completion_tokens) == (9, 12)
    assert made.budget.spent == 21


def test_a_reasoning_models_thinking_is_dropped(chat_server: ChatServer) -> None:
    chat_server.play("ollama_thinking")
    reply = backend(chat_server.url).complete(ASK, purpose="ask")
    assert reply == Completion("The parser ships on Friday.", 52, 40)


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("garbage", "endpoint answered with something that is not JSON: '<html><head>"),
        ("empty_choices", "model reply has no choices or no message content"),
        ("model_not_found", 'HTTP 404: model "llama9" not found, try pulling it first'),
    ],
)
def test_unusable_replies_are_clear_errors(
    chat_server: ChatServer, scenario: str, message: str
) -> None:
    chat_server.play(scenario)
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url).complete(ASK, purpose="ask")
    assert str(caught.value).startswith(message)
    assert str(caught.value).endswith(f"(llama3.2:3b at {chat_server.url})")
    assert len(chat_server.received) == 1  # not retried


@pytest.mark.parametrize(
    ("status", "message"),
    [(200, "endpoint answered with something that is not JSON"), (400, "HTTP 400: [[[[")],
)
def test_json_nested_past_the_parsers_depth_is_a_clear_error(
    chat_server: ChatServer, status: int, message: str
) -> None:
    """A hostile server's '[[[[...' makes json.loads raise RecursionError, not ValueError."""
    chat_server.queue.append({"status": status, "body_text": "[" * 200_000})
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url).complete(ASK, purpose="ask")
    assert str(caught.value).startswith(message)


def test_unauthorized_names_the_key_setting_and_never_the_key(chat_server: ChatServer) -> None:
    chat_server.play("unauthorized")
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url, api_key_env="TEST_KEY").complete(ASK, purpose="ask")
    assert "HTTP 401: Incorrect API key provided" in str(caught.value)
    assert "(check neuro.api_key_env)" in str(caught.value)
    assert "sk-test-secret-1234" not in str(caught.value)


def test_429_waits_as_retry_after_says_then_succeeds(chat_server: ChatServer) -> None:
    chat_server.play("rate_limited_then_success")
    sleeps: list[float] = []
    reply = backend(chat_server.url, sleeps).complete(ASK, purpose="ask")
    assert reply.text == "Retried and answered."
    assert sleeps == [2.0]
    assert len(chat_server.received) == 2


def test_a_retry_after_past_the_calls_deadline_gives_up_at_once(chat_server: ChatServer) -> None:
    # timeout_s bounds the whole call, retries included: a 2 s wait cannot fit in 0.5 s.
    chat_server.play("rate_limited_then_success")
    sleeps: list[float] = []
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url, sleeps, timeout_s=0.5).complete(ASK, purpose="ask")
    assert sleeps == []
    assert str(caught.value).startswith(
        "HTTP 429: a retry after 0.5s would pass the call's deadline "
        "(neuro.timeout_s 0.5s for the whole call)"
    )


def test_500_then_success_backs_off(chat_server: ChatServer) -> None:
    chat_server.play("server_error_then_success")
    sleeps: list[float] = []
    reply = backend(chat_server.url, sleeps).complete(ASK, purpose="ask")
    assert reply.text == "Answered after a restart."
    assert sleeps == [0.5]


def test_persistent_5xx_gives_up_after_max_retries(chat_server: ChatServer) -> None:
    chat_server.play("server_error_always", "server_error_always", "server_error_always")
    sleeps: list[float] = []
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url, sleeps, max_retries=2).complete(ASK, purpose="ask")
    assert str(caught.value) == (
        f"gave up after 3 attempts: HTTP 503 (llama3.2:3b at {chat_server.url})"
    )
    assert sleeps == [0.5, 1.0]
    assert len(chat_server.received) == 3


def test_a_hang_past_the_timeout_is_an_error_not_retried(chat_server: ChatServer) -> None:
    chat_server.play("hang")
    with pytest.raises(ModelError) as caught:
        backend(chat_server.url, timeout_s=0.3).complete(ASK, purpose="ask")
    assert str(caught.value) == (
        f"model timed out after 0.3s (neuro.timeout_s) (llama3.2:3b at {chat_server.url})"
    )
    assert len(chat_server.received) == 1


def test_connection_refused_is_retried_then_an_error(closed_port_url: str) -> None:
    sleeps: list[float] = []
    with pytest.raises(ModelError) as caught:
        backend(closed_port_url, sleeps, max_retries=1).complete(ASK, purpose="ask")
    assert str(caught.value) == (
        f"gave up after 2 attempts: cannot connect: ConnectError (llama3.2:3b at {closed_port_url})"
    )
    assert sleeps == [0.5]


def test_budget_stops_further_calls(chat_server: ChatServer) -> None:
    chat_server.play("ollama_success", "ollama_success")
    made = backend(chat_server.url, budget_tokens=100)
    made.complete(ASK, purpose="ask")  # 79 tokens
    assert made.budget.spent == 79
    with pytest.raises(BudgetReached) as caught:
        made.complete(ASK, purpose="ask")  # about 9 more would fit, but not twice
        made.complete(ASK, purpose="ask")
    assert str(caught.value).startswith("budget reached: ")
    assert "of 100 tokens spent this run (neuro.budget_tokens)" in str(caught.value)
    assert len(chat_server.received) <= 2


def test_shared_budget_counts_across_backends(chat_server: ChatServer) -> None:
    chat_server.play("ollama_success")
    budget = TokenBudget(79)
    config = NeuroConfig(backend="openai", endpoint=chat_server.url, model="m")
    first = make_backend(config, budget=budget)
    second = make_backend(config, budget=budget)
    assert first is not None and second is not None
    first.complete(ASK, purpose="ask")
    with pytest.raises(BudgetReached):
        second.complete(ASK, purpose="ask")
    assert len(chat_server.received) == 1


def test_key_never_appears_in_log_lines(
    chat_server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    chat_server.play("rate_limited_then_success")
    with caplog.at_level(logging.DEBUG):
        backend(chat_server.url, api_key_env="TEST_KEY").complete(ASK, purpose="ask")
    assert [r.getMessage() for r in caplog.records if r.name == "orgrouter.neuro"] == [
        "model ask: retry 1 after HTTP 429",
        "model ask: 20 prompt + 5 completion tokens",
    ]
    assert all("sk-test-secret" not in line for line in caplog.text.splitlines())


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (NeuroConfig(backend="openia"), "neuro.backend: unknown backend 'openia' (did you mean"),
        (NeuroConfig(backend="openai"), "neuro.endpoint is required with backend 'openai'"),
        (NeuroConfig(backend="openai", endpoint="http://x/v1"), "neuro.model is required"),
        (
            NeuroConfig(backend="openai", endpoint="http://x/v1", model="m", api_key_env="NOPE"),
            "neuro.api_key_env names NOPE, but that environment variable is not set",
        ),
        (
            NeuroConfig(backend="openai", endpoint="localhost:11434", model="m"),
            "neuro.endpoint must be an http:// or https:// URL, not 'localhost:11434'",
        ),
        (
            NeuroConfig(backend="openai", endpoint="http://x/v1", model="m", timeout_s=0),
            "neuro.timeout_s must be positive, not 0",
        ),
    ],
)
def test_bad_configs_are_config_errors(config: NeuroConfig, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_backend(config, env={})
    assert str(caught.value).startswith(message)


def test_rules_means_no_backend() -> None:
    assert make_backend(NeuroConfig()) is None


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("http://localhost:11434", "http://localhost:11434/v1/chat/completions"),
        ("http://localhost:11434/v1/", "http://localhost:11434/v1/chat/completions"),
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
        ("http://h:8080/v1/chat/completions", "http://h:8080/v1/chat/completions"),
    ],
)
def test_chat_url(endpoint: str, url: str) -> None:
    assert chat_url(endpoint) == url


def test_retry_after_forms() -> None:
    assert retry_after_s("3") == 3.0
    assert retry_after_s("-1") == 0.0
    assert retry_after_s("soon") is None
    assert retry_after_s(None) is None
    assert retry_after_s("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
