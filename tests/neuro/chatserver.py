"""A real chat-completions HTTP server on 127.0.0.1 that replays recorded responses.

A plain module (not conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "neuro"


@dataclass
class Received:
    """One request the server got."""

    path: str
    headers: dict[str, str]
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class ChatServer:
    """The replay server's state: queued responses and every request received."""

    url: str = ""
    queue: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, Any] | None = None  # the response once the queue is empty
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def play(self, *names: str) -> None:
        """Queue the recorded responses of the data files ``names``, in order."""
        for name in names:
            self.queue.extend(json.loads((DATA / f"{name}.json").read_text())["responses"])

    def reply(self, text: str, prompt_tokens: int = 10, completion_tokens: int = 10) -> None:
        """Queue one Ollama-shaped success whose message is ``text``."""
        self.queue.append(success(text, prompt_tokens, completion_tokens))

    def always(self, text: str, **extra: Any) -> None:
        """Answer ``text`` to every request once the queue is empty (``extra``: drip_s...)."""
        self.default = {**success(text), **extra}

    def next_response(self) -> dict[str, Any]:
        with self.lock:
            if not self.queue:
                if self.default is not None:
                    return self.default
                return {"status": 500, "body_text": "test server: no response queued\n"}
            return self.queue.pop(0)


def success(text: str, prompt_tokens: int = 10, completion_tokens: int = 10) -> dict[str, Any]:
    """Return an Ollama-shaped success response whose message is ``text``."""
    body: dict[str, Any] = json.loads((DATA / "ollama_success.json").read_text())["responses"][0]
    body["body"]["choices"][0]["message"]["content"] = text
    body["body"]["usage"] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    return body


def _handler(state: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8")
            with state.lock:
                state.received.append(Received(self.path, dict(self.headers.items()), body))
            response = state.next_response()
            time.sleep(float(response.get("delay_s", 0)))
            if "body" in response:
                payload = json.dumps(response["body"]).encode()
            else:
                payload = str(response.get("body_text", "")).encode()
            try:
                self.send_response(int(response["status"]))
                for name, value in response.get("headers", {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                drip = float(response.get("drip_s", 0))
                if not drip:
                    self.wfile.write(payload)
                for at in range(len(payload) if drip else 0):
                    # A server that never stalls long enough for a read timeout.
                    self.wfile.write(payload[at : at + 1])
                    self.wfile.flush()
                    time.sleep(drip)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


@contextmanager
def serve() -> Iterator[ChatServer]:
    """Run a chat completions server on an ephemeral 127.0.0.1 port while in the block."""
    state = ChatServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    state.url = f"http://{host!s}:{port}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def run_orgrouter(
    cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m orgrouter ARGS`` in ``cwd``, isolated from the user's config."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ORGROUTER_", "XDG_"))}
    clean.update(XDG_CONFIG_HOME=str(cwd / "xdg-config"), XDG_STATE_HOME=str(cwd / "xdg-state"))
    clean.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "orgrouter", *args],
        cwd=cwd,
        env=clean,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
