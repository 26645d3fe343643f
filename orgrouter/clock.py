"""The run's clock: ``--now`` / ``ORGROUTER_NOW`` fix it, so dated output is reproducible."""

from __future__ import annotations

from datetime import datetime

from orgrouter.errors import UsageError

NOW_ENV = "ORGROUTER_NOW"


def parse_now(text: str | None) -> datetime:
    """Return the run's clock: ``text`` as ISO 8601, or the current local time."""
    if not text:
        return datetime.now().replace(microsecond=0)
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--now / {NOW_ENV}: {text!r} is not an ISO 8601 time (e.g. 2026-11-30T09:00)"
        ) from None
