"""What waits on the user across the notes: requests, clarifications and approvals.

An editor lists these so the user can visit each: a request not routed yet (new, or
its instruction edited since), one whose last run failed, a clarification the agent
asked for the current instruction, and an approval headline nobody has decided (or
decided and not yet routed). Reads only; a file that cannot be read is an error entry
naming it, and the walk goes on.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from orgrouter.config import Config
from orgrouter.errors import OrgRouterError


def find_pending(start: Path, config: Config) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the pending items of the notes root of ``start``, in file order, and errors."""
    from orgrouter.discover import discover, find_notes_root

    root = find_notes_root([start])
    found = discover([root], config.scan)
    errors = [str(error) for error in found.errors]
    items: list[dict[str, Any]] = []
    for path in found.files:
        try:
            items.extend(file_pending(path, config))
        except OrgRouterError as error:
            errors.append(str(error) if error.path else f"{path}: {error}")
    return items, errors


def file_pending(path: str | os.PathLike[str], config: Config) -> list[dict[str, Any]]:
    """Return the pending items of one note."""
    from orgrouter.address import address_names, address_offsets
    from orgrouter.configload import agent_keyword_in_bytes
    from orgrouter.io.text import CR, LF, check_org, read_stable
    from orgrouter.org.document import Document
    from orgrouter.route.request import HASH_KEY, STATUS_KEY, find_requests
    from orgrouter.route.results import KIND_KEY, written_results

    data, _st = read_stable(path)
    if b"@" not in data:
        return []
    newline = check_org(data, path)
    if newline == CR:  # read by its lines, as route and Emacs (mac EOL) read it
        data, newline = data.replace(CR, LF), LF
    agent = config.agent
    names = address_names(
        agent_keyword_in_bytes(data, os.fspath(path)) or agent.name,
        [*agent.sub_agents, *config.agents],
    )
    offsets = address_offsets(data, names)
    if not offsets:
        return []
    document = Document.around(data, offsets, path, newline=newline)
    items: list[dict[str, Any]] = []
    for request in find_requests(document, names, offsets):
        asked = {"request_line": request.line, "instruction": request.instruction}
        item = partial(_item, os.fspath(path), asked=asked)
        status = request.recorded(STATUS_KEY)
        if request.recorded(HASH_KEY) != request.hash:
            items.append(item("request", request.line, request.instruction))
            continue  # what it has are answers to an older instruction
        if status == "error":
            items.append(item("error", request.line, request.instruction))
        ours = request.hash + "/"
        for written in written_results(document, request):
            if not written.identity.startswith(ours):
                continue
            kind = written.get(KIND_KEY)
            if kind == "approval" and written.get(STATUS_KEY) is None:
                items.append(item("approval", written.line, written.title, written.keyword))
            elif kind == "clarification" and status in ("clarify", "waiting"):
                items.append(item("clarification", written.line, written.title))
    return items


def _item(
    file: str, kind: str, line: int, title: str, keyword: str = "", *, asked: dict[str, Any]
) -> dict[str, Any]:
    """Return one pending item, in the key order the serve protocol shows."""
    return {"kind": kind, "file": file, "line": line, "title": title, "keyword": keyword, **asked}
