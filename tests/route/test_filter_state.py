"""--stdin opens the state database only when a skill needs it."""

from __future__ import annotations

from pathlib import Path

from route_cli import run_cli

from orgrouter.route.filter import LazyState

NOW = "2026-11-30T09:00"
TANGLE_NOTE = b"""\
* Code
#+begin_src python :tangle out.py
print(1)
#+end_src
** @agent tangle this
"""


def stdin(tmp: Path, data: bytes, *args: str) -> tuple[int, bytes, str]:
    state = ["--state", str(tmp / "state" / "s.db")]
    return run_cli(["route", "--stdin", "--now", NOW, *state, *args], tmp, stdin=data)


def test_a_plain_request_never_creates_the_database(tmp_path: Path) -> None:
    code, out, err = stdin(tmp_path, b"* @agent create a todo to call Ann\n")
    assert (code, err) == (0, "routed 1 request, 1 result\n")
    assert b"** TODO call Ann\n" in out
    assert not (tmp_path / "state").exists()


def test_a_refile_to_an_unknown_file_never_opens_the_database(tmp_path: Path) -> None:
    # refile's once-per-run listing of the notes asked ctx.state for its memo, which
    # opened (and created) the database: a corrupt one turned the clarification into
    # an error result.
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "s.db").write_bytes(b"not a database\n")
    code, out, err = stdin(tmp_path, b"* Inbox\n** @agent refile this to nowhere.org under X\n")
    assert (code, err) == (0, "routed 1 request, 1 result\n")
    assert b"*** Clarification needed: no file 'nowhere.org'\n" in out
    assert (tmp_path / "state" / "s.db").read_bytes() == b"not a database\n"
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["s.db"]


def test_tangling_records_its_targets_in_the_database(tmp_path: Path) -> None:
    note = tmp_path / "n.org"
    note.write_bytes(TANGLE_NOTE)
    code, out, _err = stdin(tmp_path, TANGLE_NOTE, "--file-name", str(note))
    assert code == 0
    assert b"*** Tangled: 1 written, 0 unchanged\n" in out
    assert (tmp_path / "out.py").read_text() == "print(1)\n"
    assert (tmp_path / "state" / "s.db").is_file()
    # The record makes a second tangle of the same block leave the target alone.
    code, out, _err = stdin(tmp_path, out, "--file-name", str(note), "--force")
    assert b"Tangled: 0 written, 1 unchanged" in out


def test_lazy_state_opens_on_first_use_and_closes(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    asked: list[int] = []

    def locate() -> Path:
        asked.append(1)
        return path

    lazy = LazyState(locate)
    lazy.close()  # never opened: nothing to do
    assert (lazy.opened, asked, path.exists()) == (False, [], False)
    assert "schema_versions" in lazy.tables()
    assert (lazy.opened, asked, path.exists()) == (True, [1], True)
    assert lazy.open() is lazy.open()
    lazy.close()
    assert not lazy.opened
