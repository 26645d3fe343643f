"""A note with classic Mac line ends (CR only) is routed in its own line ends.

Emacs visits such a file with mac EOL, so each CR ends a line and a request there is a
headline of its own. Routing it must give, byte for byte, what routing the same note
with LF line ends gives, each LF written as a CR; nothing the user wrote may change.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from route_cli import run_cli

NOW = "2026-11-30T09:00"
NOTES = {
    # The request is on the first line: once, the whole file was one headline line.
    "first.org": b"* @agent create a todo to buy milk\rbody\r* Other\r",
    # Below a keyword: an LF-only prefilter never saw it as a headline.
    "below.org": b"#+TITLE: t\r* Tasks\r** @agent create a todo to buy eggs\r* Other",
    "odd.org": b"#+STARTUP: odd\r* Tasks\r*** @agent create a todo to buy tea\r***** mine\r",
    # The note's own agent name, read from its lines as Emacs sees them.
    "named.org": b"#+ORGROUTER_AGENT: bob\r* Tasks\r** @bob create a todo to buy jam\r",
}


def _route(tmp: Path, path: Path) -> str:
    state = ["--state", str(tmp / f"{path.stem}.db")]
    code, _out, err = run_cli(["route", "-q", "--now", NOW, *state, str(path)], tmp)
    assert code == 0, err
    return err


@pytest.mark.parametrize("name", sorted(NOTES))
def test_a_cr_only_note_is_routed_as_its_lf_twin_with_cr_line_ends(
    tmp_path: Path, name: str
) -> None:
    mac, unix = tmp_path / "mac", tmp_path / "unix"
    mac.mkdir()
    unix.mkdir()
    (mac / name).write_bytes(NOTES[name])
    (unix / name).write_bytes(NOTES[name].replace(b"\r", b"\n"))
    _route(mac, mac / name)
    _route(unix, unix / name)
    routed = (mac / name).read_bytes()
    assert b"\n" not in routed and b"TODO buy" in routed
    assert routed == (unix / name).read_bytes().replace(b"\n", b"\r")
    again = routed
    _route(mac, mac / name)  # a second run changes nothing
    assert (mac / name).read_bytes() == again


def test_a_cr_only_buffer_on_stdin_comes_back_in_cr(tmp_path: Path) -> None:
    data = NOTES["first.org"]
    code, out, err = run_cli(["route", "-q", "--stdin", "--now", NOW], tmp_path, stdin=data)
    assert (code, err) == (0, "")
    assert out.startswith(b"* @agent create a todo to buy milk\r:PROPERTIES:\r")
    assert b"\n" not in out and b"\r:END:\rbody\r** TODO buy milk\r" in out


@pytest.mark.emacs
def test_emacs_visits_the_routed_cr_note_as_the_routed_lf_one(emacs: str, tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "org"))
    from test_elements_emacs import emacs_elements

    names = sorted(NOTES)
    for name in names:
        (tmp_path / name).write_bytes(NOTES[name])
        _route(tmp_path, tmp_path / name)
        lf = (tmp_path / name).read_bytes().replace(b"\r", b"\n")
        (tmp_path / f"lf-{name}").write_bytes(lf)
    found = emacs_elements(emacs, tmp_path, [*names, *(f"lf-{n}" for n in names)], visit=True)
    for name in names:
        assert found[name] == found[f"lf-{name}"]
        assert sum(span[0] == "headline" for span in found[name]) >= 3
