"""The refusals refine raises (library code raises; the CLI maps them to exit codes)."""

from __future__ import annotations

from orgrouter.errors import OrgRouterError


class RefusedError(OrgRouterError):
    """Refine refused to act: not enabled, wrong run state, stale, or nothing to gate (exit 3)."""
