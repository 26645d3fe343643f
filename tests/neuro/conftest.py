"""Fixtures of the model tests: the chat server of ``chatserver.py``, a closed port."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest
from chatserver import ChatServer, _handler


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """Start a chat completions server on an ephemeral port for one test."""
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


@pytest.fixture
def closed_port_url() -> str:
    """Return a base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
