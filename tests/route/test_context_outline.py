"""The headlines skills see for a request: its section's, never requests or results."""

from __future__ import annotations

from pathlib import Path

from route_cli import run_cli

from orgrouter.org.document import Document
from orgrouter.route.context import outline
from orgrouter.route.request import find_requests

NOTE = b"""\
* Milestones
** Pilot episode
- [ ] record the pilot
*** TODO Book the studio
** @agent turn the open boxes under Pilot episode into todos
:PROPERTIES:
:ORGROUTER_STATUS: done
:END:
*** TODO record the pilot
:PROPERTIES:
:ORGROUTER_RESULT: abc/1
:END:
** DONE Website\r
** Ask bob@agent.org about the mics
* Other
** not in the section
"""


def test_outline_of_the_requests_parent() -> None:
    document = Document.around(NOTE, [NOTE.index(b"** @agent")])
    (request,) = find_requests(document, ("agent",))
    parent = request.entry.parent
    assert parent is not None
    found = outline(document, parent, {request.line}, ("agent",))
    assert [(h.line, h.depth, h.todo, h.title) for h in found] == [
        (2, 1, None, "Pilot episode"),
        (4, 2, "TODO", "Book the studio"),
        (13, 1, "DONE", "Website"),  # CRLF: the \\r is no part of the title
        (14, 1, None, "Ask bob@agent.org about the mics"),  # an email is no address
    ]
    assert found[0].body == "- [ ] record the pilot\n"


def test_sibling_requests_share_their_parents_outline_and_no_other(tmp_path: Path) -> None:
    # Bare requests are about their parent's section: one outline per parent per note
    # (each of 1,250 siblings read the parent's whole subtree again: quadratic).
    note = (
        b"* Alpha\n** Box A\n- [ ] alpha task\n"
        b"** @agent turn the open boxes under Box A into todos\n"
        b"** @agent turn the open boxes under Box A into todos please\n"
        b"* Beta\n** Box B\n- [ ] beta task\n"
        b"** @agent turn the open boxes under Box B into todos\n"
    )
    args = ["route", "--stdin", "--file-name", str(tmp_path / "a.org")]
    code, out, _err = run_cli(args, tmp_path, stdin=note)
    heads = [line for line in out.decode().splitlines() if line.startswith("*")]
    assert code == 0 and heads == [
        "* Alpha", "** Box A", "** @agent turn the open boxes under Box A into todos",
        "*** TODO alpha task", "** @agent turn the open boxes under Box A into todos please",
        "*** TODO alpha task", "* Beta", "** Box B",
        "** @agent turn the open boxes under Box B into todos", "*** TODO beta task",
    ]  # fmt: skip
