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


def _stored(path: Path, pattern: str) -> Path:
    """Store the package's patterns and ``pattern`` (kept by the code) at ``path``."""
    diskcache.keep(re.compile(pattern))
    diskcache.store(path, {})
    return path


def test_a_damaged_or_foreign_file_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _stored(tmp_path / "regex-a.marshal", r"kept\d+")
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


def _sealed(path: Path, programs: object) -> None:
    """Write ``programs`` at ``path`` as a valid entry (the seal is no secret)."""
    import marshal

    payload = marshal.dumps(programs)
    path.write_bytes(diskcache.seal(path, payload) + payload)
    path.chmod(0o600)


def test_a_crafted_program_under_a_valid_seal_does_not_crash_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "regex-a.marshal"
    compiled = re.compile(r"ab+c")
    good = diskcache.program((str, compiled.pattern, 0), compiled)
    assert good is not None
    monkeypatch.setattr(re, "_cache", {})
    for field, value in ((3, [2**40]), (4, 2**70), (2, 2**70)):  # _sre raises OverflowError
        crafted = list(good)
        crafted[field] = value
        _sealed(path, [tuple(crafted)])
        diskcache.preload(path)  # re compiles it as ever
        assert re.compile(r"ab+c").match("abbc") is not None


def test_only_a_regular_file_no_one_else_can_write_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _stored(tmp_path / "regex-a.marshal", r"kept\d+ too")
    assert diskcache.read_sealed(path, 1 << 20) is not None
    path.chmod(0o620)  # a group's member could have put a program there _sre trusts
    assert diskcache.read_sealed(path, 1 << 20) is None
    path.chmod(0o602)
    assert diskcache.read_sealed(path, 1 << 20) is None
    if os.geteuid() == 0:  # another user's file
        path.chmod(0o600)
        os.chown(path, 4321, 4321)
        assert diskcache.read_sealed(path, 1 << 20) is None
    fifo = tmp_path / "regex-fifo.marshal"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer holds it open, writing nothing
    try:
        assert diskcache.read_sealed(fifo, 1 << 20) is None
        assert diskcache.preload(fifo) == {}
    finally:
        os.close(writer)
    if Path("/dev/zero").exists():
        zero = tmp_path / "regex-zero.marshal"
        zero.symlink_to("/dev/zero")
        assert diskcache.read_sealed(zero, 1 << 20) is None


def test_an_entry_is_written_for_this_user_alone_and_over_a_planted_link(tmp_path: Path) -> None:
    path = tmp_path / "regex-a.marshal"
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (tmp_path / f".{path.name}.{os.getpid()}.tmp").symlink_to(victim)
    old = os.umask(0o002)  # a user private group's umask: files group-writable
    try:
        diskcache.write_sealed(path, b"payload")
    finally:
        os.umask(old)
    assert victim.read_text() == "mine\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert diskcache.read_sealed(path, 1 << 20) == b"payload"
