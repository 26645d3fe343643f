"""``orgrouter route`` with a model: a notes dir, an orgrouter.toml, the replay server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from chatserver import ChatServer, run_orgrouter

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
EDITOR = "**Keep it short:** one line per decision."
LIBRARIAN = "Link the decision to the release notes:\n\n```org\n* Release notes\n```"
SYNTHESIS = "## Advice\nWrite one line per decision, linked to the release notes."
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
*** The Editor (Clarity and Style)
:PROPERTIES:
:ORGROUTER_RESULT: {hash1}/3
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 3 specialists: summarize this section, then translate the decision into French
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_PERSONA: The Editor
:ORGROUTER_MODEL: llama3.2:3b
:ORGROUTER_CHECK: {check3}
:END:
*Keep it short:* one line per decision.
*** The Librarian (Finding and Linking Notes)
:PROPERTIES:
:ORGROUTER_RESULT: {hash1}/4
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 3 specialists: summarize this section, then translate the decision into French
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_PERSONA: The Librarian
:ORGROUTER_MODEL: llama3.2:3b
:ORGROUTER_CHECK: {check4}
:END:
Link the decision to the release notes:

#+begin_src org
,* Release notes
#+end_src
*** Synthesis
:PROPERTIES:
:ORGROUTER_RESULT: {hash1}/5
:ORGROUTER_KIND: result
:ORGROUTER_INTENT: 3 specialists: summarize this section, then translate the decision into French
:ORGROUTER_RUN: 2026-11-30T09:00:00
:ORGROUTER_PERSONA: synthesis
:ORGROUTER_MODEL: llama3.2:3b
:ORGROUTER_CHECK: {check5}
:END:
*Advice*
Write one line per decision, linked to the release notes.

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
:ORGROUTER_CHECK: {check6}
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
    # The gate spawns two specialists for this request (see the spawn golden set).
    chat_server.reply(EDITOR)
    chat_server.reply(LIBRARIAN)
    chat_server.reply(SYNTHESIS)
    done = route(
        tmp_path, "notes", "--now", "2026-11-30T09:00", "--log", str(tmp_path / "events.jsonl")
    )
    assert (done.returncode, done.stderr) == (
        0,
        "routed notes/meeting.org: 2 requests, 6 results\n"
        "1 file scanned, 2 requests routed, 6 results written, 1 file changed.\n",
    )
    routed = (notes / "meeting.org").read_text(encoding="utf-8")
    hash1, hash2 = properties(routed, "ORGROUTER_HASH")
    checks = properties(routed, "ORGROUTER_CHECK")
    assert len(checks) == 6
    expected = ROUTED.format(
        hash1=hash1,
        hash2=hash2,
        **{f"check{n}": check for n, check in enumerate(checks, 1)},
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
    assert len(chat_server.received) == 7
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

    # Each specialist answered the request with its own system prompt; the synthesis
    # saw their answers (and went through no gate: one call, no decomposition).
    editor, librarian, synthesis = (r.json()["messages"] for r in chat_server.received[4:])
    assert editor[0]["content"].startswith("You are The Editor, a specialist in clarity")
    assert librarian[0]["content"].startswith("You are The Librarian")
    assert (
        editor[1]["content"]
        == librarian[1]["content"]
        == summarize.replace(
            "summarize this section",
            "summarize this section, then translate the decision into French",
        )
    )
    assert synthesis[1]["content"] == (
        "The request: summarize this section, then translate the decision into French\n\n"
        f"The Editor (Clarity and Style) said:\n{EDITOR}\n\n"
        f"The Librarian (Finding and Linking Notes) said:\n{LIBRARIAN}"
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
    assert len(chat_server.received) == 7


def test_a_models_code_block_survives_write_back(chat_server: ChatServer, tmp_path: Path) -> None:
    notes = setup_notes(tmp_path, chat_server.url)
    (notes / "meeting.org").write_text("* Code\n** @agent explain list comprehensions\n")
    chat_server.reply(
        '(:type :DELEGATION :payload (:skill "explain" :text "explain list comprehensions"))'
    )
    chat_server.reply("Like this:\n\n```python\nsquares = [x * x for x in range(3)]\n```")
    chat_server.reply("Check `range` first.")  # the one specialist the gate spawns
    done = route(tmp_path, "notes", "--now", "2026-11-30T09:00")
    assert done.returncode == 0
    routed = (notes / "meeting.org").read_text()
    assert "\n#+begin_src python\nsquares = [x * x for x in range(3)]\n#+end_src\n" in routed
    # One voice needs no synthesis: one persona result, and no error anywhere.
    assert "\n*** The Detective (Root Cause Analysis)\n" in routed
    assert routed.endswith(":END:\nCheck ~range~ first.\n")
    assert ":ORGROUTER_STATUS: done\n" in routed
    assert len(chat_server.received) == 3


def test_offline_no_specialist_is_consulted(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "meeting.org").write_text(NOTE.split("\n* Private")[0] + "\n", encoding="utf-8")
    done = route(tmp_path, "notes", "--now", "2026-11-30T09:00", "--json")
    assert done.returncode == 0
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    # The gate still scores two specialists, but without a model none is asked.
    assert record["gate"]["spawn"]["count"] == 2
    assert [i["skill"] for i in record["intents"]] == ["summarize", "translate"]
    assert [(r["title"], r["skill"]) for r in record["results"]] == [
        ("Summary", "summarize"),
        ("No model configured", "ask"),
    ]
    assert "ORGROUTER_PERSONA" not in (notes / "meeting.org").read_text(encoding="utf-8")


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
