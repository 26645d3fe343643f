"""``orgrouter config`` and ``orgrouter state``: output, exit codes, the reset flow."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from orgrouter.cli import main
from orgrouter.runlock import RunLock
from orgrouter.state import StateDB, root_key


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    out, err = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_config_text_and_json(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (env / "orgrouter.toml").write_text('[agent]\nname = "hal"\n')
    code, out, err = run(["config", str(env)], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"# files read (lowest precedence first): {env}/orgrouter.toml"
    assert lines[1].split("  # ") == [
        'agent.name = "hal"' + " " * 19,
        f"file {env}/orgrouter.toml:2",
    ]
    assert any(line.startswith("# neuro.endpoint is unset ") for line in lines)
    code, out, _ = run(["config", "--json", str(env)], capsys)
    data = json.loads(out)
    assert data["values"]["agent.name"] == "hal"
    assert data["sources"]["agent.name"] == {"kind": "file", "detail": f"{env}/orgrouter.toml:2"}
    assert data["sources"]["neuro.backend"] == {"kind": "default", "detail": ""}


def test_config_error_exit_2_names_file_line(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (env / "orgrouter.toml").write_text("[agent]\nnmae = 'x'\n")
    code, out, err = run(["config", str(env)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"orgrouter: error: {env}/orgrouter.toml:2: unknown key agent.nmae (did you mean 'name'?)\n"
    )


def test_state_path_info_reset(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = tmp_path / "xdg-state" / "orgrouter" / f"{root_key(env)}.sqlite3"
    assert run(["state", "path", str(env)], capsys) == (0, f"{expected}\n", "")
    code, out, _ = run(["state", "info", str(env)], capsys)
    assert out == f"{expected}: no state database yet (the first run creates it)\n"
    with StateDB.open(expected) as db:
        db.ensure_schema("demo", 1, "CREATE TABLE demo (x INTEGER);")
        db.conn.executemany("INSERT INTO demo VALUES (?)", [(1,), (2,)])
        db.conn.commit()
    code, out, _ = run(["state", "info", "--json", str(env)], capsys)
    facts = json.loads(out)
    assert facts["tables"] == {"demo": 2, "schema_versions": 1}
    assert facts["schemas"] == {"demo": 1}
    assert facts["exists"] is True and facts["size_bytes"] > 0
    code, out, _ = run(["state", "info", str(env)], capsys)
    assert out.splitlines()[0] == f"path: {expected}"
    assert out.splitlines()[2:] == ["table demo: 2 rows", "table schema_versions: 1 row"]
    # Reset needs --yes or a yes on stdin; "no" changes nothing.
    code, out, err = run(["state", "reset", "--yes", str(env)], capsys)
    assert (code, err) == (0, f"rebuilt {expected}\n")
    with StateDB.open(expected) as db:
        assert db.tables() == ["schema_versions"]


def test_reset_fixes_a_corrupt_database(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "custom" / "s.sqlite3"
    state.parent.mkdir()
    state.write_bytes(b"garbage" * 1000)
    code, _, err = run(["state", "info", "--state", str(state), str(env)], capsys)
    assert code == 3
    assert err.startswith(f"orgrouter: error: {state}: the state database is corrupt")
    assert "orgrouter state reset" in err
    assert run(["state", "reset", "-y", "--state", str(state), str(env)], capsys)[0] == 0
    assert run(["state", "info", "--state", str(state), str(env)], capsys)[0] == 0


def test_reset_waits_for_no_run(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RunLock(env, os.environ):
        code, _, err = run(["state", "reset", "--yes", str(env)], capsys)
    assert code == 75
    assert "another orgrouter run" in err


def test_reset_declined(
    env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True  # reset asks only on a terminal

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    path = run(["state", "path", str(env)], capsys)[1].strip()
    with StateDB.open(path) as db:
        db.ensure_schema("demo", 1, "CREATE TABLE demo (x INTEGER);")
        db.conn.execute("INSERT INTO demo VALUES (1)")
        db.conn.commit()
    code, _, err = run(["state", "reset", str(env)], capsys)
    assert code == 0
    assert err == (f"Delete and rebuild {path}?\nIt holds: demo (1 row) [y/N]: nothing changed\n")
    with StateDB.open(path) as db:
        assert db.tables() == ["demo", "schema_versions"]


def test_state_path_names_the_database_route_uses_from_a_subdirectory(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (env / "orgrouter.toml").write_text("")
    (env / "projects").mkdir()
    expected = tmp_path / "xdg-state" / "orgrouter" / f"{root_key(env)}.sqlite3"
    assert run(["state", "path", str(env / "projects")], capsys) == (0, f"{expected}\n", "")
