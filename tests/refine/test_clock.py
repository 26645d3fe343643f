"""Refine's clock: ORGROUTER_NOW fixes it, and a malformed value is refused."""

from __future__ import annotations

import pytest

from orgrouter.errors import UsageError
from orgrouter.refine.workspace import clock


def test_a_fixed_clock_is_kept_as_given() -> None:
    assert clock({"ORGROUTER_NOW": "2026-11-30T09:00"})() == "2026-11-30T09:00"


def test_a_malformed_clock_is_refused_not_stored() -> None:
    with pytest.raises(UsageError, match="ORGROUTER_NOW: 'yesterday' is not an ISO 8601 time"):
        clock({"ORGROUTER_NOW": "yesterday"})
