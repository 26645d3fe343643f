"""Compiled patterns kept between runs come back as re compiles them, and only the code's."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import orgrouter
from orgrouter import diskcache


def _package_patterns() -> list[re.Pattern[Any]]:
    """Import every orgrouter module; return the patterns they hold."""
    for found in pkgutil.walk_packages(orgrouter.__path__, "orgrouter."):
        if found.name != "orgrouter.__main__":
            importlib.import_module(found.name)
    return [
        value
        for name, module in list(sys.modules.items())
        if name.startswith("orgrouter")
        for value in vars(module).values()
        if isinstance(value, re.Pattern)
    ]


def test_every_pattern_of_the_package_comes_back_as_re_compiles_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _package_patterns()
    assert len(held) > 150  # every module's, not only one command's
    # re's cache as it holds them (a long test run may have evicted some from the real one).
    ours = {(type(p.pattern), p.pattern, p.flags): p for p in held}
    monkeypatch.setattr(re, "_cache", dict(ours))
    path = tmp_path / "regex-test.marshal"
    diskcache.store(path, {})
    monkeypatch.setattr(re, "_cache", {})  # a new process: nothing compiled yet
    loaded = diskcache.preload(path)
    assert set(ours) <= set(loaded)
    for key, compiled in ours.items():
        again = re.compile(key[1], key[2])  # what the package's modules would be given
        assert again is re._cache[key] and again is not compiled  # type: ignore[attr-defined]
        # A Pattern equals another with the same text, flags and program.
        assert again == compiled and again.groupindex == compiled.groupindex, key
        assert again.groups == compiled.groups


def test_a_pattern_built_from_a_note_is_never_stored(tmp_path: Path) -> None:
    title = re.compile(re.escape("the surprise party for Ann"), re.IGNORECASE)
    kept = diskcache.keep(re.compile(r"\bkept by the code\b"))
    path = tmp_path / "regex-test.marshal"
    diskcache.store(path, {})
    stored = path.read_bytes()
    assert b"surprise party" not in stored and title.pattern.encode() not in stored
    assert kept.pattern.encode() in stored


def test_a_damaged_or_foreign_file_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "regex-a.marshal"
    diskcache.keep(re.compile(r"kept\d+"))
    diskcache.store(path, {})
    data = path.read_bytes()
    monkeypatch.setattr(re, "_cache", {})
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one bit flipped
    assert diskcache.preload(path) == {} and re._cache == {}  # type: ignore[attr-defined]
    moved = tmp_path / "regex-b.marshal"  # sealed under another name
    moved.write_bytes(data)
    assert diskcache.preload(moved) == {} and re._cache == {}  # type: ignore[attr-defined]
    path.write_bytes(data)
    assert diskcache.preload(path) != {}


def test_a_stdin_route_answers_the_same_with_its_patterns_stored(tmp_path: Path) -> None:
    note = b"#+TITLE: t\n* @agent create a todo to renew the passport\n#+begin_src sh\n#+end_src\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")}
    env |= {"XDG_STATE_HOME": str(tmp_path / "s"), "XDG_CONFIG_HOME": str(tmp_path)}
    env["ORGROUTER_NOW"] = "2026-03-01T10:00"  # not --now: the filter's own form, as Emacs runs it
    command = [sys.executable, "-m", "orgrouter", "route", "--stdin"]
    outputs = [
        subprocess.run(command, input=note, capture_output=True, env=env, check=True).stdout
        for _run in range(3)  # compiled; tables' patterns stored; all from the file
    ]
    assert b"** TODO renew the passport" in outputs[0]
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    assert list((tmp_path / "s" / "orgrouter" / "cache").glob("regex-route-stdin-*.marshal"))
