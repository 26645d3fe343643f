"""The JSON-RPC 2.0 loop of ``orgrouter serve``: read a call, answer it, live on.

One call at a time, in order. A call that is malformed or fails gets an error reply
and the next call is served as if nothing happened: an ``OrgRouterError`` keeps its
message, file, line and exit code in the error's ``data``; anything unexpected is an
internal error (-32603) naming the exception. ``shutdown`` answers null and refuses
every later call; the ``exit`` notification (or the end of stdin) ends the loop.
"""

from __future__ import annotations

import json
from typing import Any, BinaryIO

from orgrouter.errors import OrgRouterError
from orgrouter.serve.framing import FramingError, read_message, write_message
from orgrouter.serve.methods import METHODS, Settings
from orgrouter.serve.params import InvalidParams, Params

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
ORGROUTER_ERROR = -32000  # an OrgRouterError: data carries exit_code, file and line


class CallError(Exception):
    """A call that gets an error reply with ``code``, ``message`` and maybe ``data``."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class Server:
    """Answer calls with ``METHODS``, sharing the ``settings`` it was started with."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.shut_down = False
        self.exited = False

    def serve(self, reader: BinaryIO, writer: BinaryIO) -> int:
        """Answer calls from ``reader`` on ``writer`` until ``exit`` or end of input.

        Return the exit status: 0 after ``shutdown``, else 1 (as LSP servers do).
        """
        while not self.exited:
            try:
                body = read_message(reader)
            except FramingError as error:
                write_message(writer, _error_reply(None, CallError(PARSE_ERROR, str(error))))
                continue
            if body is None:
                break
            reply = self.answer(body)
            if reply is not None:
                write_message(writer, reply)
        return 0 if self.shut_down else 1

    def answer(self, body: bytes) -> bytes | None:
        """Return the reply to one message (None for a notification)."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as error:
            return _error_reply(None, CallError(PARSE_ERROR, f"not JSON: {error}"))
        if not isinstance(message, dict):
            return _error_reply(None, CallError(INVALID_REQUEST, "a call is one JSON object"))
        notification = "id" not in message
        call_id = message.get("id")
        try:
            result = self._call(message)
        except CallError as error:
            return None if notification else _error_reply(_usable_id(call_id), error)
        if notification:
            return None
        return _encode({"jsonrpc": "2.0", "id": call_id, "result": result})

    def _call(self, message: dict[str, Any]) -> Any:
        """Run one call and return its result, or raise CallError."""
        call_id = message.get("id")
        if message.get("jsonrpc") != "2.0":
            raise CallError(INVALID_REQUEST, 'jsonrpc must be "2.0"')
        if call_id is not None and _usable_id(call_id) is None:
            raise CallError(INVALID_REQUEST, "id must be a number or a string")
        method = message.get("method")
        if not isinstance(method, str):
            raise CallError(INVALID_REQUEST, "method must be a string")
        params = {} if message.get("params") is None else message["params"]
        if not isinstance(params, dict):
            raise CallError(INVALID_PARAMS, f"{method}: params must be an object")
        if method == "exit":
            self.exited = True
            return None
        if self.shut_down:
            raise CallError(INVALID_REQUEST, f"{method}: the server is shutting down")
        if method == "shutdown":
            self.shut_down = True
            return None
        handler = METHODS.get(method)
        if handler is None:
            known = ", ".join(sorted([*METHODS, "shutdown", "exit"]))
            raise CallError(METHOD_NOT_FOUND, f"no method {method!r} (known: {known})")
        try:
            return handler(Params(method, params), self.settings)
        except InvalidParams as error:
            raise CallError(INVALID_PARAMS, str(error)) from None
        except OrgRouterError as error:
            data = {
                "exit_code": error.exit_code,
                "message": error.message,
                "file": error.path,
                "line": error.line,
                "column": error.column,
            }
            raise CallError(ORGROUTER_ERROR, str(error), data) from None
        except Exception as error:  # the server lives on (STYLE.md 3's last line)
            detail = f"internal error: {type(error).__name__}: {error}"
            raise CallError(INTERNAL_ERROR, detail) from None


def _usable_id(call_id: Any) -> Any:
    """Return ``call_id`` if a reply may carry it, else None."""
    return None if isinstance(call_id, bool) or not isinstance(call_id, int | str) else call_id


def _error_reply(call_id: Any, error: CallError) -> bytes:
    """Return the encoded error reply."""
    payload: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        payload["data"] = error.data
    return _encode({"jsonrpc": "2.0", "id": call_id, "error": payload})


def _encode(message: dict[str, Any]) -> bytes:
    """Return ``message`` as compact UTF-8 JSON."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "replace")  # a lone surrogate echoed in a message
