"""The one SQLite state database: opening it safely and letting modules own tables.

The notes themselves carry the ``ORGROUTER_HASH`` properties that make a route
idempotent, so a lost or reset database costs time (a cold scan, fresh rate windows),
never a duplicate result or a lost edit; what it alone holds (refine candidates
awaiting approval, the event history) is bookkeeping that can be redone. That is why
a schema version change drops and recreates a module's tables instead of migrating.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.errors import StateError
from orgrouter.xdg import state_dir as state_dir

if TYPE_CHECKING:
    from orgrouter.config import Config

BUSY_TIMEOUT_S = 10.0  # cron and a hand run may share the file; wait, don't fail
RESET_HINT = "run `orgrouter state reset` to rebuild it (it holds only caches and windows)"

_VERSIONS_DDL = """
CREATE TABLE IF NOT EXISTS schema_versions (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)
"""


class StateDB:
    """An open state database; use ``StateDB.open(path)``, then ``.conn``."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self._ensured: dict[str, int] = {}
        # Per-process notes of work done once per run on this database (the search
        # index's refresh), keyed by the module that keeps them.
        self.run_memo: dict[str, object] = {}

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> StateDB:
        """Open (creating if needed) the database at ``path`` in WAL mode."""
        target = Path(path).expanduser()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StateError(
                f"cannot create the state directory: {error.strerror or error}; "
                "choose another place with --state PATH or ORGROUTER_STATE",
                path=target.parent,
            ) from error
        try:
            conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S)
        except sqlite3.Error as error:
            raise _state_error(target, error) from error
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # Reading the schema is what detects a file that is not a database.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                # WAL needs shared memory; where it is refused (some network file
                # systems) the default rollback journal still works, only slower.
                conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_VERSIONS_DDL)
            conn.commit()
        except sqlite3.Error as error:
            conn.close()
            raise _state_error(target, error) from error
        return cls(target, conn)

    @classmethod
    def open_readonly(cls, path: str | os.PathLike[str]) -> StateDB:
        """Open the database at ``path`` for reading only; an empty one if it does not exist.

        For queries that must change no state (``orgrouter classify``): nothing is
        created, migrated or written.
        """
        target = Path(path).expanduser()
        try:
            if target.is_file():
                uri = "file:" + urllib.parse.quote(str(target.resolve())) + "?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            else:
                conn = sqlite3.connect(":memory:")
        except sqlite3.Error as error:
            raise _state_error(target, error) from error
        return cls(target, conn)

    def ensure_schema(self, name: str, version: int, ddl: str) -> None:
        """Create module ``name``'s tables from ``ddl`` unless ``version`` is recorded.

        An older recorded version drops the tables ``ddl`` creates and recreates
        them (state is a cache); a newer one is an error, so an old orgrouter never
        writes into tables it does not understand.
        """
        if self._ensured.get(name) == version:
            return
        try:
            with self.transaction():
                row = self.conn.execute(
                    "SELECT version FROM schema_versions WHERE name = ?", (name,)
                ).fetchone()
                recorded = None if row is None else int(row[0])
                if recorded is not None and recorded > version:
                    raise StateError(
                        f"table set {name!r} has version {recorded}, newer than this "
                        f"orgrouter's {version}; upgrade orgrouter or {RESET_HINT}",
                        path=self.path,
                    )
                if recorded == version and not self._columns_match(ddl):
                    raise StateError(
                        f"table set {name!r} is recorded at version {version}, but its "
                        f"tables are not the ones that version makes; {RESET_HINT}",
                        path=self.path,
                    )
                if recorded != version:
                    if recorded is not None:
                        for table in _CREATE_TABLE_RE.findall(ddl):
                            self.conn.execute(f'DROP TABLE IF EXISTS "{table}"')
                    for statement in split_statements(ddl):
                        self.conn.execute(statement)
                    self.conn.execute(
                        "INSERT OR REPLACE INTO schema_versions (name, version) VALUES (?, ?)",
                        (name, version),
                    )
        except sqlite3.Error as error:
            raise _state_error(self.path, error) from error
        self._ensured[name] = version

    def _columns_match(self, ddl: str) -> bool:
        """Return whether the tables ``ddl`` creates have here the columns it gives them.

        ``ddl`` is run in a scratch in-memory database to learn them: a database whose
        tables were made otherwise (by hand, by another program) would fail later, in
        whatever query first names a column it lacks, as an internal error.
        """
        scratch = sqlite3.connect(":memory:")
        try:
            for statement in split_statements(ddl):
                scratch.execute(statement)
            for table in _CREATE_TABLE_RE.findall(ddl):
                query = f'PRAGMA table_info("{table}")'
                wanted = [row[1] for row in scratch.execute(query)]
                if wanted != [row[1] for row in self.conn.execute(query)]:
                    return False
        except sqlite3.Error:
            return True  # what the scratch database cannot build (FTS5 missing) is not judged
        finally:
            scratch.close()
        return True

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block as one write transaction (BEGIN IMMEDIATE), committed on success."""
        if self.conn.in_transaction:
            self.conn.commit()
        # IMMEDIATE takes the write lock up front, so two processes never both read
        # then fail to upgrade (SQLITE_BUSY without waiting on the busy timeout).
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.rollback()
            raise
        self.conn.commit()

    def tables(self) -> list[str]:
        """Return the names of the tables in the database, sorted."""
        rows = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Commit anything pending and close the connection."""
        try:
            if self.conn.in_transaction:
                self.conn.commit()
        finally:
            self.conn.close()

    def __enter__(self) -> StateDB:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if exc_type is not None and self.conn.in_transaction:
            self.conn.rollback()
        self.close()


def _state_error(path: Path, error: sqlite3.Error) -> StateError:
    """Turn an sqlite3 error into a StateError a user can act on."""
    text = str(error)
    if isinstance(error, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "corrupt" in text
    ):
        return StateError(f"the state database is corrupt ({text}); {RESET_HINT}", path=path)
    if "readonly" in text or "unable to open" in text or "permission" in text.lower():
        return StateError(
            f"the state database is not writable ({text}); fix its permissions, "
            "or choose another place with --state PATH or ORGROUTER_STATE",
            path=path,
        )
    if "locked" in text or "busy" in text:
        return StateError(
            f"the state database stayed locked for {BUSY_TIMEOUT_S:.0f} s ({text}); "
            "another orgrouter may be stuck",
            path=path,
        )
    return StateError(f"state database error: {text}; {RESET_HINT}", path=path)


def split_statements(ddl: str) -> list[str]:
    """Split an SQL script into complete statements (``executescript`` would commit)."""
    statements: list[str] = []
    pending = ""
    for piece in ddl.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\r\n;"):
                statements.append(pending.strip())
            pending = ""
    if pending.strip(" \t\r\n;"):
        raise ValueError(f"incomplete SQL statement: {pending.strip()!r}")
    return statements


_CREATE_TABLE_RE = re.compile(
    r"\bCREATE\s+(?:TEMP\s+|TEMPORARY\s+|VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"[\"`\[]?(\w+)",
    re.IGNORECASE,
)


def root_key(notes_root: str | os.PathLike[str]) -> str:
    """Return a file-name-safe key for a notes root: its name plus a path hash."""
    resolved = Path(notes_root).expanduser().resolve()
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", resolved.name).strip("._") or "root"
    return f"{name[:40]}-{digest}"


def resolve_state_path(
    cli_value: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    config: Config | None,
    notes_root: str | os.PathLike[str],
) -> Path:
    """Return the state database path: --state, ORGROUTER_STATE, config, else XDG."""
    for value in (
        cli_value,
        env.get("ORGROUTER_STATE") or None,
        None if config is None else config.state.path,
    ):
        if value is not None and os.fspath(value) != "":
            return Path(os.path.abspath(Path(value).expanduser()))
    return state_dir(env) / f"{root_key(notes_root)}.sqlite3"


SIDE_FILES = ("-wal", "-shm", "-journal")


def reset_state(path: str | os.PathLike[str]) -> StateDB:
    """Delete the database at ``path`` (and its WAL files) and open a fresh, empty one."""
    target = Path(path)
    for suffix in ("", *SIDE_FILES):
        victim = Path(f"{target}{suffix}")
        try:
            victim.unlink()
        except FileNotFoundError:
            continue
        except OSError as error:
            raise StateError(
                f"cannot remove {victim.name}: {error.strerror or error}", path=victim
            ) from error
    return StateDB.open(target)


def describe(db: StateDB) -> dict[str, object]:
    """Return the path, size on disk, schema versions and row count of every table."""
    size = 0
    for suffix in ("", *SIDE_FILES):
        try:
            size += os.stat(f"{db.path}{suffix}").st_size
        except OSError:
            continue
    try:
        tables = {
            name: int(db.conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
            for name in db.tables()
        }
        versions = dict(db.conn.execute("SELECT name, version FROM schema_versions ORDER BY name"))
    except sqlite3.Error as error:
        raise _state_error(db.path, error) from error
    return {"path": str(db.path), "size_bytes": size, "schemas": versions, "tables": tables}
