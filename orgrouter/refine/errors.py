"""The refusals refine raises (library code raises; the CLI maps them to exit codes)."""

from __future__ import annotations

from orgrouter.errors import EXIT_FAILED, OrgRouterError


class RefusedError(OrgRouterError):
    """Refine refused to act: not enabled, wrong run state, stale, or nothing to gate."""

    exit_code = EXIT_FAILED
