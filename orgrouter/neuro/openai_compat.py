"""A client for any OpenAI-compatible ``/v1/chat/completions`` endpoint.

Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI all speak this shape. httpx is
imported here and this module is imported only when a model is configured, so the
offline path never pays for it.
"""

from __future__ import annotations

import email.utils
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Completion, Message
from orgrouter.neuro.budget import RunTimeSpent, TokenBudget, estimate_tokens

log = logging.getLogger("orgrouter.neuro")

# Reasoning models (DeepSeek-R1, Qwen3 on Ollama) put their thinking before the answer.
_THINKING = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
BACKOFF_BASE_S = 0.5
CONNECT_TIMEOUT_CAP_S = 10.0
MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # a chat answer is text: far more is a runaway server


def chat_url(endpoint: str) -> str:
    """Return the chat completions URL for a base URL such as ``http://host:11434/v1``."""
    base = endpoint.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if urlsplit(base).path in ("", "/"):
        # A bare host (Ollama's `http://localhost:11434`) serves the API under /v1.
        base += "/v1"
    return base + "/chat/completions"


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Return the wait a ``Retry-After`` header asks for (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass
class OpenAIBackend:
    """A chat model behind an OpenAI-compatible endpoint, with retries and a budget."""

    endpoint: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    max_retries: int = 2
    temperature: float = 0.2
    budget: TokenBudget = field(default_factory=lambda: TokenBudget(None))
    sleep: Callable[[float], None] = time.sleep
    name: str = "openai"

    def _error(self, message: str) -> ModelError:
        text = f"{message} ({self.model} at {self.endpoint})"
        # A misbehaving server may echo the Authorization header back in an error body.
        return ModelError(text.replace(self.api_key, "***") if self.api_key else text)

    def _backoff(self, attempt: int, header: str | None) -> float:
        wanted = retry_after_s(header)
        if wanted is None:
            wanted = BACKOFF_BASE_S * (2**attempt)
        # Never wait longer than one call may take: cron runs must end.
        return min(wanted, self.timeout_s)

    def complete(self, messages: list[Message], *, purpose: str) -> Completion:
        """Send ``messages`` and return the model's reply, retrying transient failures.

        One deadline covers the whole call: connecting, every read (a server that drips
        a byte a second is cut off too) and every retry with its wait. It is
        ``timeout_s``, or less when the run's model time (``neuro.run_timeout_s``) ends
        sooner; a call cut by the run's time raises ``RunTimeSpent``, so the request is
        deferred to the next run rather than failed.
        """
        prompt_estimate = estimate_tokens("".join(m.content for m in messages))
        self.budget.check(prompt_estimate)
        run_left = self.budget.time_left()
        by_run = run_left is not None and run_left < self.timeout_s
        window = run_left if run_left is not None and by_run else self.timeout_s
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self.temperature,
            "stream": False,
        }
        started = time.monotonic()
        deadline = started + window
        try:
            reply = _within(deadline, lambda: self._attempts(body, headers, purpose, deadline))
        except _Deadline:
            if by_run:
                raise RunTimeSpent(
                    f"model time spent: the run's {self.budget.time_limit_s:g}s "
                    "(neuro.run_timeout_s) ended during a call; the request is deferred "
                    "to the next run"
                ) from None
            raise self._error(
                f"model timed out after {self.timeout_s:g}s (neuro.timeout_s)"
            ) from None
        finally:
            self.budget.charge_time(time.monotonic() - started)
        return self._completion(reply, purpose, prompt_estimate)

    def _attempts(
        self, body: dict[str, Any], headers: dict[str, str], purpose: str, deadline: float
    ) -> _Reply:
        """Post ``body`` until an answer that is not transient, or the deadline."""
        url = chat_url(self.endpoint)
        problem = "no attempt made"
        with httpx.Client(follow_redirects=False) as client:
            for attempt in range(self.max_retries + 1):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _Deadline
                if attempt:
                    log.info("model %s: retry %d after %s", purpose, attempt, problem)
                timeout = httpx.Timeout(left, connect=min(left, CONNECT_TIMEOUT_CAP_S))
                try:
                    reply = self._post(client, url, body, headers, timeout, deadline)
                except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as e:
                    problem, header = f"cannot connect: {type(e).__name__}", None
                except httpx.TimeoutException:
                    # A reply slower than the deadline is not retried: that would
                    # multiply the wait of every run that hits a stuck server.
                    raise _Deadline from None
                except httpx.HTTPError as e:
                    raise self._error(f"request failed: {type(e).__name__}: {e}") from None
                else:
                    if reply.status not in RETRY_STATUSES:
                        return reply
                    problem, header = f"HTTP {reply.status}", reply.retry_after
                if attempt < self.max_retries:
                    self._wait(self._backoff(attempt, header), deadline, problem)
        from orgrouter.report import plural

        raise self._error(f"gave up after {plural(self.max_retries + 1, 'attempt')}: {problem}")

    def _post(
        self,
        client: httpx.Client,
        url: str,
        body: dict[str, Any],
        headers: dict[str, str],
        timeout: httpx.Timeout,
        deadline: float,
    ) -> _Reply:
        """Post once, reading the answer in chunks against the deadline and a size cap."""
        with client.stream("POST", url, json=body, headers=headers, timeout=timeout) as response:
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise self._error(
                        f"the reply is larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB"
                    )
                if time.monotonic() >= deadline:
                    raise _Deadline
                chunks.append(chunk)
            text = b"".join(chunks).decode(response.encoding or "utf-8", "replace")
            return _Reply(response.status_code, response.headers.get("Retry-After"), text)

    def _wait(self, seconds: float, deadline: float, problem: str) -> None:
        """Sleep before a retry, unless the retry could not start before the deadline."""
        if time.monotonic() + seconds >= deadline:
            raise self._error(
                f"{problem}: a retry after {seconds:g}s would pass the call's deadline "
                f"(neuro.timeout_s {self.timeout_s:g}s for the whole call)"
            )
        self.sleep(seconds)

    def _completion(self, reply: _Reply, purpose: str, prompt_estimate: int) -> Completion:
        if reply.status >= 400:
            raise self._error(
                f"HTTP {reply.status}: {server_message(reply.text)}"
                + (" (check neuro.api_key_env)" if reply.status in (401, 403) else "")
            )
        try:
            data = json.loads(reply.text)
        except (ValueError, RecursionError):  # '[[[[...' nests past json's C stack guard
            raise self._error(
                f"endpoint answered with something that is not JSON: {reply.text[:80]!r}"
            ) from None
        text = reply_text(data)
        if text is None:
            raise self._error("model reply has no choices or no message content")
        usage = data.get("usage") if isinstance(data, dict) else None
        prompt_tokens = _int(usage, "prompt_tokens")
        completion_tokens = _int(usage, "completion_tokens")
        if prompt_tokens is None or completion_tokens is None:
            # Some servers omit usage; an estimate still lets the budget stop a run.
            prompt_tokens = prompt_estimate
            completion_tokens = estimate_tokens(text)
        self.budget.charge(prompt_tokens + completion_tokens)
        log.info(
            "model %s: %d prompt + %d completion tokens", purpose, prompt_tokens, completion_tokens
        )
        return Completion(text, prompt_tokens, completion_tokens)


@dataclass(frozen=True)
class _Reply:
    """One HTTP answer, read whole."""

    status: int
    retry_after: str | None
    text: str


class _Deadline(Exception):
    """The call's deadline passed (connecting, reading, or waiting to retry)."""


def _within(deadline: float, work: Callable[[], _Reply]) -> _Reply:
    """Return ``work()``, or raise ``_Deadline`` once the deadline passes, whatever it does.

    httpx bounds each read, not a whole reply, and a read that waits just short of its
    timeout can follow another; the work runs in a daemon thread so that the caller
    gets its answer at the deadline at the latest. The thread stops at its next chunk
    (``_post`` checks the deadline too) or its next read timeout.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # handed to the caller, whatever it is
            box["error"] = error

    thread = threading.Thread(target=run, name="orgrouter-model-call", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise _Deadline
    if "error" in box:
        raise box["error"]
    reply: _Reply = box["value"]
    return reply


def _int(mapping: object, key: str) -> int | None:
    if isinstance(mapping, dict):
        value = mapping.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def reply_text(data: object) -> str | None:
    """Return the first choice's message text of a chat completion, or None."""
    if not isinstance(data, dict):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return None
    content = _THINKING.sub("", content, count=1)
    return content if content.strip() else None


def server_message(body: str) -> str:
    """Return the error message inside an OpenAI-shaped error body, else its start."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return body.strip()[:200] or "(empty body)"
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return body.strip()[:200]
