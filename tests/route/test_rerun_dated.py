"""Re-routing an edited request replaces its unedited results, dated ones included."""

from __future__ import annotations

from pathlib import Path

from route_cli import run_cli

from orgrouter.org.document import Document
from orgrouter.route.results import locate_results

NOW = "2026-11-30T09:00"
NOTE = """\
* Tasks
** @agent schedule the dentist appointment for friday
** @agent create a todo to call the plumber by friday
"""


def route(tmp: Path, path: Path) -> None:
    """Route ``path`` quietly on the state database under ``tmp``."""
    state = ["--state", str(tmp / "state.db")]
    code, _out, err = run_cli(["route", "-q", "--now", NOW, *state, str(path)], tmp)
    assert (code, err) == (0, "")


def test_each_edit_of_a_dated_request_leaves_one_result(tmp_path: Path) -> None:
    path = tmp_path / "tasks.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    for before, after in (("friday", "saturday"), ("saturday", "sunday"), ("sunday", "tuesday")):
        path.write_text(path.read_text().replace(f"{before}\n", f"{after}\n"))
        route(tmp_path, path)
    routed = path.read_text()
    assert routed.count(":ORGROUTER_RESULT:") == 2
    assert routed.count("*** TODO Dentist appointment\nSCHEDULED: <2026-12-01 Tue>\n") == 1
    assert routed.count("*** TODO call the plumber\nDEADLINE: <2026-12-01 Tue>\n") == 1
    assert "<2026-12-04 Fri>" not in routed and "<2026-12-05 Sat>" not in routed


def test_an_edited_dated_result_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "tasks.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    text = path.read_text().replace("TODO Dentist appointment", "TODO Dentist, bring x-rays")
    path.write_text(text.replace("appointment for friday", "appointment for tuesday"))
    route(tmp_path, path)
    routed = path.read_text()
    assert "*** TODO Dentist, bring x-rays\nSCHEDULED: <2026-12-04 Fri>\n" in routed
    assert "*** TODO Dentist appointment\nSCHEDULED: <2026-12-01 Tue>\n" in routed
    assert routed.count(":ORGROUTER_RESULT:") == 3


def test_a_result_is_found_by_its_own_drawer_wherever_the_key_sits() -> None:
    data = (
        b"** req\n"
        b"*** first\nDEADLINE: <2026-12-04 Fri> SCHEDULED: <2026-12-01 Tue>\n"
        b"  :properties:\n  :A: 1\n  :B:\n  :ORGROUTER_RESULT: h/1\n  :END:\n"
        b"*** not a drawer: body text\nsome text\n:PROPERTIES:\n:ORGROUTER_RESULT: h/2\n:END:\n"
        b"*** after a closed drawer\n:PROPERTIES:\n:A: 1\n:END:\n:ORGROUTER_RESULT: h/3\n"
    )
    found = locate_results(data, b"\n", ["h/1", "h/2", "h/3", "h/4"], level=3)
    assert {key: head.headline.begin for key, head in found.items()} == {"h/1": 7}
    assert found["h/1"].headline.line == 2
    crlf = b"* x\r\n** y\r\nSCHEDULED: <2026-12-01 Tue>\r\n:PROPERTIES:\r\n"
    crlf += b":ORGROUTER_RESULT: h/4\r\n:END:\r\n"
    (head,) = locate_results(crlf, b"\r\n", ["h/4"], level=2).values()
    assert (head.headline.begin, head.headline.end, head.headline.line) == (5, 11, 2)
    # Within a request (its subtree), lines count on from the request's own line, not
    # from the file's start (5,000 requests re-routed counted 12 million lines).
    later = b"* a\n" * 3 + data
    request = Document(later).entries[3]
    (head,) = locate_results(later, b"\n", ["h/1"], level=3, within=request).values()
    assert head.headline.line == 5 and head.drawer is not None
    assert [prop.line for prop in head.drawer.properties] == [8, 9, 10]


def test_a_result_whose_keys_the_user_lower_cased_is_still_replaced(tmp_path: Path) -> None:
    # Org reads property keys case-insensitively: a reformatted drawer names the same result.
    path = tmp_path / "tasks.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    text = path.read_text().replace(
        ":PROPERTIES:\n:ORGROUTER_RESULT:", ":properties:\n:orgrouter_result:"
    )
    path.write_text(text.replace("appointment for friday", "appointment for tuesday"))
    route(tmp_path, path)
    routed = path.read_text()
    assert routed.count("TODO Dentist appointment") == 1
    assert "*** TODO Dentist appointment\nSCHEDULED: <2026-12-01 Tue>\n" in routed
    assert "SCHEDULED: <2026-12-04 Fri>" not in routed


def test_a_result_given_a_property_by_the_user_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "tasks.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    text = path.read_text().replace(":ORGROUTER_CHECK:", ":ID: 7f1c2d\n:ORGROUTER_CHECK:", 1)
    path.write_text(text.replace("appointment for friday", "appointment for tuesday"))
    route(tmp_path, path)
    assert ":ID: 7f1c2d\n" in path.read_text()
