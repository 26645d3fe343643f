"""The system prompts of model-backed skills and personas (data files, not code)."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@cache
def _table(name: str) -> dict[str, Any]:
    with open(HERE / name, "rb") as handle:
        return tomllib.load(handle)


def _clean(text: str) -> str:
    # TOML multi-line strings keep their line breaks; a model reads one paragraph better.
    return " ".join(text.split())


def skill_prompt(skill: str, part: str = "system") -> str:
    """Return the ``part`` prompt of ``skill`` from skills.toml."""
    return _clean(str(_table("skills.toml")[skill][part]))


def persona_prompt(name: str, role: str) -> str:
    """Return the system prompt of the persona ``name`` (a default built from its role)."""
    table = _table("personas.toml")
    entry = table.get("persona", {}).get(name)
    if isinstance(entry, dict) and isinstance(entry.get("prompt"), str):
        return _clean(entry["prompt"])
    return _clean(str(table["default"]).format(name=name, role=role or "general questions"))
