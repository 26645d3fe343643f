"""orgrouter's mark in a note: the property that makes a headline one of its results.

Below route and skills, which both look for it. Org reads property keys
case-insensitively (``org-entry-get``), so ``:orgrouter_result:`` written by a user who
reformatted the drawer still names a result.
"""

from __future__ import annotations

import re

RESULT_KEY = "ORGROUTER_RESULT"
MARK = b":" + RESULT_KEY.encode("ascii") + b":"
_MARK_RE = re.compile(re.escape(MARK), re.IGNORECASE)


def find_mark(data: bytes, start: int = 0, end: int | None = None) -> int:
    """Return the offset of the next ``:ORGROUTER_RESULT:``, in any case, or -1."""
    found = _MARK_RE.search(data, start, len(data) if end is None else end)
    return -1 if found is None else found.start()
