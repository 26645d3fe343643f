"""The hot path stays light: no lark, orgparse or httpx for --version or the scan stage."""

from __future__ import annotations

import subprocess
import sys

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
