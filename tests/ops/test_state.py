"""The state database: creation, WAL, schema ownership, clear errors, path rules."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.config import Config, StateConfig
from orgrouter.errors import StateError
from orgrouter.state import (
    StateDB,
    describe,
    reset_state,
    resolve_state_path,
    root_key,
    split_statements,
)
from orgrouter.xdg import xdg_state_home

DDL_V1 = """
CREATE TABLE IF NOT EXISTS widgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS widgets_name ON widgets (name);
"""
DDL_V2 = """
CREATE TABLE IF NOT EXISTS widgets (id INTEGER PRIMARY KEY, name TEXT, colour TEXT);
"""


def test_open_creates_parent_dirs_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "state.sqlite3"
    with StateDB.open(path) as db:
        assert db.path == path
        assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10000
        assert db.tables() == ["schema_versions"]
    assert path.is_file()


def test_ensure_schema_is_idempotent_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        db.ensure_schema("widgets", 1, DDL_V1)
        with db.transaction() as conn:
            conn.execute("INSERT INTO widgets (name) VALUES ('a')")
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        assert db.conn.execute("SELECT name FROM widgets").fetchall() == [("a",)]
        assert db.tables() == ["schema_versions", "widgets"]


def test_newer_version_rebuilds_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        db.conn.execute("INSERT INTO widgets (name) VALUES ('a')")
        db.conn.commit()
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 2, DDL_V2)
        columns = [row[1] for row in db.conn.execute("PRAGMA table_info(widgets)")]
        assert columns == ["id", "name", "colour"]
        assert db.conn.execute("SELECT count(*) FROM widgets").fetchone()[0] == 0
        versions = db.conn.execute("SELECT name, version FROM schema_versions").fetchall()
        assert versions == [("widgets", 2)]


def test_older_code_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 2, DDL_V2)
    with StateDB.open(path) as db, pytest.raises(StateError) as info:
        db.ensure_schema("widgets", 1, DDL_V1)
    assert "version 2, newer than this orgrouter's 1" in str(info.value)
    assert str(info.value).startswith(f"{path}: ")


def test_tables_unlike_their_recorded_version_are_a_clear_error(tmp_path: Path) -> None:
    # A database whose schema_versions row claims tables it does not have (made by
    # hand, by another program) failed later, in some query, as an internal error.
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        db.conn.execute("DROP TABLE widgets")
        db.conn.execute("CREATE TABLE widgets (x TEXT)")
        db.conn.commit()
    with StateDB.open(path) as db, pytest.raises(StateError) as info:
        db.ensure_schema("widgets", 1, DDL_V1)
    assert str(info.value).startswith(f"{path}: table set 'widgets' is recorded at version 1")
    assert "orgrouter state reset" in str(info.value)
    with StateDB.open(path) as db:
        db.conn.execute("DROP TABLE widgets")
        db.conn.commit()
    with StateDB.open(path) as db, pytest.raises(StateError):
        db.ensure_schema("widgets", 1, DDL_V1)  # a table gone is no better
    with StateDB.open(tmp_path / "good.sqlite3") as db:
        db.ensure_schema("widgets", 1, DDL_V1)
    with StateDB.open(tmp_path / "good.sqlite3") as db:
        db.ensure_schema("widgets", 1, DDL_V1)  # as it made them: no error


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.sqlite3") as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        with pytest.raises(RuntimeError), db.transaction() as conn:
            conn.execute("INSERT INTO widgets (name) VALUES ('gone')")
            raise RuntimeError("boom")
        assert db.conn.execute("SELECT count(*) FROM widgets").fetchone()[0] == 0


def test_corrupt_file_names_path_and_reset(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"this is not a database at all, just text\n" * 200)
    with pytest.raises(StateError) as info:
        StateDB.open(path)
    message = str(info.value)
    assert message.startswith(f"{path}: the state database is corrupt")
    assert "orgrouter state reset" in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_unwritable_directory_is_reported(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(StateError) as info:
            StateDB.open(locked / "sub" / "s.sqlite3")
        assert "cannot create the state directory" in str(info.value)
    finally:
        locked.chmod(0o700)


def test_parent_is_a_file_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    with pytest.raises(StateError) as info:
        StateDB.open(blocker / "s.sqlite3")
    assert str(info.value).startswith(f"{blocker}: cannot create the state directory")
    assert "--state PATH" in str(info.value)


def test_two_processes_share_the_database(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
    script = (
        "import sys\n"
        "from orgrouter.state import StateDB\n"
        "with StateDB.open(sys.argv[1]) as db:\n"
        "    db.ensure_schema('widgets', 1, '''" + DDL_V1 + "''')\n"
        "    for i in range(200):\n"
        "        with db.transaction() as conn:\n"
        "            conn.execute('INSERT INTO widgets (name) VALUES (?)', (sys.argv[2],))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), tag]) for tag in "ab"]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    with StateDB.open(path) as db:
        rows = db.conn.execute("SELECT name, count(*) FROM widgets GROUP BY name").fetchall()
    assert rows == [("a", 200), ("b", 200)]


def test_split_statements_keeps_semicolons_inside_strings() -> None:
    ddl = "CREATE TABLE t (x TEXT DEFAULT 'a;b');\nINSERT INTO t VALUES ('c;d');\n"
    assert split_statements(ddl) == [
        "CREATE TABLE t (x TEXT DEFAULT 'a;b');",
        "INSERT INTO t VALUES ('c;d');",
    ]
    with pytest.raises(ValueError):
        split_statements("CREATE TABLE t (x TEXT DEFAULT 'unterminated)")


def test_resolve_state_path_precedence(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    config = Config(state=StateConfig(path=str(tmp_path / "from-config.db")))
    env = {"ORGROUTER_STATE": str(tmp_path / "from-env.db"), "HOME": str(tmp_path)}
    cli = tmp_path / "from-cli.db"
    assert resolve_state_path(cli, env, config, root) == cli
    assert resolve_state_path(None, env, config, root) == tmp_path / "from-env.db"
    env.pop("ORGROUTER_STATE")
    assert resolve_state_path(None, env, config, root) == tmp_path / "from-config.db"
    expected = tmp_path / ".local" / "state" / "orgrouter" / f"{root_key(root)}.sqlite3"
    assert resolve_state_path(None, env, Config(), root) == expected
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg")
    assert resolve_state_path(None, env, None, root).parent == tmp_path / "xdg" / "orgrouter"


def test_relative_xdg_state_home_is_ignored(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": "relative/dir", "HOME": str(tmp_path)}
    assert xdg_state_home(env) == tmp_path / ".local" / "state"


def test_root_key_is_stable_and_distinguishes_roots(tmp_path: Path) -> None:
    (tmp_path / "a" / "notes").mkdir(parents=True)
    (tmp_path / "b" / "notes").mkdir(parents=True)
    first = root_key(tmp_path / "a" / "notes")
    assert first == root_key(tmp_path / "a" / "notes" / ".." / "notes")
    assert first != root_key(tmp_path / "b" / "notes")
    assert first.startswith("notes-") and len(first) == len("notes-") + 16
    assert root_key(tmp_path / "a" / "we ird:name").startswith("we_ird_name-")


def test_sqlite_connection_is_plain(tmp_path: Path) -> None:
    with StateDB.open(tmp_path / "s.sqlite3") as db:
        assert isinstance(db.conn, sqlite3.Connection)


def test_a_directory_in_place_of_the_database_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    path.mkdir()
    with pytest.raises(StateError) as info:
        StateDB.open(path)
    assert str(info.value).startswith(f"{path}: the state database is not writable")
    assert "--state PATH or ORGROUTER_STATE" in str(info.value)


def test_describe_and_reset(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with StateDB.open(path) as db:
        db.ensure_schema("widgets", 1, DDL_V1)
        db.conn.execute("INSERT INTO widgets (name) VALUES ('a')")
        db.conn.commit()
        facts = describe(db)
    assert facts["path"] == str(path)
    assert facts["schemas"] == {"widgets": 1}
    assert facts["tables"] == {"schema_versions": 1, "widgets": 1}
    assert isinstance(facts["size_bytes"], int) and facts["size_bytes"] > 0
    path.write_bytes(b"corrupt" * 100)
    with reset_state(path) as db:
        assert db.tables() == ["schema_versions"]
    assert not Path(f"{path}-journal").exists()
