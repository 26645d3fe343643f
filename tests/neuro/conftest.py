"""Fixtures of the model tests: the chat server of ``chatserver.py``, a closed port."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from chatserver import ChatServer, serve


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """Start a chat completions server on an ephemeral port for one test."""
    with serve() as state:
        yield state


@pytest.fixture
def closed_port_url() -> str:
    """Return a base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
