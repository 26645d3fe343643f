"""``orgrouter route`` from the command line: modes, exit codes, edits, approvals."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from route_cli import run_cli

from orgrouter.runlock import RunLock

NOW = "2026-11-30T09:00"
MEETING = b"""\
* Kickoff
We met to plan the launch. Marketing wants it before the holidays.

Action items:
- Alice drafts the press release
** @agent create todos for the action items
"""


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "meeting.org").write_bytes(MEETING)
    (root / "plain.org").write_bytes(b"* Nothing to do here\nJust text.\n")
    return root


def route(tmp: Path, *args: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
    state = ["--state", str(tmp / "state.db")]
    return run_cli(["route", "--now", NOW, *state, *args], tmp, stdin=stdin)


def test_json_one_object_per_request(notes: Path, tmp_path: Path) -> None:
    code, out, _err = route(tmp_path, "--json", "-q", str(notes))
    assert code == 0
    (line,) = out.decode().splitlines()
    record = json.loads(line)
    assert list(record) == [
        "file",
        "line",
        "agent",
        "instruction",
        "gate",
        "intents",
        "results",
        "status",
    ]
    assert (record["file"], record["line"], record["agent"], record["status"]) == (
        str(notes / "meeting.org"),
        6,
        "agent",
        "done",
    )
    assert record["instruction"] == "create todos for the action items"
    assert record["gate"]["primary_skill"] == "todo"
    assert [i["skill"] for i in record["intents"]] == ["todo"]
    assert record["results"] == [
        {
            "title": "Alice drafts the press release",
            "kind": "result",
            "skill": "todo",
            "intent": "create todos for the action items",
            "agent": None,
            "order": 1,
        }
    ]
    # A settled file is passed over from its stat alone: nothing to report.
    assert route(tmp_path, "--json", str(notes)) == (0, b"", "")
    code, out, _err = route(tmp_path, "--json", "--state", str(tmp_path / "cold.db"), str(notes))
    record = json.loads(out)
    assert (record["status"], record["gate"], record["results"]) == ("unchanged", None, [])


def test_diff_writes_nothing(notes: Path, tmp_path: Path) -> None:
    code, out, err = route(tmp_path, "--diff", str(notes))
    assert code == 0
    assert (notes / "meeting.org").read_bytes() == MEETING
    diff = out.decode()
    assert diff.startswith(f"--- a/{(notes / 'meeting.org').as_posix()}\n+++ b/")
    assert "+*** TODO Alice drafts the press release\n" in diff
    assert err.endswith("1 file would change.\n")


def test_check_then_write_then_quiet(notes: Path, tmp_path: Path) -> None:
    assert route(tmp_path, "--check", str(notes))[0] == 1
    assert route(tmp_path, "--dry-run", str(notes))[0] == 0
    assert (notes / "meeting.org").read_bytes() == MEETING
    code, out, err = route(tmp_path, str(notes))
    assert (code, out) == (0, b""), err
    assert err == (
        f"routed {notes / 'meeting.org'}: 1 request, 1 result\n"
        "2 files scanned (1 unchanged since the last run), 1 request routed, "
        "1 result written, 1 file changed.\n"
    )
    assert route(tmp_path, "--check", str(notes))[0] == 0
    assert route(tmp_path, str(notes)) == (0, b"", "")  # cron: silent when nothing to do


def test_bad_file_fails_alone(notes: Path, tmp_path: Path) -> None:
    (notes / "broken.org").write_bytes(b"* @agent hello\n\xff\xfe bad bytes\n")
    code, _out, err = route(tmp_path, "-q", str(notes))
    assert code == 3
    assert f"error: {notes / 'broken.org'}:2:1: invalid UTF-8" in err
    assert b"TODO Alice" in (notes / "meeting.org").read_bytes()


def test_lock_held_exits_75(notes: Path, tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg-state"), "HOME": str(tmp_path)}
    with RunLock(notes, env):
        code, _out, err = route(tmp_path, str(notes))
    assert code == 75
    assert err.startswith("orgrouter: error: ") and "lock" in err
    assert (notes / "meeting.org").read_bytes() == MEETING


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--now", "yesterday"], "is not an ISO 8601 time"),
        (["--stdin", "x.org"], "--stdin reads one document from stdin"),
        (["--file-name", "x.org"], "--file-name goes with --stdin"),
        (["--stdin", "--json"], "--json does not apply"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    code, _out, _err = run_cli(["route", *args], tmp_path)
    assert code == 2


def test_unknown_config_key_exits_2(notes: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[agent]\nnmae = 'otto'\n")
    code, _out, _err = route(tmp_path, "--config", str(tmp_path / "bad.toml"), str(notes))
    assert code == 2


def test_the_removed_pool_settings_warn_and_the_run_goes_on(notes: Path, tmp_path: Path) -> None:
    (notes / "orgrouter.toml").write_text("[limits]\nresult_bytes = 4096\npool_from = 64\n")
    env = {"ORGROUTER_WORKERS": "2", "ORGROUTER_LIMITS_POOL_FROM": "x"}  # never read
    state = ["--state", str(tmp_path / "state.db")]
    code, out, err = run_cli(["route", "--now", NOW, *state, "-q", str(notes)], tmp_path, env=env)
    assert (code, out) == (0, b""), err
    gone = "has no effect since 0.2: the process pool was removed"
    assert err.splitlines() == [
        f"orgrouter: warning: {notes / 'orgrouter.toml'}:3: limits.pool_from {gone}",
        f"orgrouter: warning: ORGROUTER_LIMITS_POOL_FROM {gone}; ignored",
        f"orgrouter: warning: ORGROUTER_WORKERS {gone}; ignored",
    ]
    assert b"TODO Alice drafts the press release" in (notes / "meeting.org").read_bytes()


def test_emacs_lock_skips_then_next_run_routes(notes: Path, tmp_path: Path) -> None:
    lock = notes / ".#meeting.org"
    os.symlink("user@host.1234:1700000000", lock)
    code, _out, err = route(tmp_path, "-v", str(notes))
    assert code == 0
    assert (notes / "meeting.org").read_bytes() == MEETING
    assert "skipped" in err and "Emacs" in err
    lock.unlink()
    assert route(tmp_path, "-q", str(notes))[0] == 0
    assert b"TODO Alice" in (notes / "meeting.org").read_bytes()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"no headline, no newline",
        b"\xef\xbb\xbf* BOM\r\n* and CRLF\r\n",
        b"* x @agents bob@agent.org ~@agent~\n#+begin_src org\n* @agent code\n#+end_src\n",
    ],
)
def test_stdin_identical_bytes_when_nothing_to_do(tmp_path: Path, data: bytes) -> None:
    assert route(tmp_path, "--stdin", stdin=data) == (0, data, "")


def test_stdin_routes_and_check(tmp_path: Path) -> None:
    code, out, err = route(tmp_path, "--stdin", stdin=MEETING)
    assert code == 0
    assert out.startswith(MEETING[:-1]) and b"*** TODO Alice drafts the press release\n" in out
    assert err == "routed 1 request, 1 result\n"
    assert route(tmp_path, "--stdin", "--check", stdin=MEETING)[:2] == (1, b"")
    assert route(tmp_path, "--stdin", "--check", stdin=out)[:2] == (0, b"")


def test_edited_result_is_kept_when_instruction_changes(notes: Path, tmp_path: Path) -> None:
    path = notes / "meeting.org"
    assert route(tmp_path, "-q", str(path))[0] == 0
    text = path.read_text()
    text = text.replace("TODO Alice drafts the press release", "TODO Alice drafts the PR by Friday")
    text = text.replace("create todos for the action items", "create todos for booking the venue")
    path.write_text(text)
    assert route(tmp_path, "-q", "--now", "2026-12-01T10:00", str(path))[0] == 0
    routed = path.read_text()
    assert "*** TODO Alice drafts the PR by Friday\n" in routed  # the user's edit survives
    assert "*** TODO booking the venue\n" in routed
    assert routed.count(":ORGROUTER_RESULT:") == 2


def test_unedited_result_replaced_and_force(notes: Path, tmp_path: Path) -> None:
    path = notes / "meeting.org"
    route(tmp_path, "-q", str(path))
    path.write_text(path.read_text().replace("for the action items", "for calling Bob"))
    route(tmp_path, "-q", str(path))
    routed = path.read_text()
    assert "Alice drafts" not in routed.split("** @agent", 1)[1]  # the stale result went
    assert routed.count(":ORGROUTER_RESULT:") == 1
    code, _out, _err = route(tmp_path, "-q", "--force", "--now", "2026-12-02T08:00", str(path))
    forced = path.read_text()
    assert code == 0 and forced.count(":ORGROUTER_RESULT:") == 1
    assert ":ORGROUTER_RUN: 2026-12-02T08:00:00\n" in forced


def test_approval_flow(tmp_path: Path) -> None:
    path = tmp_path / "cleanup.org"
    path.write_bytes(b"* Drafts\n** @agent run the backup script\n** @agent send the memo\n")
    assert route(tmp_path, "-q", str(path))[0] == 0
    text = path.read_text()
    assert text.count("*** WAITING Approve: ") == 2
    assert ":ORGROUTER_STATUS: waiting\n" in text
    assert route(tmp_path, "--check", str(path))[0] == 0  # waiting is not work
    text = text.replace("WAITING Approve: run", "APPROVED Approve: run")
    text = text.replace("WAITING Approve: send", "REJECTED Approve: send")
    path.write_text(text)
    assert route(tmp_path, "--check", str(path))[0] == 1
    assert route(tmp_path, "-q", str(path))[0] == 0
    done = path.read_text()
    assert "*** Approved, but nothing was done: no skill can run\n" in done
    assert done.count(":ORGROUTER_STATUS: approved\n") == 1
    assert done.count(":ORGROUTER_STATUS: rejected\n") == 1
    assert done.count(":ORGROUTER_STATUS: done\n") == 2
    before = path.stat().st_mtime_ns
    assert route(tmp_path, "-q", str(path)) == (0, b"", "")
    assert path.stat().st_mtime_ns == before


class _Chat(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that records what it was sent."""

    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).seen.append(body)
        reply = {
            "choices": [{"message": {"role": "assistant", "content": "An answer."}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def chat_server() -> Iterator[str]:
    _Chat.seen = []
    server = HTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def test_private_subtree_never_reaches_the_model(tmp_path: Path, chat_server: str) -> None:
    config = tmp_path / "orgrouter.toml"
    config.write_text(f'[neuro]\nbackend = "openai"\nendpoint = "{chat_server}"\nmodel = "m"\n')
    path = tmp_path / "n.org"
    path.write_bytes(
        b"* Diary :@personal:\nMy secret diagnosis.\n** @agent explain what this means\n"
        b"* Work\nThe quarterly numbers.\n** @agent explain what this means\n"
    )
    code, _out, err = route(tmp_path, "-q", "--config", str(config), str(path))
    assert (code, err) == (0, "")
    text = path.read_text()
    assert "Not sent to a model: private" in text
    assert "An answer." in text
    assert _Chat.seen and all("secret" not in body for body in _Chat.seen)


def test_file_changed_during_run_is_skipped_then_routed(tmp_path: Path) -> None:
    from orgrouter.config import Config
    from orgrouter.prefilter import prefilter_for
    from orgrouter.report import Report
    from orgrouter.route.router import Router, RunOptions
    from orgrouter.route.runner import route_file
    from orgrouter.scancache import ScanCache, scan_one

    path = tmp_path / "meeting.org"
    path.write_bytes(MEETING)
    config = Config()
    prefilter = prefilter_for(config)
    cache = ScanCache(None, prefilter.signature)
    scanned = scan_one(path, prefilter, cache)
    assert scanned.snapshot is not None
    path.write_bytes(MEETING + b"* typed while the run was routing\n")  # the user saves
    report = Report()
    options = RunOptions()
    route_file(scanned.snapshot, Router(config, options, tmp_path, None), report, options, cache)
    assert [p for p, _reason in report.skipped] == [str(path)]
    assert "changed" in report.skipped[0][1]
    assert path.read_bytes() == MEETING + b"* typed while the run was routing\n"
    assert route(tmp_path, "-q", str(path))[0] == 0
    assert b"TODO Alice drafts" in path.read_bytes()


def test_log_has_events_without_content(notes: Path, tmp_path: Path) -> None:
    log = tmp_path / "logs" / "route.jsonl"
    assert route(tmp_path, "-q", "--log", str(log), str(notes))[0] == 0
    assert route(tmp_path, "-q", "--log", str(log), str(notes))[0] == 0
    events = [json.loads(line) for line in log.read_text().splitlines()]
    names = [e["event"] for e in events]
    assert names == ["run_start", "file_routed", "run_end", "run_start", "run_end"]
    assert events[1]["path"] == str(notes / "meeting.org")
    assert (events[1]["requests_routed"], events[1]["results_written"]) == (1, 1)
    assert (events[2]["requests_routed"], events[2]["results_written"]) == (1, 1)
    assert (events[4]["requests_routed"], events[4]["cached"]) == (0, 2)
    assert "Alice" not in log.read_text() and "action items" not in log.read_text()


def test_unchanged_tree_loads_no_parser_or_model_client(notes: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    state = str(tmp_path / "state.db")
    assert route(tmp_path, "-q", str(notes))[0] == 0
    program = (
        "import sys\n"
        "from orgrouter.cli import main\n"
        "try:\n"
        f"    main(['route', '-q', '--state', {state!r}, {str(notes)!r}])\n"
        "except SystemExit as done:\n"
        "    assert done.code == 0, done.code\n"
        "heavy = ('lark', 'orgparse', 'httpx', 'orgrouter.route.pipeline')\n"
        "print([name for name in heavy if name in sys.modules])\n"
    )
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg-state")}
    env = {k: v for k, v in env.items() if not k.startswith("ORGROUTER_")}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
    )
    assert (done.stdout, done.stderr) == ("[]\n", "")


def test_bad_agent_keyword_fails_that_note_only(notes: Path, tmp_path: Path) -> None:
    (notes / "odd.org").write_bytes(b"#+TITLE: x\n#+ORGROUTER_AGENT: 42 bad\n* @agent hello\n")
    code, _out, err = route(tmp_path, "-q", str(notes))
    assert code == 3
    assert f"error: {notes / 'odd.org'}:2: #+ORGROUTER_AGENT: '42 bad' is not an agent name" in err
    assert b"TODO Alice" in (notes / "meeting.org").read_bytes()


def test_broken_rules_table_is_a_config_error_not_a_result(notes: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "verbs.toml").write_text("[skills.tag\n")
    (tmp_path / "c.toml").write_text(f"[rules]\ndir = {str(rules)!r}\n")
    code, _out, err = route(tmp_path, "--config", str(tmp_path / "c.toml"), str(notes))
    assert code == 2
    assert f"{rules / 'verbs.toml'}:1: invalid TOML in routing table" in err
    assert (notes / "meeting.org").read_bytes() == MEETING


def test_a_broken_user_skill_warns_once_for_the_whole_run(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(3):  # three routed files, one skills load
        (notes / f"n{n}.org").write_bytes(MEETING)
    (notes / "plain.org").write_bytes(b"* Nothing to do here\n")
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "broken.py").write_text("def oops(:\n")
    (notes / "orgrouter.toml").write_text('[skills]\npaths = ["../skills"]\n')
    code, out, err = route(tmp_path, "-q", str(notes))
    assert (code, out) == (0, b"")
    assert err.splitlines() == [
        f"orgrouter: warning: {tmp_path / 'skills' / 'broken.py'}:1: broken skill file: "
        "invalid syntax"
    ]
    assert all(b"TODO Alice" in (notes / f"n{n}.org").read_bytes() for n in range(3))
    assert route(tmp_path, "-q", str(notes)) == (0, b"", "")  # nothing routed: nothing loaded


def test_now_from_the_environment_and_agent_option(tmp_path: Path) -> None:
    path = tmp_path / "n.org"
    path.write_bytes(b"* @otto schedule the review for tomorrow\n* @bob hello\n")
    args = ["route", "-q", "--agent", "otto", "--state", str(tmp_path / "s.db"), str(path)]
    code, _out, err = run_cli(args, tmp_path, env={"ORGROUTER_NOW": "2027-02-26T18:30"})
    assert (code, err) == (0, "")
    text = path.read_text()
    assert "SCHEDULED: <2027-02-27 Sat>\n" in text
    assert ":ORGROUTER_RUN: 2027-02-26T18:30:00\n" in text
    assert text.endswith("* @bob hello\n")  # not an address this agent answers to


TANGLE_NOTE = b"""\
* Code
#+begin_src python :tangle out.py
print(1)
#+end_src
** @agent tangle this
"""


def test_tangle_request_writes_its_targets(tmp_path: Path) -> None:
    note = tmp_path / "n.org"
    note.write_bytes(TANGLE_NOTE)
    assert route(tmp_path, "-q", str(note))[0] == 0
    assert (tmp_path / "out.py").read_text() == "print(1)\n"
    assert "*** Tangled: 1 written, 0 unchanged\n" in note.read_text()


def test_diff_never_tangles(tmp_path: Path) -> None:
    note = tmp_path / "n.org"
    note.write_bytes(TANGLE_NOTE)
    code, out, _err = route(tmp_path, "--diff", str(note))
    assert code == 0
    assert not (tmp_path / "out.py").exists()
    assert note.read_bytes() == TANGLE_NOTE
    # The diff shows the result a dry run can honestly give: what would be written.
    assert b"+*** Would tangle: 1 to write, 0 unchanged\n" in out
    assert b"+- would-write: =out.py=\n" in out
    for mode in ("--dry-run", "--check"):
        route(tmp_path, mode, str(note))
        assert not (tmp_path / "out.py").exists(), mode
    # A real run after the previews writes the target.
    assert route(tmp_path, "-q", str(note))[0] == 0
    assert (tmp_path / "out.py").read_text() == "print(1)\n"


def test_one_file_shares_the_tree_lock(notes: Path, tmp_path: Path) -> None:
    (notes / "orgrouter.toml").write_text("[agent]\nname = 'otto'\n")
    (notes / "sub").mkdir()
    (notes / "sub" / "one.org").write_bytes(b"* @otto hello\n")
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg-state"), "HOME": str(tmp_path)}
    with RunLock(notes, env):  # a cron run over the whole tree holds it
        assert route(tmp_path, str(notes / "sub" / "one.org"))[0] == 75
    assert route(tmp_path, "-q", str(notes / "sub" / "one.org"))[0] == 0
    assert b"** Hello\n" in (notes / "sub" / "one.org").read_bytes()


def test_a_file_name_that_is_not_utf8_is_refused_by_name_alone(
    notes: Path, tmp_path: Path
) -> None:
    # A name synced from a Latin-1 system: SQLite stores UTF-8 text only, and the
    # scan cache's flush of it failed the whole run (internal error) on every run.
    odd = notes / os.fsdecode(b"caf\xe9.org")
    odd.write_bytes(b"* Ask\n** @agent create a todo to call Ann\n")
    (notes / "search.org").write_bytes(b"* Ask\n** @agent find notes about launch\n")
    for _run in range(2):
        code, _out, err = route(tmp_path, "-q", str(notes))
        assert code == 3 and "internal error" not in err
        assert f"error: {notes}/caf\\udce9.org: file name is not valid UTF-8" in err
    assert b"TODO Alice" in (notes / "meeting.org").read_bytes()
    assert b"[[file:meeting.org::*Kickoff]" in (notes / "search.org").read_bytes()
    assert odd.read_bytes() == b"* Ask\n** @agent create a todo to call Ann\n"


@pytest.mark.parametrize("name", ["line\nbreak.org", "/".join(["d" * 60] * 5) + "/x.org"])
def test_a_note_whose_path_is_long_or_holds_a_newline_is_routed_and_the_run_goes_on(
    tmp_path: Path, name: str
) -> None:
    # The event log took a path past 300 characters, or one with a newline, for note
    # content: the run failed with an internal error and the notes after it waited.
    odd = tmp_path / name
    odd.parent.mkdir(parents=True, exist_ok=True)
    odd.write_text("* @agent remind me to call bob friday\n")
    later = tmp_path / "z.org"
    later.write_text("* @agent remind me to call al friday\n")
    log = tmp_path / "events.jsonl"
    args = ["route", str(tmp_path), "--state", str(tmp_path / "s.db"), "--now", NOW]
    code, _out, err = run_cli([*args, "--log", str(log)], tmp_path)
    assert code == 0, err
    assert "TODO call bob" in odd.read_text() and "TODO call al" in later.read_text()
    routed = [json.loads(line) for line in log.read_text().splitlines()]
    assert str(odd) in [event.get("path") for event in routed]


@pytest.mark.xfail(
    strict=True,
    reason="route --diff splits both versions of a note into lines for difflib: ten times "
    "the note's size (a 60 MB note's --diff peaks at 443 MB RSS, against 2 x 60 + 60)",
)
def test_a_diff_of_a_large_note_holds_no_more_than_its_two_versions() -> None:
    import tracemalloc

    from orgrouter.writemode import unified_diff

    old = b"".join(
        b"* Heading %d\nsome text of a long journal, line %d\n" % (n, n) for n in range(40_000)
    )
    new = b"** @agent added\n" + old + b"** added too\n"
    tracemalloc.start()
    try:
        shown = unified_diff(old, new, "a.org")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shown.count("\n+") == 2  # the two lines added, each with its context
    assert peak <= 2 * len(new)
