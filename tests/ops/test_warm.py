"""orgrouter.warm: a route over an unchanged tree answered from the scan cache alone,
exactly as the full run answers it, and everything else left to the full run."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter import configload, discover, eventlog, scancache, warm
from orgrouter.cli import main
from orgrouter.route import journal
from orgrouter.runlock import RunLock

OLD = (1_000_000_000, 1_000_000_000)  # past the racy-mtime window
NOTES = {
    "todo.org": "* Errands\n** @agent create a todo to renew the passport\n",
    "memo.org": "* Drafts\n** @agent send the memo\n",  # routed to a WAITING approval
    "plain.org": "* Nothing to do\n",
    "sub/bob.org": "* Ask\n** @bob create a todo to call Ann\n",  # a request only for bob
}


def test_its_constants_are_those_of_the_modules_that_own_them() -> None:
    assert warm.WAITING == scancache.WAITING
    assert warm.PROJECT_FILE == configload.PROJECT_FILE == discover.ROOT_MARKER
    assert warm.SCHEMAS == {
        scancache.SCHEMA: scancache.SCHEMA_VERSION,
        eventlog.SCHEMA: eventlog.SCHEMA_VERSION,
        journal.SCHEMA: journal.VERSION,
        "warm_proof": 1,
    }


def route(notes: Path, *extra: str) -> int:
    """Run ``orgrouter route -q --state S NOTES`` in process; return its exit code."""
    with pytest.raises(SystemExit) as done:
        main(["route", "-q", "--state", str(notes.parent / "s.db"), *extra, str(notes)])
    return int(done.value.code or 0)


def settled_tree(notes: Path) -> Path:
    """Write NOTES, route them and settle the re-read of the files the run wrote."""
    for name, text in NOTES.items():
        (notes / name).parent.mkdir(exist_ok=True)
        (notes / name).write_text(text)
    for _run in range(2):
        assert route(notes) == 0
        for name in NOTES:
            os.utime(notes / name, OLD)
    assert route(notes) == 0
    return notes


def events(notes: Path) -> list[tuple[str, dict[str, object]]]:
    """Return the last run's events, durations left out."""
    with sqlite3.connect(notes.parent / "s.db") as conn:
        rows = conn.execute("SELECT run, event, data FROM events ORDER BY id").fetchall()
    last = [(event, json.loads(data)) for run, event, data in rows if run == rows[-1][0]]
    return [(event, {k: v for k, v in data.items() if k != "duration_ms"}) for event, data in last]


def test_an_unchanged_tree_is_answered_as_the_full_run_answers_it(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = settled_tree(env)
    assert "WAITING Approve" in (notes / "memo.org").read_text()
    fast = events(notes)
    assert fast[-1] == ("run_end", {**fast[-1][1], "scanned": 4, "cached": 3, "unchanged": 1})
    assert fast[1] == ("file_routed", {**fast[1][1], "path": str(notes / "memo.org")})
    before = {name: (notes / name).stat() for name in NOTES}
    assert route(notes, "--log", str(env.parent / "log.jsonl")) == 0  # not a fast form
    assert events(notes) == fast
    assert {name: (notes / name).stat() for name in NOTES} == before
    assert capsys.readouterr() == ("", "")


def warm_modules(env: Path, notes: Path, arg: Path | None = None) -> set[str]:
    """Return the modules a ``route -q --state S ARG`` in a fresh process imports."""
    code = (
        "import json, sys\nfrom orgrouter.cli import main\ntry:\n"
        "    main(['route', '-q', '--state', sys.argv[1], sys.argv[2]])\n"
        "except SystemExit as done:\n    assert not done.code\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    argv = [sys.executable, "-c", code, str(env.parent / "s.db"), str(arg or notes)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(done.stdout))


UNWANTED = {"orgrouter.config", "orgrouter.discover", "orgrouter.scancache", "dataclasses"}


def test_a_warm_route_imports_no_configuration_discovery_or_router(env: Path) -> None:
    notes = settled_tree(env)
    modules = warm_modules(env, notes)
    assert "orgrouter.warm" in modules and "sqlite3" in modules
    assert modules.isdisjoint(UNWANTED | {"orgrouter.route", "click", "tomllib"})


def test_a_configured_tree_is_answered_by_its_configuration_bytes(env: Path) -> None:
    # Most trees have an orgrouter.toml: the proof is the bytes of the configuration
    # files the last full run read, with the prefilter signature they gave.
    (env / "orgrouter.toml").write_text('[agent]\nname = "bob"\n')
    (env / "ann.org").write_text("* @ann create a todo to water the plants\n")  # not yet
    os.utime(env / "ann.org", OLD)
    notes = settled_tree(env)
    assert "ORGROUTER_RESULT" in (notes / "sub/bob.org").read_text()
    assert warm_modules(env, notes).isdisjoint(UNWANTED)
    assert warm_modules(env, notes, notes / "sub").isdisjoint(UNWANTED)  # below the root
    with sqlite3.connect(env.parent / "s.db") as conn:
        [(root,)] = conn.execute("SELECT root FROM warm_proof")
    assert root == str(notes.resolve())  # the notes root, which the run lock keys
    # A byte changed in the configuration (a comment) and the full run decides.
    (notes / "orgrouter.toml").write_text('# me\n[agent]\nname = "bob"\n')
    assert "orgrouter.config" in warm_modules(env, notes)
    assert warm_modules(env, notes).isdisjoint(UNWANTED)  # and leaves a proof for them
    # The user's own configuration counts too: here it makes @ann an address.
    assert "ORGROUTER_RESULT" not in (notes / "ann.org").read_text()
    user = env.parent / "xdg-config" / "orgrouter" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[agent]\nsub_agents = ["ann"]\n')
    assert route(notes) == 0
    assert "ORGROUTER_RESULT" in (notes / "ann.org").read_text()


def test_a_configuration_with_user_skills_is_never_proved(env: Path) -> None:
    (env / "orgrouter.toml").write_text('[skills]\npaths = ["../skills"]\n')
    (env.parent / "skills").mkdir()
    notes = settled_tree(env)
    # Their code may change without a byte of the configuration changing.
    assert "orgrouter.config" in warm_modules(env, notes)


def test_a_configuration_with_a_rules_dir_is_never_proved(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The tables there are read by the full run, not named by the configuration's
    # bytes: a table broken since the last run is an error (exit 2), not "unchanged".
    (env / "orgrouter.toml").write_text('[rules]\ndir = "../rules"\n')
    (env.parent / "rules").mkdir()
    notes = settled_tree(env)
    assert "orgrouter.config" in warm_modules(env, notes)
    capsys.readouterr()
    (env.parent / "rules" / "verbs.toml").write_text("not = [toml\n")
    assert route(notes) == 2
    assert "verbs.toml:1: invalid TOML in routing table" in capsys.readouterr().err


def test_agent_named_on_the_command_line_leaves_no_proof(env: Path) -> None:
    notes = settled_tree(env)
    with sqlite3.connect(env.parent / "s.db") as conn:
        conn.execute("DELETE FROM warm_proof")
    assert route(notes, "--agent", "bob") == 0  # its signature is not the plain run's
    with sqlite3.connect(env.parent / "s.db") as conn:
        assert conn.execute("SELECT count(*) FROM warm_proof").fetchone() == (0,)


def _edit(notes: Path) -> None:
    text = (notes / "todo.org").read_text()
    (notes / "todo.org").write_text(text.replace("renew the passport", "buy stamps"))


def _approve(notes: Path) -> None:
    text = (notes / "memo.org").read_text()
    (notes / "memo.org").write_text(text.replace("WAITING Approve", "REJECTED Approve"))


def _config(notes: Path) -> None:
    (notes / "orgrouter.toml").write_text('[agent]\nname = "bob"\n')


@pytest.mark.parametrize(
    ("change", "routed"),
    [
        (_edit, "todo.org"),
        (_approve, "memo.org"),
        (_config, "sub/bob.org"),
        (lambda notes: (notes / "new.org").write_text(NOTES["todo.org"]), "new.org"),
    ],
    ids=["edited", "approved", "config", "new-file"],
)
def test_a_change_is_routed(env: Path, change: object, routed: str) -> None:
    notes = settled_tree(env)
    before = (notes / routed).read_text() if (notes / routed).exists() else ""
    change(notes)  # type: ignore[operator]
    assert route(notes) == 0
    assert (notes / routed).read_text().count("ORGROUTER_RESULT") > before.count(
        "ORGROUTER_RESULT"
    ) or ":ORGROUTER_STATUS: rejected" in (notes / routed).read_text()


def test_an_agent_in_the_environment_is_routed(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = settled_tree(env)
    monkeypatch.setenv("ORGROUTER_AGENT_NAME", "bob")
    assert route(notes) == 0
    assert "ORGROUTER_RESULT" in (notes / "sub/bob.org").read_text()


def test_a_deleted_note_is_forgotten(env: Path) -> None:
    notes = settled_tree(env)
    (notes / "plain.org").unlink()
    assert route(notes) == 0
    with sqlite3.connect(env.parent / "s.db") as conn:
        paths = {row[0] for row in conn.execute("SELECT path FROM scan_cache")}
    assert str(notes / "plain.org") not in paths and str(notes / "todo.org") in paths


def test_a_locked_root_exits_75_as_the_full_run_does(env: Path) -> None:
    notes = settled_tree(env)
    with RunLock(notes, os.environ):
        assert route(notes) == 75
