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


NESTED = b"""\
* Top
** Box
*** @agent first
**** inner text
**** @agent second
***** Result one
:PROPERTIES:
:ORGROUTER_RESULT: abc/1
:END:
****** deeper in the result
**** after the second
*** a result the user moved out
:PROPERTIES:
:ORGROUTER_RESULT: abc/2
:END:
**** under it
*** kept \xc3\xa9t\xc3\xa9
text
* Other
"""


def test_a_left_out_subtree_is_passed_over_alike_indexed_or_not() -> None:
    # The whole outline indexes every left-out subtree (passed over in one step); the
    # request's surroundings only its own (the moved result is read line by line).
    offsets = [NESTED.index(b"*** @agent"), NESTED.index(b"**** @agent")]
    whole, around = Document(NESTED), Document.around(NESTED, offsets)
    assert not around.complete
    for document in (whole, around):
        requests = find_requests(document, ("agent",))
        lines = {r.line for r in requests}
        first = requests[0]
        assert first.entry.parent is not None
        found = outline(document, first.entry.parent, lines, ("agent",))
        assert [(h.line, h.depth, h.title, h.body) for h in found] == [
            (17, 1, "kept \u00e9t\u00e9", "text\n"),
        ]
        found = outline(document, first.index, lines, ("agent",))
        assert [(h.line, h.title) for h in found] == [(4, "inner text"), (11, "after the second")]
