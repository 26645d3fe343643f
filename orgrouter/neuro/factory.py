"""Build the model backend a configuration asks for (None for the offline ``rules``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from orgrouter.config import BACKENDS, NeuroConfig
from orgrouter.errors import ConfigError
from orgrouter.neuro.backend import NeuroBackend
from orgrouter.neuro.budget import TokenBudget
from orgrouter.tomlwhere import did_you_mean


def make_backend(
    config: NeuroConfig,
    *,
    budget: TokenBudget | None = None,
    env: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> NeuroBackend | None:
    """Return the backend ``config`` names, or None for ``rules`` (offline skills)."""
    if config.backend == "rules":
        return None
    if config.backend != "openai":
        hint = did_you_mean(config.backend, BACKENDS, label="one of")
        raise ConfigError(f"neuro.backend: unknown backend {config.backend!r}{hint}")
    if not config.endpoint:
        raise ConfigError(
            "neuro.endpoint is required with backend 'openai' "
            "(e.g. http://localhost:11434/v1 for Ollama)"
        )
    if not config.endpoint.startswith(("http://", "https://")):
        raise ConfigError(
            f"neuro.endpoint must be an http:// or https:// URL, not {config.endpoint!r}"
        )
    if not config.model:
        raise ConfigError("neuro.model is required with backend 'openai' (e.g. llama3.2)")
    if config.timeout_s <= 0:
        raise ConfigError(f"neuro.timeout_s must be positive, not {config.timeout_s:g}")
    if config.max_retries < 0:
        raise ConfigError(f"neuro.max_retries must be 0 or more, not {config.max_retries}")
    api_key = None
    if config.api_key_env:
        api_key = (os.environ if env is None else env).get(config.api_key_env)
        if not api_key:
            raise ConfigError(
                f"neuro.api_key_env names {config.api_key_env}, but that environment "
                "variable is not set"
            )
    from orgrouter.neuro.openai_compat import OpenAIBackend  # httpx only when needed

    if budget is None:
        budget = TokenBudget(config.budget_tokens, config.run_timeout_s)
    return OpenAIBackend(
        endpoint=config.endpoint,
        model=config.model,
        api_key=api_key,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
        temperature=config.temperature,
        budget=budget,
        sleep=sleep,
    )
