"""classify, decompose, tangle and pending over the server."""

from __future__ import annotations

import json
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


def test_tangle_follows_the_routed_write_policy(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (notes / "mine.txt").write_text("the user's own file\n")
    text = (
        "* Code\n#+begin_src python :tangle out.py\nprint(1)\n#+end_src\n"
        "#+begin_src sh :tangle ../escape.sh\necho no\n#+end_src\n"
        "#+begin_src sh :tangle .git/hooks/post-commit :mkdirp yes\necho no\n#+end_src\n"
        "#+begin_src text :tangle mine.txt\noverwritten\n#+end_src\n"
    )
    server = make_server(tmp_path)
    params = {"text": text, "path": str(notes / "code.org")}
    missing = exchange(server, "tangle", params)["error"]
    assert missing["data"]["exit_code"] == 3 and "save it first" in missing["message"]
    (notes / "code.org").write_text("* the saved note, older than the buffer\n")
    dry = call(server, "tangle", {**params, "mode": "dry-run"})
    actions = {t["target"]: t["action"] for t in dry["targets"]}
    assert actions == {
        "out.py": "would-write",
        "../escape.sh": "held",
        ".git/hooks/post-commit": "refused",
        "mine.txt": "held",
    }
    assert not (notes / "out.py").exists()
    done = call(server, "tangle", params)
    assert {t["target"]: t["action"] for t in done["targets"]}["out.py"] == "written"
    assert (notes / "out.py").read_text() == "print(1)\n"
    assert not (tmp_path / "escape.sh").exists() and not (notes / ".git").exists()
    assert (notes / "mine.txt").read_text() == "the user's own file\n"
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
    server = make_server(tmp_path)
    asked = (
        "* Archive\n** @agent send the report to the board\n"
        "** @agent summarize this, then move it to the archive\n"
    )
    routed = call(server, "route", {"text": asked, "path": str(notes / "approval.org")})["text"]
    (notes / "approval.org").write_text(routed)
    (notes / "new.org").write_text("* Top\n** @agent create a todo to buy milk\n")
    (notes / "plain.org").write_text("* nothing here\n")
    found = call(server, "pending", {"path": str(notes / "new.org")})
    assert found["errors"] == []
    seen = [(i["kind"], Path(i["file"]).name, i["line"], i["keyword"]) for i in found["items"]]
    lines = routed.splitlines()

    def line_of(start: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if line.startswith(start))

    assert seen == [
        ("approval", "approval.org", line_of("*** WAITING Approve: send"), "WAITING"),
        ("clarification", "approval.org", line_of("*** Clarification needed"), ""),
        ("approval", "approval.org", line_of("*** WAITING Approve: move"), "WAITING"),
        ("request", "new.org", 2, ""),
    ]
    assert found["items"][0]["request_line"] == 2


def test_pending_reports_a_bad_note_and_goes_on(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (notes / "a-binary.org").write_bytes(b"* @agent x\n\x00\x01\x02")
    (notes / "b.org").write_text("* @agent create a todo to call mom\n")
    found = call(make_server(tmp_path), "pending", {"path": str(notes / "b.org")})
    assert [(i["kind"], Path(i["file"]).name) for i in found["items"]] == [("request", "b.org")]
    assert len(found["errors"]) == 1 and "a-binary.org:2" in found["errors"][0]


def test_pending_reads_a_cr_only_note_by_its_lines(tmp_path: Path) -> None:
    # Route reads a CR-only note as Emacs visits it (mac EOL: each CR ends a line);
    # pending read it as one headline line: 0.2 listed one request titled with the
    # whole file, the refactored outline none at all.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    (notes / "mac.org").write_bytes(
        b"* Project\rtext\r** @agent summarize this\r** @agent tag this :x:\r"
    )
    found = call(make_server(tmp_path), "pending", {"path": str(notes / "mac.org")})
    assert found["errors"] == []
    seen = [(i["kind"], i["line"], i["title"]) for i in found["items"]]
    assert seen == [("request", 3, "summarize this"), ("request", 4, "tag this")]
