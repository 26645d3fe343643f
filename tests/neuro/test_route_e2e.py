"""``orgrouter route`` with a model: a notes dir, an orgrouter.toml, the replay server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import ChatServer, run_orgrouter

KEY = "sk-test-route-0a1b2c3d4e5f"
NOTE = """\
#+TITLE: Team notes

* Weekly sync
The team met on Monday. We agreed to ship the parser on Friday.
Anna reviews the budget next week; Bob fixes the flaky test.

** @agent summarize this section, then translate the decision into French

* Private :@personal:
My bank PIN is 4711.
** @agent explain this to me
"""
DECOMPOSED = (
    "(:type :MULTI-DELEGATION :intents ("
    '(:skill "summarize" :verb "summarize" :object "this section" '
    ':text "summarize this section")'
    '(:skill "translate" :verb "translate" :object "the decision into French" '
    ':text "translate the decision into French" :depends-on (1))))'
)
SUMMARY = (
    "## Decisions\n"
    "* Ship the **parser** on Friday.\n"
    "* Anna reviews the budget; Bob fixes the `flaky` test."
)
TRANSLATION = "Nous avons décidé de livrer l'analyseur vendredi."
ROUTED = """\
#+TITLE: Team notes

* Weekly sync
The team met on Monday. We agreed to ship the parser on Friday.
Anna reviews the budget next week; Bob fixes the flaky test.

** @agent summarize this section, then translate the decision into French
:PROPERTIES:
:ORGROUTER_STATUS: done
:ORGROUTER_HASH: {hash1}
:END:
*** Summary
:PROPERTIES:
:ORGROUTER_RESULT: {hash1}/1
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 1 summarize: summarize this section
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_MODEL: llama3.2:3b
:ORGROUTER_CHECK: {check1}
:END:
{summary}
- Ship the *parser* on Friday.
- Anna reviews the budget; Bob fixes the ~flaky~ test.
*** Translation
:PROPERTIES:
:ORGROUTER_RESULT: {hash1}/2
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 2 translate: translate the decision into French
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_MODEL: llama3.2:3b
:ORGROUTER_CHECK: {check2}
:END:
Nous avons décidé de livrer l'analyseur vendredi.

* Private :@personal:
My bank PIN is 4711.
** @agent explain this to me
:PROPERTIES:
:ORGROUTER_STATUS: done
:ORGROUTER_HASH: {hash2}
:END:
*** Not sent to a model: private
:PROPERTIES:
:ORGROUTER_RESULT: {hash2}/1
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 1 explain: explain this to me
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_CHECK: {check3}
:END:
This subtree is private (tagged @personal), so it is never sent to a model, and there \
is no offline answer to a free-form question.
"""


def route(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_orgrouter(tmp, "route", *args, env={"ORGROUTER_TEST_KEY": KEY})


def setup_notes(tmp: Path, url: str) -> Path:
    notes = tmp / "notes"
    notes.mkdir()
    (notes / "meeting.org").write_text(NOTE, encoding="utf-8")
    (notes / "orgrouter.toml").write_text(
        "[neuro]\n"
        'backend = "openai"\n'
        f'endpoint = "{url}"\n'
        'model = "llama3.2:3b"\n'
        'api_key_env = "ORGROUTER_TEST_KEY"\n'
        "max_retries = 1\n"
        "timeout_s = 5\n",
        encoding="utf-8",
    )
    return notes


def properties(text: str, key: str) -> list[str]:
    return [line.split()[1] for line in text.splitlines() if line.startswith(f":{key}:")]


def test_route_writes_model_results_and_keeps_the_note(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    notes = setup_notes(tmp_path, chat_server.url)
    chat_server.reply(DECOMPOSED)
    chat_server.play("server_error_then_success")  # the summary: a 500, then an answer
    chat_server.queue[-1]["body"]["choices"][0]["message"]["content"] = SUMMARY
    chat_server.reply(TRANSLATION)
    done = route(
        tmp_path, "notes", "--now", "2026-11-30T09:00", "--log", str(tmp_path / "events.jsonl")
    )
    assert (done.returncode, done.stderr) == (
        0,
        "routed notes/meeting.org: 2 requests, 3 results\n"
        "1 file scanned, 2 requests routed, 3 results written, 1 file changed.\n",
    )
    routed = (notes / "meeting.org").read_text(encoding="utf-8")
    hash1, hash2 = properties(routed, "ORGROUTER_HASH")
    check1, check2, check3 = properties(routed, "ORGROUTER_CHECK")
    expected = ROUTED.format(
        hash1=hash1,
        hash2=hash2,
        check1=check1,
        check2=check2,
        check3=check3,
        summary="{summary}",
    )
    # The model's heading is a bold line, written as it is (the body is safe Org).
    assert routed == expected.replace("{summary}", "*Decisions*")

    # The user's bytes are all there, in order: only insertions were made.
    remaining = routed
    for line in NOTE.splitlines(keepends=True):
        at = remaining.index(line)
        remaining = remaining[at + len(line) :]

    # What the model saw: the section, never the private subtree; the key only as a header.
    assert len(chat_server.received) == 4
    for request in chat_server.received:
        assert "4711" not in request.body
        assert "Private" not in request.body
        assert request.headers["Authorization"] == f"Bearer {KEY}"
    summarize = chat_server.received[1].json()["messages"][1]["content"]
    assert summarize == (
        "summarize this section\n\nThe notes:\n\n"
        "The team met on Monday. We agreed to ship the parser on Friday.\n"
        "Anna reviews the budget next week; Bob fixes the flaky test."
    )

    # The key is in no file the run wrote, nor in its output.
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "orgrouter.toml"]
    assert any(p.name == "events.jsonl" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in done.stdout + done.stderr

    # A second run changes nothing and asks the model nothing.
    mtime = (notes / "meeting.org").stat().st_mtime_ns
    again = route(tmp_path, "notes", "--now", "2026-11-30T09:05")
    assert again.returncode == 0
    assert (notes / "meeting.org").stat().st_mtime_ns == mtime
    assert len(chat_server.received) == 4


def test_a_models_code_block_survives_write_back(chat_server: ChatServer, tmp_path: Path) -> None:
    notes = setup_notes(tmp_path, chat_server.url)
    (notes / "meeting.org").write_text("* Code\n** @agent explain list comprehensions\n")
    chat_server.reply(
        '(:type :DELEGATION :payload (:skill "explain" :text "explain list comprehensions"))'
    )
    chat_server.reply("Like this:\n\n```python\nsquares = [x * x for x in range(3)]\n```")
    done = route(tmp_path, "notes", "--now", "2026-11-30T09:00")
    assert done.returncode == 0
    routed = (notes / "meeting.org").read_text()
    assert "\n#+begin_src python\nsquares = [x * x for x in range(3)]\n#+end_src\n" in routed


def test_a_file_tagged_private_sends_nothing(chat_server: ChatServer, tmp_path: Path) -> None:
    notes = setup_notes(tmp_path, chat_server.url)
    (notes / "meeting.org").write_text(
        "#+FILETAGS: :@personal:\n* Health\nBlood pressure 120/80.\n** @agent summarize this\n",
        encoding="utf-8",
    )
    done = route(tmp_path, "notes", "--now", "2026-11-30T09:00")
    assert done.returncode == 0
    assert chat_server.received == []
    routed = (notes / "meeting.org").read_text(encoding="utf-8")
    assert "*** Summary\n" in routed  # the offline, extractive summary
    assert "120/80" in routed.split("*** Summary\n")[1]
