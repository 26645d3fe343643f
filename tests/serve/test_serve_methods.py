"""classify, decompose, tangle and pending over the server."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from click.testing import CliRunner

from orgrouter.cli import cli

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_helpers import call, clean_env, exchange, make_server

DATA = Path(__file__).resolve().parents[1] / "data" / "route"


def cli_json(args: list[str], tmp: Path) -> object:
    result = CliRunner().invoke(cli, args, env=clean_env(tmp), standalone_mode=False)
    assert result.exception is None, result.output
    return json.loads(result.stdout)


def test_classify_and_decompose_are_the_cli_json(tmp_path: Path) -> None:
    server = make_server(tmp_path)
    text = "summarize this section, then create todos for the action items"
    now = "2026-11-30T09:00"
    expected = cli_json(["classify", "--no-rate-limit", "--now", now, text], tmp_path)
    assert call(server, "classify", {"text": text, "now": now}) == expected
    assert call(server, "decompose", {"text": text}) == cli_json(["decompose", text], tmp_path)
    items = ["buy milk", "call mom"]
    assert call(server, "decompose", {"items": items}) == cli_json(
        ["decompose", "--item", items[0], "--item", items[1]], tmp_path
    )
    assert exchange(server, "classify", {})["error"]["code"] == -32602


def test_tangle_writes_inside_the_root_refuses_outside(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    text = (
        "* Code\n#+begin_src python :tangle out.py\nprint(1)\n#+end_src\n"
        "#+begin_src sh :tangle ../escape.sh\necho no\n#+end_src\n"
    )
    server = make_server(tmp_path)
    params = {"text": text, "path": str(notes / "code.org")}
    missing = exchange(server, "tangle", params)["error"]
    assert missing["data"]["exit_code"] == 3 and "save it first" in missing["message"]
    (notes / "code.org").write_text("* the saved note, older than the buffer\n")
    dry = call(server, "tangle", {**params, "mode": "dry-run"})
    assert [t["action"] for t in dry["targets"]] == ["would-write", "refused"]
    assert not (notes / "out.py").exists()
    done = call(server, "tangle", params)
    assert [t["action"] for t in done["targets"]] == ["written", "refused"]
    assert (notes / "out.py").read_text() == "print(1)\n"
    assert not (tmp_path / "escape.sh").exists()
    assert done["exit_code"] == 3
    # The note itself is the editor's: its text came with the call, the file stays.
    assert (notes / "code.org").read_text() == "* the saved note, older than the buffer\n"
    assert exchange(server, "tangle", {"text": text})["error"]["message"] == (
        "tangle: path is required"
    )


def test_pending_lists_approvals_clarifications_and_new_requests(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    shutil.copyfile(DATA / "approval.expected.org", notes / "approval.org")
    (notes / "new.org").write_text("* Top\n** @agent create a todo to buy milk\n")
    (notes / "plain.org").write_text("* nothing here\n")
    server = make_server(tmp_path)
    found = call(server, "pending", {"path": str(notes / "new.org")})
    assert found["errors"] == []
    seen = [(i["kind"], Path(i["file"]).name, i["line"], i["keyword"]) for i in found["items"]]
    assert seen == [
        ("approval", "approval.org", 7, "WAITING"),
        ("approval", "approval.org", 23, "WAITING"),
        ("clarification", "approval.org", 39, ""),
        ("approval", "approval.org", 48, "WAITING"),
        ("request", "new.org", 2, ""),
    ]


def test_pending_reports_a_bad_note_and_goes_on(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (notes / "a-binary.org").write_bytes(b"* @agent x\n\x00\x01\x02")
    (notes / "b.org").write_text("* @agent create a todo to call mom\n")
    found = call(make_server(tmp_path), "pending", {"path": str(notes / "b.org")})
    assert [(i["kind"], Path(i["file"]).name) for i in found["items"]] == [("request", "b.org")]
    assert len(found["errors"]) == 1 and "a-binary.org:2" in found["errors"][0]
