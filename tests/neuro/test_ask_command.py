"""``orgrouter ask`` end to end: a real process, a real config file, a real server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatserver import ChatServer, run_orgrouter

from orgrouter.config import Config, NeuroConfig
from orgrouter.errors import UsageError
from orgrouter.route.chat import answer_chat

KEY = "sk-test-ask-9f8e7d6c5b4a"


def orgrouter(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_orgrouter(cwd, "ask", *args, env={"ORGROUTER_TEST_KEY": KEY}, stdin=stdin)


def write_config(directory: Path, url: str) -> None:
    (directory / "orgrouter.toml").write_text(
        "[neuro]\n"
        'backend = "openai"\n'
        f'endpoint = "{url}"\n'
        'model = "llama3.2:3b"\n'
        'api_key_env = "ORGROUTER_TEST_KEY"\n'
        "max_retries = 0\n"
        "timeout_s = 5\n",
        encoding="utf-8",
    )


def test_ask_prints_the_models_answer_as_org(chat_server: ChatServer, tmp_path: Path) -> None:
    write_config(tmp_path, chat_server.url)
    chat_server.reply('(:type :DELEGATION :payload (:skill "ask" :text "what is org mode?"))')
    chat_server.reply("**Org mode** is an Emacs mode.\n\n* outlines\n* `TODO` lists")
    done = orgrouter(tmp_path, "what is org mode?")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == ("* Answer\n*Org mode* is an Emacs mode.\n\n- outlines\n- ~TODO~ lists\n")
    assert [r.headers["Authorization"] for r in chat_server.received] == [f"Bearer {KEY}"] * 2
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name != "orgrouter.toml":
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in done.stdout + done.stderr


def test_ask_reads_stdin(chat_server: ChatServer, tmp_path: Path) -> None:
    write_config(tmp_path, chat_server.url)
    chat_server.reply('(:type :DELEGATION :payload (:skill "explain" :text "explain monads"))')
    chat_server.reply("A monad wraps a value.")
    done = orgrouter(tmp_path, "-", stdin="explain monads\n")
    assert (done.returncode, done.stdout) == (0, "* Explanation\nA monad wraps a value.\n")
    assert chat_server.received[0].json()["messages"][1]["content"] == "explain monads\n"


def test_ask_without_a_model_says_how_to_configure_one(tmp_path: Path) -> None:
    done = orgrouter(tmp_path, "what is org mode?")
    assert done.returncode == 0
    assert done.stdout.startswith("* No model configured\nNo model is configured")
    assert 'backend = "openai"' in done.stdout


def test_ask_reports_a_refused_connection(closed_port_url: str, tmp_path: Path) -> None:
    write_config(tmp_path, closed_port_url)
    done = orgrouter(tmp_path, "explain monads")
    assert done.returncode == 3
    assert done.stderr.splitlines()[-1] == (
        "orgrouter: error: Model error: explain not done: gave up after 1 attempt: "
        f"cannot connect: ConnectError (llama3.2:3b at {closed_port_url})"
    )


def test_ask_with_a_bad_config_exits_2(tmp_path: Path) -> None:
    (tmp_path / "orgrouter.toml").write_text('[neuro]\nbackend = "openai"\n', encoding="utf-8")
    done = orgrouter(tmp_path, "hi there, what is org?")
    assert done.returncode == 2
    # This config names no api_key_env, so the helper's ORGROUTER_TEST_KEY is unread.
    assert done.stderr == (
        "orgrouter: warning: ORGROUTER_TEST_KEY is not a variable orgrouter reads; ignored\n"
        "orgrouter: error: neuro.endpoint is required with backend 'openai' "
        "(e.g. http://localhost:11434/v1 for Ollama)\n"
    )


def test_empty_question_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no question given"):
        answer_chat("  \n", Config(neuro=NeuroConfig()))


def test_ask_uses_the_agents_own_model_settings(chat_server: ChatServer, tmp_path: Path) -> None:
    (tmp_path / "orgrouter.toml").write_text(
        '[neuro]\nbackend = "rules"\n\n'
        "[agents.coder.neuro]\n"
        'backend = "openai"\n'
        f'endpoint = "{chat_server.url}"\n'
        'model = "qwen2.5-coder:7b"\n',
        encoding="utf-8",
    )
    chat_server.reply('(:type :DELEGATION :payload (:skill "explain" :text "explain closures"))')
    chat_server.reply("A closure keeps its scope.")
    done = orgrouter(tmp_path, "--agent", "coder", "explain closures")
    assert (done.returncode, done.stdout) == (0, "* Explanation\nA closure keeps its scope.\n")
    assert {r.json()["model"] for r in chat_server.received} == {"qwen2.5-coder:7b"}
    offline = orgrouter(tmp_path, "explain closures")
    assert offline.stdout.startswith("* No model configured\n")
