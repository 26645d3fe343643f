"""The conventions every command keeps (black, ruff and git are the model): write modes
that combine as they do there, one error prefix, usage errors exit 2, -q and -v, plurals,
skipped and odd files named, shell completion. Run through ``orgrouter.cli.main``, the
real entry point, under click's CliRunner isolation, over real trees in ``tmp_path``.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgrouter.cli import main

REQUEST = b"* @agent create a todo to buy milk\n"
RISKY = b"* @agent send this summary to bob\n"  # no skill sends: it waits for approval


def invoke(
    args: list[str], tmp: Path, *, env: dict[str, str] | None = None, stdin: bytes = b""
) -> tuple[int, str, str]:
    """Run ``orgrouter ARGS`` in-process; return exit code, stdout and stderr."""
    clean: dict[str, str | None] = {name: None for name in os.environ if name.startswith(
        ("ORGROUTER_", "_ORGROUTER_"))}  # fmt: skip
    clean.update({
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
        "XDG_STATE_HOME": str(tmp / "xdg-state"),
        **(env or {}),
    })  # fmt: skip
    runner = CliRunner()
    with runner.isolation(input=stdin, env=clean) as (out, err, _):
        try:
            main(args)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 0
        else:  # pragma: no cover - main always exits
            code = -1
        return code, out.getvalue().decode(), err.getvalue().decode()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    directory = tmp_path / "notes"
    directory.mkdir()
    (directory / "n.org").write_bytes(REQUEST)
    return directory


# -- 8: write modes ------------------------------------------------------------------


def test_check_with_diff_shows_the_diff_and_exits_1(notes: Path, tmp_path: Path) -> None:
    code, out, err = invoke(["route", "--check", "--diff", str(notes)], tmp_path)
    assert code == 1
    assert err.splitlines()[0] == f"would route {notes}/n.org: 1 request, 1 result"
    assert out.startswith(f"--- a/{notes.as_posix()}/n.org\n+++ b/")
    assert "+** TODO buy milk\n" in out
    assert (notes / "n.org").read_bytes() == REQUEST  # nothing written
    routed = invoke(["route", str(notes)], tmp_path)
    assert routed[0] == 0
    assert invoke(["route", "--check", "--diff", str(notes)], tmp_path) == (0, "", "")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--check", "--dry-run"], "--dry-run reports what would change"),
        (["--diff", "--dry-run"], "--dry-run reports what would change"),
        (["--diff", "--json"], "--diff and --json both print on stdout"),
    ],
)
def test_clashing_modes_are_usage_errors(
    notes: Path, tmp_path: Path, flags: list[str], message: str
) -> None:
    code, out, err = invoke(["route", *flags, str(notes)], tmp_path)
    assert (code, out) == (2, "")
    assert err.startswith(f"orgrouter: error: {message}")
    assert (notes / "n.org").read_bytes() == REQUEST


def test_tangle_refuses_diff_with_json_too(notes: Path, tmp_path: Path) -> None:
    code, _, err = invoke(["tangle", "--diff", "--json", str(notes)], tmp_path)
    assert code == 2 and "--diff and --json" in err


# -- 9: a file skipped for a lock is named, and --json says so -----------------------


def test_a_file_open_in_emacs_is_named_and_json_says_skipped(notes: Path, tmp_path: Path) -> None:
    os.symlink("user@host.4242:1700000000", notes / ".#n.org")  # as Emacs makes it
    code, out, err = invoke(["route", str(notes)], tmp_path)
    assert code == 0
    assert f"skipped {notes}/n.org: open in Emacs with unsaved changes; will retry" in err
    assert (notes / "n.org").read_bytes() == REQUEST
    code, out, err = invoke(["route", "--json", str(notes)], tmp_path)
    record = json.loads(out)
    assert (record["status"], record["reason"]) == (
        "skipped", "open in Emacs with unsaved changes; will retry"
    )  # fmt: skip
    assert invoke(["route", "-q", str(notes)], tmp_path)[2] == ""  # -q: errors only
    (notes / ".#n.org").unlink()
    code, out, _ = invoke(["route", "--json", str(notes)], tmp_path)
    record = json.loads(out)
    assert record["status"] == "done" and "reason" not in record  # the contract's keys


# -- 11: one prefix, usage errors, -q/-v, plurals, environment, keywords, state ------


def test_every_error_has_the_one_prefix(notes: Path, tmp_path: Path) -> None:
    (notes / "bad.org").write_bytes(b"* @agent summarize\ncaf\xe9\n")
    code, _, err = invoke(["route", str(notes)], tmp_path)
    assert code == 3
    assert f"orgrouter: error: {notes}/bad.org:2:4: invalid UTF-8" in err
    code, _, err = invoke(["route", "--no-such-option"], tmp_path)
    assert code == 2
    assert err.splitlines()[-1].startswith("orgrouter: error: No such option")


COMMANDS_WITH_PATHS = [
    ["route"],
    ["tangle"],
    ["detangle"],
    ["parse"],
    ["config"],
    ["state", "path"],
    ["state", "info"],
    ["state", "reset", "--yes"],
    ["refine", "gate", "1", "--candidate"],
    ["tangle", "--root"],
]


@pytest.mark.parametrize("command", COMMANDS_WITH_PATHS, ids=" ".join)
def test_a_missing_path_is_a_usage_error(command: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    code, out, err = invoke([*command, str(missing)], tmp_path)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith("orgrouter: error: ")
    assert str(missing) in err
    assert not (tmp_path / "xdg-state").exists()  # nothing was started


@pytest.mark.parametrize("command", [["route"], ["tangle"], ["parse"], ["detangle"]], ids=" ".join)
def test_a_symlink_loop_or_broken_link_argument_says_so(command: list[str], tmp_path: Path) -> None:
    os.symlink("loop.org", tmp_path / "loop.org")
    os.symlink(tmp_path / "gone.org", tmp_path / "link.org")
    code, _, err = invoke([*command, str(tmp_path / "loop.org")], tmp_path)
    assert code == 2 and err.endswith(f"'{tmp_path}/loop.org' is a symlink loop\n")
    code, _, err = invoke([*command, str(tmp_path / "link.org")], tmp_path)
    assert code == 2
    assert err.endswith(f"'{tmp_path}/link.org' is a broken symlink (to {tmp_path}/gone.org)\n")


ALL_COMMANDS = [
    ["route", "NOTES"],
    ["tangle", "NOTES"],
    ["detangle", "NOTES/n.org"],
    ["parse", "NOTES/n.org"],
    ["classify", "hello"],
    ["decompose", "create a todo"],
    ["ask", "what is org?"],
    ["config", "NOTES"],
    ["state", "path", "NOTES"],
    ["state", "info", "NOTES"],
    ["state", "reset", "--yes", "NOTES"],
    ["refine", "status"],
]


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=" ".join)
def test_quiet_everywhere_and_never_with_verbose(
    command: list[str], notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [str(notes) + part[5:] if part.startswith("NOTES") else part for part in command]
    code, _, err = invoke([*args, "-q", "-v"], tmp_path)
    assert (code, err) == (2, "orgrouter: error: -q and -v are opposites: give one of them\n")
    code, _, err = invoke([*args, "-q"], tmp_path)
    assert code in (0, 3)  # detangle of a file with no tangle link fails, as it should
    assert all(line.startswith("orgrouter: error: ") for line in err.splitlines()), err


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=" ".join)
def test_every_command_that_reads_the_configuration_warns_of_a_removed_key(
    command: list[str], notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A setting that does nothing any more must say so whichever command reads it, with
    # its file and line; not only `route` (classify, ask and refine read from the cwd).
    monkeypatch.chdir(notes)
    (notes / "orgrouter.toml").write_text("[limits]\npool_from = 64\n")
    args = [str(notes) + part[5:] if part.startswith("NOTES") else part for part in command]
    _code, _, err = invoke(args, tmp_path)
    warning = (
        f"orgrouter: warning: {notes / 'orgrouter.toml'}:2: limits.pool_from has no effect "
        "since 0.2: the process pool was removed"
    )
    reads_config = command[0] != "parse"
    assert (warning in err.splitlines()) is reads_config, err
    assert err.count("pool_from") == reads_config, err


def test_quiet_and_verbose_before_the_command_are_the_commands_own(tmp_path: Path) -> None:
    # Scripts write `orgrouter -q route ...` as often as `orgrouter route -q ...`.
    code, _, err = invoke(["-q", "route", "--stdin"], tmp_path, stdin=REQUEST)
    assert (code, err) == (0, "")
    code, _, err = invoke(["-q", "route", "--stdin", "-v"], tmp_path, stdin=REQUEST)
    assert (code, err) == (2, "orgrouter: error: -q and -v are opposites: give one of them\n")


def test_plurals_in_messages(notes: Path, tmp_path: Path) -> None:
    (notes / "lit.org").write_bytes(
        b"#+begin_src python :tangle (expand-file-name \"x\")\nprint(1)\n#+end_src\n"
    )
    code, _, err = invoke(["tangle", str(notes / "lit.org")], tmp_path)
    assert (code, err.splitlines()[-1]) == (0, "nothing to tangle; 1 block skipped")
    code, _, err = invoke(["route", "--stdin"], tmp_path, stdin=REQUEST)
    assert (code, err) == (0, "routed 1 request, 1 result\n")


def test_an_unknown_orgrouter_variable_is_a_warning_with_a_suggestion(
    notes: Path, tmp_path: Path
) -> None:
    env = {"ORGROUTER_NEURO_BAKEND": "openai", "ORGROUTER_SHOPPING_LIST": "milk"}
    code, _, err = invoke(["route", "--check", str(notes)], tmp_path, env=env)
    assert code == 1
    lines = err.splitlines()
    assert lines[:2] == [
        "orgrouter: warning: ORGROUTER_NEURO_BAKEND is not a variable orgrouter reads; "
        "ignored (did you mean 'ORGROUTER_NEURO_BACKEND'?)",
        "orgrouter: warning: ORGROUTER_SHOPPING_LIST is not a variable orgrouter reads; ignored",
    ]
    # With -q too: cron mails it, as a setting silently ignored must be.
    quiet = invoke(["route", "-q", "--check", str(notes)], tmp_path, env=env)[2]
    assert quiet.splitlines() == lines[:2]
    # A variable the configuration names as a model's key is read, so no warning.
    (notes / "orgrouter.toml").write_text('[neuro]\napi_key_env = "ORGROUTER_MY_KEY"\n')
    err = invoke(["route", "--check", str(notes)], tmp_path, env={"ORGROUTER_MY_KEY": "k"})[2]
    assert "warning" not in err


@pytest.mark.parametrize(
    ("toml", "line", "message"),
    [
        ('approve_keyword = "WAITING"', 2, "agent.approve_keyword = 'WAITING' is the keyword"),
        ('reject_keyword = "WAITING"', 2, "agent.reject_keyword = 'WAITING' is the keyword"),
        ('approve_keyword = "REJECTED"', 2, "agent.approve_keyword and agent.reject_keyword "
                                            "are both 'REJECTED'"),
        ('approve_keyword = "OK"\nreject_keyword = "OK"', 2, "agent.approve_keyword and "
                                                             "agent.reject_keyword are both 'OK'"),
    ],
)  # fmt: skip
def test_approve_keyword_must_differ_from_waiting_and_reject(
    notes: Path, tmp_path: Path, toml: str, line: int, message: str
) -> None:
    (notes / "orgrouter.toml").write_text(f"[agent]\n{toml}\n")
    code, out, err = invoke(["route", str(notes)], tmp_path)
    assert (code, out) == (2, "")
    assert err.startswith(f"orgrouter: error: {notes}/orgrouter.toml:{line}: {message}")
    assert (notes / "n.org").read_bytes() == REQUEST


@pytest.mark.parametrize("decision", ["APPROVED", "REJECTED"])
def test_force_keeps_the_users_decision(notes: Path, tmp_path: Path, decision: str) -> None:
    note = notes / "n.org"
    note.write_bytes(RISKY)
    assert invoke(["route", str(notes)], tmp_path)[0] == 0
    assert b"\n** WAITING Approve: send this summary to bob\n" in note.read_bytes()
    note.write_bytes(note.read_bytes().replace(b"** WAITING ", f"** {decision} ".encode()))
    assert invoke(["route", str(notes)], tmp_path)[0] == 0
    decided = note.read_bytes()
    assert invoke(["route", "--force", str(notes)], tmp_path)[0] == 0
    assert note.read_bytes() == decided
    assert b"WAITING" not in decided.replace(b"change WAITING to", b"")


def test_state_reset_without_a_terminal_needs_yes(notes: Path, tmp_path: Path) -> None:
    code, out, err = invoke(["state", "reset", str(notes)], tmp_path, stdin=b"y\n")
    assert (code, out) == (2, "")
    assert err == (
        "orgrouter: error: state reset asks for confirmation on a terminal; "
        "with no terminal, pass --yes to reset\n"
    )


# -- 12: odd files in a tree are reported once per run, and the run goes on ----------


def test_odd_files_are_reported_once_per_run(notes: Path, tmp_path: Path) -> None:
    (notes / "wide.org").write_bytes("* @agent hi\n".encode("utf-16"))
    (notes / "folder.org").mkdir()
    (notes / "folder.org" / "inner.org").write_bytes(b"* @agent create a todo to water\n")
    os.mkfifo(notes / "pipe.org")
    os.symlink("loop.org", notes / "loop.org")
    for run in range(2):
        code, _, err = invoke(["route", str(notes)], tmp_path)
        assert code == 3  # the UTF-16 note is a failure; the others are only named
        lines = err.splitlines()
        expected = [
            f"skipped {notes}/folder.org: a directory, not a note (its notes are routed)",
            f"skipped {notes}/loop.org: unusable symlink: {os.strerror(errno.ELOOP)}",
            f"skipped {notes}/pipe.org: not a regular file",
            f"orgrouter: error: {notes}/wide.org:1:1: UTF-16 text (byte order mark at byte 0): "
            "Org files must be UTF-8",
        ]
        for line in expected:
            assert lines.count(line) == 1, (run, line, lines)
    assert b"TODO water" in (notes / "folder.org" / "inner.org").read_bytes()
    assert b"TODO buy milk" in (notes / "n.org").read_bytes()


# -- 13: a hard-linked note is refused, untouched ----------------------------------


def test_a_hard_linked_note_is_refused_with_its_links_intact(notes: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.org"
    os.link(notes / "n.org", other)
    before = os.stat(other)
    code, _, err = invoke(["route", str(notes)], tmp_path)
    assert code == 3
    assert f"orgrouter: error: {notes}/n.org: has 2 hard links; orgrouter replaces" in err
    after = os.stat(notes / "n.org")
    assert (after.st_ino, after.st_nlink) == (before.st_ino, 2)
    assert other.read_bytes() == REQUEST == (notes / "n.org").read_bytes()
    assert [p.name for p in notes.iterdir()] == ["n.org"]  # no temp file left
    other.unlink()  # one name again: written as usual
    assert invoke(["route", str(notes)], tmp_path)[0] == 0
    assert b"TODO buy milk" in (notes / "n.org").read_bytes()


# -- 14: shell completion ------------------------------------------------------------


def complete(words: str, tmp: Path, cwd: Path | None = None) -> list[str]:
    env = {
        "_ORGROUTER_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    old = Path.cwd()
    os.chdir(cwd or tmp)
    try:
        code, out, err = invoke([], tmp, env=env)
    finally:
        os.chdir(old)
    assert (code, err) == (0, "")
    return out.splitlines()


def test_shell_completion_of_commands_options_and_values(notes: Path, tmp_path: Path) -> None:
    assert complete("orgrouter st", tmp_path) == ["plain,state"]
    assert complete("orgrouter state ", tmp_path) == ["plain,info", "plain,path", "plain,reset"]
    assert {"plain,--check", "plain,--diff", "plain,--dry-run"} <= set(
        complete("orgrouter route --", tmp_path)
    )
    assert complete("orgrouter classify --origin ", tmp_path) == [
        "plain,user", "plain,result", "plain,delegation"
    ]  # fmt: skip
    assert complete("orgrouter route --config ", tmp_path) == ["file,"]
    assert complete("orgrouter tangle --root ", tmp_path) == ["dir,"]
    (notes / "orgrouter.toml").write_text('[agent]\nname = "otto"\nsub_agents = ["coder"]\n')
    assert complete("orgrouter route --agent ", tmp_path, cwd=notes) == [
        "plain,otto", "plain,coder"
    ]  # fmt: skip
    assert complete("orgrouter route --agent c", tmp_path, cwd=notes) == ["plain,coder"]
