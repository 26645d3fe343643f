"""The context a skill sees for a request under a headline, for the skill tests.

A plain module (not conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from orgrouter.config import Config
from orgrouter.skills.base import Context, Request

NOW = datetime(2026, 12, 1, 9, 0)  # a Tuesday, the dev set's clock


def request_ctx(**fields: Any) -> Context:
    """Return a context for a request on line 7 under the headline "Monday" (line 3)."""
    shaped: dict[str, Any] = {
        "path": None,
        "line": 7,
        "headline": "@agent ...",
        "instruction": "...",
        "agent": "agent",
        "parent_line": 3,
        "parent_title": "Monday",
    }
    return Context(Config(), NOW, request=Request(**(shaped | fields)))
