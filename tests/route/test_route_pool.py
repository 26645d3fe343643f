"""``orgrouter route`` over many candidates in a process pool: the same bytes as serially.

Every test runs the real program in a subprocess, once with ``ORGROUTER_WORKERS=1``
(serial) and once with a pool, over identical copies of a tree, and compares files,
stdout, stderr and exit codes byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.config import Config
from orgrouter.errors import ConfigError
from orgrouter.route.pool import CRASHED, workers_for
from orgrouter.route.runner import processes_from

NOW = "2026-11-30T09:00"
MIN_CANDIDATES = 48  # limits.pool_from for these trees (the default is 256)
INSTRUCTIONS = (
    "create todos for the action items",
    "summarize this section",
    "tag this with project and review",
    "schedule the review for next monday",
    "hello",
)
TANGLE_NOTE = b"""\
* Code
#+begin_src python :tangle out.py
print(1)
#+end_src
** @agent tangle this
"""
BAD_AGENT = b"#+ORGROUTER_AGENT: 9lives\n* @agent hello\n"
CRASH_SKILL = """\
import multiprocessing
import os

from orgrouter.skills.base import BaseSkill


class CrashInWorker(BaseSkill):
    name = "crash"
    priority = 90

    def trigger(self, stimulus, ctx):
        # Only in a worker process: the run's own process routes the file normally.
        if "crash the worker" in stimulus.text and multiprocessing.parent_process():
            os._exit(70)
        return False

    def symbolic(self, proposal, ctx):
        return None


SKILLS = [CrashInWorker()]
"""



def note(index: int) -> bytes:
    """Return request note number ``index`` (instructions and sizes vary)."""
    instruction = INSTRUCTIONS[index % len(INSTRUCTIONS)]
    filler = "".join(f"Line {n} of the kickoff notes for area {index % 4}.\n" for n in range(index))
    return (
        f"#+TITLE: Note {index}\n\n* Kickoff {index} :work:\n{filler}\n"
        f"Action items:\n- Alice drafts part {index}\n- Bob reviews it\n"
        f"** @agent {instruction}\n* Later\nMore text.\n"
    ).encode()


def make_tree(base: Path, requests: int) -> Path:
    """Write ``requests`` request notes, plain notes, a search, a tangle and a bad note."""
    notes = base / "notes"
    for area in range(4):
        (notes / f"area-{area}").mkdir(parents=True)
    for index in range(requests):
        (notes / f"area-{index % 4}" / f"note-{index:02d}.org").write_bytes(note(index))
    for index in range(10):
        (notes / f"plain-{index}.org").write_bytes(f"* Plain {index}\nNothing to do.\n".encode())
    # search reads other notes and tangle writes targets: both go back to the parent.
    (notes / "area-1" / "search.org").write_bytes(b"* @agent find notes about kickoff\n")
    (notes / "code").mkdir()
    (notes / "code" / "tangle.org").write_bytes(TANGLE_NOTE)
    (notes / "area-2" / "bad.org").write_bytes(BAD_AGENT)  # fails (in a worker, if pooled)
    return notes


def copy_tree(source: Path, base: Path) -> Path:
    """Copy ``source``'s tree (notes and anything beside them) under ``base``."""
    shutil.copytree(source, base)
    return base / "notes"


def route(
    base: Path, processes: int, *args: str, pool_from: int | None = MIN_CANDIDATES
) -> tuple[int, bytes, bytes]:
    """Run ``orgrouter route ARGS notes`` from ``base`` in a fresh process."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("ORGROUTER_")}
    if pool_from is not None:  # the default (256) would keep these small trees serial
        env["ORGROUTER_LIMITS_POOL_FROM"] = str(pool_from)
    env.update(
        ORGROUTER_WORKERS=str(processes),
        XDG_CONFIG_HOME=str(base / "xdg-config"),
        XDG_STATE_HOME=str(base / "xdg-state"),
        HOME=str(base),
    )
    state = ["--state", str(base / "state.db"), "--log", str(base / "log.jsonl")]
    command = [sys.executable, "-m", "orgrouter", "route", "--now", NOW, *state, *args, "notes"]
    done = subprocess.run(command, cwd=base, env=env, capture_output=True, check=False)
    return done.returncode, done.stdout, done.stderr


def files(notes: Path) -> dict[str, bytes]:
    """Return every file under ``notes`` by relative path, with its bytes."""
    return {
        path.relative_to(notes).as_posix(): path.read_bytes()
        for path in sorted(notes.rglob("*"))
        if path.is_file()
    }


def pool_events(base: Path) -> list[dict[str, object]]:
    """Return the run's ``pool_start`` and ``pool_end`` events from its --log file, bare."""
    events = [json.loads(line) for line in (base / "log.jsonl").read_text().splitlines()]
    bare = [{k: v for k, v in e.items() if k not in ("time", "run")} for e in events]
    return [e for e in bare if str(e["event"]).startswith("pool_")]


def pool_run(workers: int, routed: int, returned: int, crashed: int = 0) -> list[dict[str, object]]:
    """Return the pool events of a run whose workers answered ``routed`` files."""
    return [
        {"event": "pool_start", "workers": workers, "files": MIN_CANDIDATES},
        {
            "event": "pool_end",
            "workers": workers,
            "routed_count": routed,
            "returned_count": returned,
            "crashed_count": crashed,
        },
    ]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a directory holding ``notes/``: 56 request notes and the odd ones."""
    base = tmp_path_factory.mktemp("tree")
    make_tree(base, 56)
    return base


@pytest.mark.parametrize("mode", [["--json", "-v"], ["--diff"], ["--dry-run", "-v"], ["--check"]])
def test_pool_routes_byte_identically(tree: Path, tmp_path: Path, mode: list[str]) -> None:
    serial = copy_tree(tree, tmp_path / "serial")
    pooled = copy_tree(tree, tmp_path / "pooled")
    before = files(serial)
    expected = route(tmp_path / "serial", 1, *mode)
    got = route(tmp_path / "pooled", 3, *mode)
    assert got == expected
    assert files(pooled) == files(serial)
    assert pool_events(tmp_path / "serial") == []
    # 56 requests and the bad note answered in workers; search and tangle given back.
    assert pool_events(tmp_path / "pooled") == pool_run(2, routed=57, returned=2)
    code, out, err = got
    assert code == 3  # the bad note
    bad = "notes/area-2/bad.org:1: #+ORGROUTER_AGENT: '9lives' is not an agent name"
    errors = [line for line in err.decode().splitlines() if line.startswith("orgrouter: error: ")]
    assert errors == [f"orgrouter: error: {bad} (one word: letters, digits, -, _)"]
    if mode[0] == "--json":
        assert len(out.splitlines()) == 58  # one object per request routed
        changed = {name for name, data in files(pooled).items() if before.get(name) != data}
        assert len(changed) == 59  # 56 notes, search, tangle note, and out.py it tangled
        assert files(pooled)["code/out.py"] == b"print(1)\n"
    else:
        assert files(pooled) == before  # nothing written, nothing tangled


def test_second_pooled_run_changes_nothing(tree: Path, tmp_path: Path) -> None:
    notes = copy_tree(tree, tmp_path / "pooled")
    assert route(tmp_path / "pooled", 3, "-q")[0] == 3
    routed = files(notes)
    again = route(tmp_path / "pooled", 3, "--json", "-v")
    assert files(notes) == routed
    code, out, err = again
    assert (code, out) == (3, b"")
    lines = err.decode().splitlines()
    assert lines[0].startswith("orgrouter: error: notes/area-2/bad.org:1: ")
    assert lines[1:] == [
        "69 files scanned (68 unchanged since the last run), 0 requests routed, "
        "0 results written, 1 file failed."
    ]


def test_crashed_worker_is_reported_for_its_file(tree: Path, tmp_path: Path) -> None:
    for name in ("serial", "pooled"):
        base = tmp_path / name
        notes = copy_tree(tree, base)
        (notes / "area-3" / "crash.org").write_bytes(b"* @agent crash the worker now\n")
        (notes / "orgrouter.toml").write_text('[skills]\npaths = ["../skills"]\n')
        (base / "skills").mkdir()
        (base / "skills" / "crash.py").write_text(CRASH_SKILL)
    serial_code, serial_out, serial_err = route(tmp_path / "serial", 1, "--json", "-v")
    code, out, err = route(tmp_path / "pooled", 2, "--json", "-v")
    assert (serial_code, code) == (3, 3)
    crash = f"orgrouter: error: notes/area-3/crash.org: {CRASHED}"
    lines = err.decode().splitlines()
    assert lines.count(crash) == 1
    # Everything else is what the serial run (where the skill never crashes) did.
    serial_lines = serial_err.decode().splitlines()
    assert lines[:-1] == [
        crash if line.startswith("routed notes/area-3/crash.org:") else line
        for line in serial_lines[:-1]
    ]
    assert [json.loads(o)["file"] for o in out.splitlines()] == [
        json.loads(o)["file"]
        for o in serial_out.splitlines()
        if json.loads(o)["file"] != "notes/area-3/crash.org"
    ]
    pooled = files(tmp_path / "pooled" / "notes")
    serial = files(tmp_path / "serial" / "notes")
    assert pooled["area-3/crash.org"] == b"* @agent crash the worker now\n"
    assert serial["area-3/crash.org"] != pooled["area-3/crash.org"]
    del pooled["area-3/crash.org"], serial["area-3/crash.org"]
    assert pooled == serial
    assert pool_events(tmp_path / "pooled") == pool_run(1, routed=57, returned=2, crashed=1)


def test_few_candidates_stay_serial(tmp_path: Path) -> None:
    make_tree(tmp_path, MIN_CANDIDATES - 4)  # with the search, tangle and bad: one short
    assert route(tmp_path, 3, "-q")[0] == 3
    assert pool_events(tmp_path) == []


def test_by_default_a_run_pools_only_from_256_candidates(tmp_path: Path) -> None:
    make_tree(tmp_path, MIN_CANDIDATES + 8)  # pooled with limits.pool_from = 48
    assert route(tmp_path, 3, "-q", pool_from=None)[0] == 3
    assert pool_events(tmp_path) == []
    assert Config().limits.pool_from == 256


def test_bad_worker_count_is_a_usage_error(tmp_path: Path) -> None:
    make_tree(tmp_path, 1)
    code, out, err = route(tmp_path, 0, "-q")
    assert (code, out) == (2, b"")
    assert err == (
        b"orgrouter: error: ORGROUTER_WORKERS='0': expected a number of processes "
        b"(1 routes serially)\n"
    )


def test_a_model_backend_keeps_the_run_serial() -> None:
    config = Config()
    assert workers_for(config, 4) == 3
    assert workers_for(config, 1) == 0
    config.neuro.backend = "openai"  # a shared token budget: never multiplied
    assert workers_for(config, 4) == 0


def test_broken_rules_stop_a_pooled_run_as_a_serial_one(tree: Path, tmp_path: Path) -> None:
    for name in ("serial", "pooled"):
        base = tmp_path / name
        notes = copy_tree(tree, base)
        (notes / "orgrouter.toml").write_text('[rules]\ndir = "../rules"\n')
        (base / "rules").mkdir()
        (base / "rules" / "verbs.toml").write_text("[verbs\n")
    serial = route(tmp_path / "serial", 1)
    code, out, err = route(tmp_path / "pooled", 3)
    assert (code, out, err.replace(b"/pooled/", b"/serial/")) == serial
    assert (code, out) == (2, b"")
    where = tmp_path / "pooled" / "rules" / "verbs.toml"
    assert err.decode() == (  # at the first candidate, before any other file's message
        f"orgrouter: error: {where}:1: invalid TOML in routing table: Expected ']' at the "
        "end of a table declaration (at line 1, column 7)\n"
    )
    assert files(tmp_path / "pooled" / "notes") == files(tree / "notes") | {
        "orgrouter.toml": b'[rules]\ndir = "../rules"\n'
    }


def test_skill_load_warnings_show_once_as_serially(tmp_path: Path) -> None:
    for name in ("serial", "pooled"):
        base = tmp_path / name
        for index in range(MIN_CANDIDATES + 2):  # only requests the workers answer
            folder = base / "notes" / f"area-{index % 4}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"note-{index:02d}.org").write_bytes(note(index))
        (base / "notes" / "orgrouter.toml").write_text('[skills]\npaths = ["../skills"]\n')
        (base / "skills").mkdir()
        (base / "skills" / "broken.py").write_text("def oops(:\n")
    serial = route(tmp_path / "serial", 1, "-q")
    code, out, err = route(tmp_path / "pooled", 2, "-q")
    assert (code, out, err.replace(b"/pooled/", b"/serial/")) == serial
    broken = tmp_path / "pooled" / "skills" / "broken.py"
    assert (code, out) == (0, b"")
    assert err.decode().startswith(f"orgrouter: warning: {broken}:1: ")
    assert len(err.splitlines()) == 1
    assert pool_events(tmp_path / "pooled") == pool_run(1, routed=MIN_CANDIDATES + 2, returned=0)


def test_processes_default_to_the_usable_cpus() -> None:
    assert processes_from({"ORGROUTER_WORKERS": " 3 "}) == 3
    assert processes_from({"ORGROUTER_WORKERS": "12"}) == 12  # asked for: not capped
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert processes_from({}) == processes_from({"ORGROUTER_WORKERS": ""}) == min(usable or 1, 8)
    with pytest.raises(ConfigError) as caught:
        processes_from({"ORGROUTER_WORKERS": "two"})
    assert str(caught.value) == (
        "ORGROUTER_WORKERS='two': expected a number of processes (1 routes serially)"
    )
