"""The JSON-RPC loop: every bad call gets an error reply and the server lives on."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from orgrouter.serve.framing import read_message

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_helpers import call, clean_env, exchange, frame, make_server

NOW = "2026-11-30T09:00"


def test_malformed_calls_get_errors_and_the_server_goes_on(tmp_path: Path) -> None:
    server = make_server(tmp_path)
    assert json.loads(server.answer(b"{not json") or b"")["error"]["code"] == -32700
    assert json.loads(server.answer(b"[1, 2]") or b"")["error"]["code"] == -32600
    assert exchange(server, "no-such")["error"]["code"] == -32601
    bad = exchange(server, "route", {"txt": "x"})["error"]
    assert (bad["code"], bad["message"]) == (-32602, "route: text is required")
    typo = exchange(server, "route", {"text": "", "pth": "a.org"})["error"]
    assert typo["message"] == "route: unknown param(s): pth"
    assert exchange(server, "route", [1])["error"]["code"] == -32602
    lone = json.loads(
        server.answer(b'{"jsonrpc":"2.0","id":7,"method":"route","params":{"text":"\\ud800"}}')
        or b""
    )
    assert lone["error"]["code"] == -32602 and lone["id"] == 7
    assert call(server, "route", {"text": "* nothing\n", "now": NOW})["changed"] is False


def test_a_bad_note_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    server = make_server(tmp_path)
    reply = exchange(server, "route", {"text": "* ok\nbad \x00 byte\n", "path": "n.org"})
    error = reply["error"]
    assert error["code"] == -32000
    assert error["data"]["file"] == "n.org" and error["data"]["line"] == 2
    assert error["message"].startswith("n.org:2")


def test_notifications_get_no_reply_and_shutdown_refuses_later_calls(tmp_path: Path) -> None:
    server = make_server(tmp_path)
    assert server.answer(b'{"jsonrpc":"2.0","method":"route","params":{}}') is None
    assert call(server, "shutdown") is None
    assert exchange(server, "classify", {"text": "hello"})["error"]["code"] == -32600
    assert server.answer(b'{"jsonrpc":"2.0","method":"exit"}') is None
    assert server.exited


def test_the_real_process_over_pipes(tmp_path: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "route",
         "params": {"text": "* @agent create a todo to buy milk\n", "now": NOW}},
        {"jsonrpc": "2.0", "id": 2, "method": "classify", "params": {"text": "delete it all"}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]  # fmt: skip
    stream = b"Content-Length: 3\r\n\r\n{x}" + b"".join(frame(m) for m in messages)
    replies, _ = serve_process(stream, tmp_path)
    assert [r.get("id") for r in replies] == [None, 1, 2, 3]
    assert replies[0]["error"]["code"] == -32700
    assert "** TODO buy milk\n" in replies[1]["result"]["text"]
    assert replies[2]["result"]["risk_level"] == "high"
    assert replies[3]["result"] is None


def serve_process(stream: bytes, tmp: Path) -> tuple[list[dict[str, Any]], bytes]:
    """Run the real ``orgrouter serve`` on ``stream``; return its replies and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "orgrouter", "serve"], input=stream, capture_output=True,
        env={**clean_env(tmp), "PATH": "/usr/bin:/bin"}, cwd=tmp, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = io.BytesIO(done.stdout)
    replies = []
    while (body := read_message(out)) is not None:
        replies.append(json.loads(body))
    return replies, done.stderr


def test_end_of_input_without_shutdown_exits_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orgrouter", "serve"], input=b"", capture_output=True,
        env={**clean_env(tmp_path), "PATH": "/usr/bin:/bin"}, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, b"")


def test_serve_is_a_command(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from orgrouter.cli import cli

    listed = CliRunner().invoke(cli, ["--help"], env=clean_env(tmp_path))
    assert "serve" in listed.output
    helped = CliRunner().invoke(cli, ["serve", "--help"], env=clean_env(tmp_path))
    assert helped.exit_code == 0 and "Content-Length" in helped.output


NOISY_SKILL = """
import os
import subprocess
import sys

from orgrouter.skills.base import BaseSkill

class Noisy(BaseSkill):
    name = "noisy"
    priority = 99

    def trigger(self, stimulus, ctx):
        if "weather" in stimulus.text:
            os.write(1, b"Content-Length: 5\\r\\n\\r\\nnoise")  # straight to descriptor 1
            subprocess.run([sys.executable, "-c", "print('a child on stdout')"], check=True)
        return False

SKILLS = [Noisy()]
"""


def test_a_skill_writing_to_stdout_cannot_corrupt_the_replies(tmp_path: Path) -> None:
    # A user skill (or a program it runs, which inherits file descriptor 1) that
    # writes to stdout must not land in the JSON-RPC stream Emacs parses.
    notes, skills = tmp_path / "notes", tmp_path / "skills"  # never skills from the notes
    notes.mkdir()
    skills.mkdir()
    (skills / "noisy.py").write_text(NOISY_SKILL)
    (notes / "orgrouter.toml").write_text(f"[skills]\npaths = [{json.dumps(str(skills))}]\n")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "route",
         "params": {"text": "* @agent create a todo to check the weather\n",
                    "path": str(notes / "a.org"), "now": NOW}},
        {"jsonrpc": "2.0", "id": 2, "method": "classify", "params": {"text": "hello"}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]  # fmt: skip
    replies, stderr = serve_process(b"".join(frame(m) for m in messages), tmp_path)
    assert [r.get("id") for r in replies] == [1, 2, 3]
    assert replies[0]["result"]["changed"] is True
    assert b"a child on stdout" in stderr and b"noise" in stderr
