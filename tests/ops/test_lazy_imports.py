"""The hot path stays light: no lark, orgparse or httpx for --version or the scan stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("lark", "orgparse", "httpx")


def imported_modules(args: list[str]) -> set[str]:
    """Run ``python -X importtime ARGS`` and return the top-level modules it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name.split(".")[0])
    assert names, done.stderr
    return names


def test_version_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orgrouter", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.startswith("orgrouter, version ")
    modules = imported_modules(["-m", "orgrouter", "--version"])
    assert "click" in modules  # the measurement itself works
    assert modules.isdisjoint(HEAVY)


def test_scan_stage_modules_import_nothing_heavy() -> None:
    code = (
        "import orgrouter.configload, orgrouter.discover, orgrouter.prefilter, "
        "orgrouter.scancache, orgrouter.runlock, orgrouter.eventlog, orgrouter.report, "
        "orgrouter.progress, orgrouter.state, orgrouter.commands.config, "
        "orgrouter.commands.state"
    )
    modules = imported_modules(["-c", code])
    assert "sqlite3" in modules
    assert modules.isdisjoint(HEAVY)


def test_a_warm_route_imports_no_routing_and_no_write_machinery(tmp_path: Path) -> None:
    # The cron case: nothing changed, one stat per file. Neither the pipeline, a skill,
    # the routing tables nor the transaction (a killed run's moves need it) load.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text("* Errands\n** @agent create a todo to renew the passport\n")
    (notes / "b.org").write_text("* Nothing to do\n")
    code = (
        "import json, sys\n"
        "from orgrouter.cli import main\n"
        "try:\n"
        "    main(['route', '-q', '--state', sys.argv[1], sys.argv[2]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")}
    env.update(XDG_STATE_HOME=str(tmp_path / "s"), XDG_CONFIG_HOME=str(tmp_path / "c"))
    argv = [sys.executable, "-c", code, str(tmp_path / "state.db"), str(notes)]
    routed = (notes / "a.org").read_bytes()
    for _run in range(3):  # route, then settle the racy-mtime re-read, then warm
        done = subprocess.run(argv, capture_output=True, env=env, check=True, timeout=60)
        os.utime(notes / "a.org", (1_000_000_000, 1_000_000_000))
        os.utime(notes / "b.org", (1_000_000_000, 1_000_000_000))
    assert (notes / "a.org").read_bytes() != routed  # the first run routed it
    modules = set(json.loads(done.stderr.decode().splitlines()[-1]))
    assert "orgrouter.scancache" in modules and "sqlite3" in modules
    unwanted = {"orgrouter.route.pipeline", "orgrouter.route.rules", "orgrouter.io.transaction"}
    assert modules.isdisjoint(unwanted | {"tomllib", "click", *HEAVY})  # cli.py's fast path
    assert not any(m.startswith("orgrouter.skills.") for m in modules)
