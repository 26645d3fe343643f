"""``route`` over the server gives byte for byte what ``route --stdin`` gives.

On every golden route case and on every note of the README's demo, the result's
``text`` equals the CLI's stdout, and applying ``edits`` to the sent text gives it too.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from orgrouter.cli import cli
from orgrouter.errors import EXIT_LOCKED
from orgrouter.runlock import RunLock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_helpers import apply_edits, call, clean_env, exchange, make_server

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "route"
NOW = "2026-11-30T09:00"
CASES = sorted(p.stem for p in DATA.glob("*.org") if not p.stem.endswith(".expected"))


def stdin_route(args: list[str], data: bytes, tmp: Path) -> bytes:
    """Return what ``orgrouter route --stdin ARGS`` prints for ``data`` (in-process)."""
    from click.testing import CliRunner

    env = {**clean_env(tmp), **{k: "" for k in os.environ if k.startswith("ORGROUTER_")}}
    result = CliRunner().invoke(
        cli, ["route", "--stdin", *args], input=data, env=env, standalone_mode=False
    )
    assert result.exception is None, result.output
    return result.stdout_bytes


@pytest.mark.parametrize("name", CASES)
def test_golden_case_over_the_server_equals_stdin(name: str, tmp_path: Path) -> None:
    config = DATA / f"{name}.toml"
    data = (DATA / f"{name}.org").read_bytes()
    file_name = str(tmp_path / f"{name}.org")
    extra = ["--config", str(config)] if config.exists() else []
    cli_state = ["--state", str(tmp_path / "cli.db")]
    args = ["--now", NOW, "--file-name", file_name, *extra, *cli_state]
    expected = stdin_route(args, data, tmp_path)
    assert expected == (DATA / f"{name}.expected.org").read_bytes()
    server = make_server(
        tmp_path,
        config_file=str(config) if config.exists() else None,
        state_path=str(tmp_path / "serve.db"),
    )
    text = data.decode()
    result = call(server, "route", {"text": text, "path": file_name, "now": NOW})
    assert result["text"].encode() == expected
    assert apply_edits(text, result["edits"]) == result["text"]
    assert result["changed"] is (expected != data)
    assert [r["line"] for r in result["requests"]] == sorted(r["line"] for r in result["requests"])
    again = call(server, "route", {"text": result["text"], "path": file_name, "now": NOW})
    assert (again["changed"], again["edits"], again["text"]) == (False, [], result["text"])


def test_demo_notes_over_the_server_equal_stdin(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "notes", tmp_path / "notes")
    if (ROOT / "tangle").is_dir():
        shutil.copytree(ROOT / "tangle", tmp_path / "tangle")
    server = make_server(tmp_path, state_path=str(tmp_path / "serve.db"))
    notes = sorted((tmp_path / "notes").rglob("*.org"))
    before = {note: note.read_bytes() for note in notes}
    changed = 0
    for note in notes:
        data = note.read_bytes()
        state = ["--state", str(tmp_path / "cli.db")]
        expected = stdin_route(["--now", NOW, "--file-name", str(note), *state], data, tmp_path)
        result = call(server, "route", {"text": data.decode(), "path": str(note), "now": NOW})
        assert result["text"].encode() == expected, note
        assert apply_edits(data.decode(), result["edits"]) == result["text"], note
        changed += result["changed"]
    assert changed >= 4  # the demo's four notes with requests
    assert {note: note.read_bytes() for note in notes} == before  # the reply is the only output


def test_edits_are_in_characters_of_the_given_text(tmp_path: Path) -> None:
    text = "* Café ☕ notes\nsome text, naïve\n* @agent create a todo to buy milk\n"
    server = make_server(tmp_path)
    result = call(server, "route", {"text": text, "path": str(tmp_path / "a.org"), "now": NOW})
    assert result["changed"] and result["edits"]
    assert all(e["begin"] >= len("* Café ☕ notes\nsome text, naïve\n") for e in result["edits"])
    assert apply_edits(text, result["edits"]) == result["text"]
    bare = call(server, "route", {"text": text, "path": str(tmp_path / "a.org"), "now": NOW,
                                  "return_text": False})
    assert "text" not in bare and bare["edits"] == result["edits"]


def test_config_change_is_seen_by_the_next_call(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text('[agent]\nname = "otto"\n')
    server = make_server(tmp_path)
    text = "* @bob create a todo to buy milk\n"
    params = {"text": text, "path": str(notes / "a.org"), "now": NOW}
    assert call(server, "route", params)["changed"] is False  # @bob is not an address
    (notes / "orgrouter.toml").write_text('[agent]\nname = "bob"\n')
    assert call(server, "route", params)["changed"] is True
    (notes / "orgrouter.toml").write_text('[agent]\nnmae = "bob"\n')
    reply = exchange(server, "route", params)
    assert reply["error"]["code"] == -32000
    assert reply["error"]["data"]["exit_code"] == 2
    assert "did you mean" in reply["error"]["message"] or "name" in reply["error"]["message"]


def test_route_takes_the_lock_only_to_write_besides_its_reply(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (notes / "code.org").write_text("")
    server = make_server(tmp_path)
    plain = {"text": "* @agent create a todo\n", "path": str(notes / "a.org"), "now": NOW}
    tangling = {
        "text": "* @agent tangle this\n#+begin_src sh :tangle out.sh\necho hi\n#+end_src\n",
        "path": str(notes / "code.org"),
        "now": NOW,
    }
    with RunLock(notes, clean_env(tmp_path)):
        assert call(server, "route", plain)["changed"] is True  # its reply is all it writes
        reply = exchange(server, "route", tangling)
        assert reply["error"]["data"]["exit_code"] == EXIT_LOCKED
        assert "another orgrouter run" in reply["error"]["message"]
        assert not (notes / "out.sh").exists()
    assert call(server, "route", tangling)["changed"] is True  # and it lives on
    assert (notes / "out.sh").read_text() == "echo hi\n"


def test_within_routes_only_the_requests_in_that_range(tmp_path: Path) -> None:
    text = "* A\n** @agent create a todo to buy milk\n* B ☕\n** @agent create a todo to buy tea\n"
    server = make_server(tmp_path)
    begin = text.index("* B")
    params = {"text": text, "path": str(tmp_path / "a.org"), "now": NOW}
    result = call(server, "route", {**params, "within": [begin, len(text)]})
    assert [r["instruction"] for r in result["requests"]] == ["create a todo to buy tea"]
    assert all(e["begin"] >= begin for e in result["edits"])
    assert result["text"].startswith(text[:begin])
    assert exchange(server, "route", {**params, "within": [5, 1]})["error"]["code"] == -32602


@pytest.mark.parametrize("same_tick", [False, True], ids=["later-mtime", "same-mtime-tick"])
def test_a_same_size_config_edit_is_seen(same_tick: bool, tmp_path: Path) -> None:
    # A coarse file system clock (or two saves within one tick) gives an in-place edit
    # the same inode, size and mtime: only the bytes tell the versions apart.
    notes = tmp_path / "notes"
    notes.mkdir()
    config = notes / "orgrouter.toml"
    config.write_text('[agent]\nname = "ann"\n')
    server = make_server(tmp_path)
    params = {"text": "* @bob create a todo\n", "path": str(notes / "a.org"), "now": NOW}
    assert call(server, "route", params)["changed"] is False
    before = config.stat()
    with config.open("r+b") as handle:  # in place: the same inode, the same size
        handle.write(b'[agent]\nname = "bob"\n')
    mtime = before.st_mtime_ns + (0 if same_tick else 1_000_000)
    os.utime(config, ns=(before.st_atime_ns, mtime))
    after = config.stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)
    assert call(server, "route", params)["changed"] is True


@pytest.mark.parametrize(
    "data",
    [
        b"* Notes\r\ntext\r\n* @agent create a todo to buy milk\r\n",
        b"\xef\xbb\xbf* @agent create a todo to buy milk\n",
        b"* mixed\r\n* @agent create a todo to buy milk\nend",
    ],
    ids=["crlf", "bom", "mixed-no-final-newline"],
)
def test_line_ends_and_bom_over_the_server_equal_stdin(data: bytes, tmp_path: Path) -> None:
    file_name = str(tmp_path / "n.org")
    args = ["--now", NOW, "--file-name", file_name, "--state", str(tmp_path / "c.db")]
    expected = stdin_route(args, data, tmp_path)
    server = make_server(tmp_path, state_path=str(tmp_path / "s.db"))
    result = call(server, "route", {"text": data.decode(), "path": file_name, "now": NOW})
    assert result["text"].encode() == expected
    assert result["changed"] is True
    assert apply_edits(data.decode(), result["edits"]) == result["text"]


def test_an_approved_move_within_the_note_equals_stdin(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    note = notes / "a.org"
    asked = "* Inbox ☕\n** Buy a bike\nsome notes\n*** @agent move this under Website\n* Website\n"
    server = make_server(tmp_path, state_path=str(tmp_path / "s.db"))
    params = {"path": str(note), "now": NOW}
    held = call(server, "route", {"text": asked, **params})["text"]
    approved = held.replace("**** WAITING Approve", "**** APPROVED Approve")
    note.write_text(approved)
    for suffix in ("", "-wal", "-shm"):  # the CLI starts from the same state (the binding)
        if (tmp_path / f"s.db{suffix}").exists():
            shutil.copyfile(tmp_path / f"s.db{suffix}", tmp_path / f"cli.db{suffix}")
    result = call(server, "route", {"text": approved, **params})
    assert "* Website\n** Buy a bike\n" in result["text"]  # the move was made
    assert apply_edits(approved, result["edits"]) == result["text"]
    args = ["--now", NOW, "--file-name", str(note), "--state", str(tmp_path / "cli.db")]
    assert stdin_route(args, approved.encode(), tmp_path) == result["text"].encode()
