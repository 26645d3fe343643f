"""The headlines skills see for a request: its section's, never requests or results."""

from __future__ import annotations

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
