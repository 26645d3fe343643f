"""Helpers for serve tests: a server with a clean environment, and calls to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orgrouter.serve.methods import Settings
from orgrouter.serve.server import Server


def clean_env(tmp: Path) -> dict[str, str]:
    """Return an environment with no user config, state or ORGROUTER_* leaking in."""
    return {"XDG_CONFIG_HOME": str(tmp / "xdg-config"), "XDG_STATE_HOME": str(tmp / "xdg-state")}


def make_server(tmp: Path, **settings: Any) -> Server:
    """Return a server started in ``tmp`` with a clean environment."""
    return Server(Settings(environ=clean_env(tmp), cwd=tmp, **settings))


def exchange(server: Server, method: str, params: Any = None, call_id: int = 1) -> dict[str, Any]:
    """Send one call; return the whole decoded reply."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": call_id, "method": method}
    if params is not None:
        message["params"] = params
    reply = server.answer(json.dumps(message).encode())
    assert reply is not None
    decoded = json.loads(reply)
    assert decoded["jsonrpc"] == "2.0" and decoded["id"] == call_id
    return dict(decoded)


def call(server: Server, method: str, params: Any = None) -> Any:
    """Send one call and return its result (the call must succeed)."""
    reply = exchange(server, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """Apply the route's ``edits`` (ordered, non-overlapping) to ``text``, as Emacs does."""
    for edit in reversed(edits):
        text = text[: edit["begin"]] + edit["text"] + text[edit["end"] :]
    return text


def frame(message: dict[str, Any]) -> bytes:
    """Return ``message`` with the LSP base framing."""
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
