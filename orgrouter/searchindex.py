"""The search index: SQLite FTS5 over headline titles and section text, in the state database.

``search`` used to read and parse every note under the root for every request, so a
run with sixteen searches over 2,000 notes read 32,000 files. The index keeps, per
headline, its title and the text of its section (up to the next headline, drawers
and planning lines left out, at most ``BODY_CHARS``), ranked by BM25 with titles
weighted above bodies. It is brought up to date once per run, from one ``stat`` per
file: only files whose size, mtime, ctime or inode changed are read again (and those
written just before they were read, which may change again unseen), files no longer
found are dropped. A query then costs the same over 20 files as over 20,000.

What is never indexed: privacy-tagged headlines and everything under them (tags,
inherited, ``#+FILETAGS`` and setup files; ``orgrouter.neuro.privacy`` decides, and
``search`` asks it again for every hit it shows), orgrouter's own results,
and requests (a headline holding an address). The index is a cache like the scan
cache: losing it costs one rebuild, never a result.

SQLite builds without FTS5 exist; ``available`` tells, and ``search`` then scans.
"""

from __future__ import annotations

import bisect
import os
import re
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from orgrouter.address import ANY_ADDRESS_RE
from orgrouter.errors import OrgRouterError
from orgrouter.marks import RESULT_KEY
from orgrouter.org.todo import TodoKeywords
from orgrouter.scancache import RACY_NS
from orgrouter.state import StateDB

SCHEMA = "search_index"
# 2: rows of CRLF private subtrees (indexed by 1) are dropped; 3: the privacy tags a
# file was indexed under are kept with it (a change of the tags re-indexes it); 4: a
# section's text is cut between words
SCHEMA_VERSION = 4
DDL = """
CREATE TABLE IF NOT EXISTS search_files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    privacy TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS search_heads (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    title TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS search_heads_file ON search_heads (file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5 (
    title, body, tokenize = 'unicode61 remove_diacritics 2'
);
"""
BODY_CHARS = 2000  # of each section: enough for a snippet and its words, bounded per headline
TITLE_WEIGHT = 5.0  # bm25 column weight: a word in a title counts five times one in a body
SNIPPET_TOKENS = 12
RESULT_MARK = f":{RESULT_KEY}:"

# The title without trailing blanks; not "(.*?)[ \t]*$", which is quadratic in a line
# of blanks (tests/security/test_hostile_lines.py). A CR before the newline is no part
# of it: Emacs visits a CRLF note as dos, and the tags before the CR are the headline's.
_HEADLINE = re.compile(r"^(\*+) ((?:.*[^ \t\r\n])?)[ \t\r]*$", re.MULTILINE)
# Where the headlines after the first line start: a literal first lets the regex engine
# skip ahead at memchr speed, where "^\*" is tried at every character.
NEXT_HEADLINE = re.compile(r"\n\*+ ")
# Lines of a section that are structure, not text: drawers, planning, keywords, blocks.
# Matched from the newline before each (a section's text starts with one), so that the
# engine skips from newline to newline instead of trying "^" at every character.
NOT_TEXT = re.compile(r"\n[ \t]*(?::[\w-]+:|(?:SCHEDULED|DEADLINE|CLOSED):|#\+)[^\n]*")
_WORD = re.compile(r"\w+")
_WORD_TAIL = re.compile(r"[^\W_]+\Z")  # a token FTS5's unicode61 reads, at the text's end
# A note taking settings from another file: its privacy can change with its stat unchanged.
_SETUP_FILE = re.compile(r"#\+SETUPFILE:", re.IGNORECASE)
# On the case-folded text, without IGNORECASE: the engine then skips to each "#+".
_SETTING_WORD = re.compile(r"#\+(?:filetags|setupfile|todo|seq_todo|typ_todo|include):")
_SETTING = re.compile(
    r"^\ufeff?[ \t]*#\+(?:FILETAGS|SETUPFILE|TODO|SEQ_TODO|TYP_TODO|INCLUDE):",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class IndexHit:
    """One headline the index matched, best first."""

    path: Path
    line: int
    title: str
    snippet: str


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What a refresh did: files read again, files dropped, files it could not read."""

    indexed: int
    dropped: int
    unreadable: int


def available(conn: sqlite3.Connection) -> bool:
    """Return whether this SQLite has FTS5."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.orgrouter_fts5_probe USING fts5 (x)")
        conn.execute("DROP TABLE temp.orgrouter_fts5_probe")
    except sqlite3.OperationalError:
        return False
    return True


class SearchIndex:
    """The index tables of one state database."""

    def __init__(self, db: StateDB, privacy_tags: Collection[str]) -> None:
        self.db = db
        self.privacy_tags = frozenset(privacy_tags)
        self.privacy = "\0".join(sorted({tag.casefold() for tag in privacy_tags}))
        db.ensure_schema(SCHEMA, SCHEMA_VERSION, DDL)

    def refresh(
        self,
        files: Iterable[str],
        read: Callable[[str], str],
        *,
        under: Path | None = None,
    ) -> Refreshed:
        """Bring the index up to date with ``files`` (the notes under ``under``).

        ``read`` returns a file's text or raises ``OSError``/``OrgRouterError``; a
        file it cannot read is dropped from the index and counted.
        """
        conn = self.db.conn
        # A file indexed under other privacy tags is indexed again, whatever its stat.
        known: dict[str, tuple[int, ...]] = {
            str(row[0]): (int(row[1]), *(row[2:6] if row[6] == self.privacy else (-1,)))
            for row in conn.execute(
                "SELECT path, id, size, mtime_ns, ctime_ns, inode, privacy FROM search_files"
            )
        }
        seen: set[str] = set()
        stale: list[tuple[str, os.stat_result]] = []
        for path in files:
            key = os.fspath(path)
            seen.add(key)
            try:
                st = os.stat(path)
            except OSError:
                continue
            old = known.get(key)
            if old is None or old[1:] != (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
                stale.append((path, st))
        prefix = None if under is None else os.fspath(under).rstrip(os.sep) + os.sep
        gone = [
            (key, row[0])
            for key, row in known.items()
            if key not in seen and (prefix is None or key.startswith(prefix))
        ]
        if not stale and not gone:
            return Refreshed(0, 0, 0)
        unreadable = 0
        with self.db.transaction() as tx:
            for _key, file_id in gone:
                _drop(tx, file_id)
            for path, st in stale:
                old = known.get(os.fspath(path))
                if old is not None:
                    _drop(tx, old[0])
                try:
                    text = read(path)
                except (OSError, OrgRouterError):
                    unreadable += 1
                    continue
                # As the scan cache: a file written within RACY_NS of now may change
                # again in the same mtime tick with the same stat, so it is read again;
                # so is one whose setup file may have made it private since.
                racy = time.time_ns() - st.st_mtime_ns < RACY_NS or _SETUP_FILE.search(text)
                cursor = tx.execute(
                    "INSERT INTO search_files (path, size, mtime_ns, ctime_ns, inode, privacy) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        os.fspath(path), st.st_size, -1 if racy else st.st_mtime_ns,
                        st.st_ctime_ns, st.st_ino, self.privacy,
                    ),
                )
                file_id = int(cursor.lastrowid or 0)
                rows = [(r.line, r.title, r.body) for r in sections(text, self.privacy_tags, path)]
                if not rows:
                    continue
                first = _next_head_id(tx)
                tx.executemany(
                    "INSERT INTO search_heads (id, file_id, line, title) VALUES (?, ?, ?, ?)",
                    [(first + n, file_id, line, title) for n, (line, title, _) in enumerate(rows)],
                )
                tx.executemany(
                    "INSERT INTO search_fts (rowid, title, body) VALUES (?, ?, ?)",
                    [(first + n, title, body) for n, (_, title, body) in enumerate(rows)],
                )
        return Refreshed(len(stale) - unreadable, len(gone), unreadable)

    def holds_under(self, root: Path) -> bool:
        """Return whether the index holds any note under ``root``."""
        prefix = os.fspath(root).rstrip(os.sep) + os.sep
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        row = self.db.conn.execute(
            "SELECT 1 FROM search_files WHERE path >= ? AND path < ? LIMIT 1", (prefix, end)
        ).fetchone()
        return row is not None

    def query(self, words: Sequence[str], *, under: Path | None = None, limit: int = 25) -> tuple[
        list[IndexHit], int
    ]:
        """Return up to ``limit`` headlines holding every word (title or body), and the total."""
        match = fts_query(words)
        if not match:
            return [], 0
        conn = self.db.conn
        prefix = "" if under is None else os.fspath(under).rstrip(os.sep) + os.sep
        # FTS5 ranks and limits inside its own scan only for "ORDER BY rank", and only
        # then computes the snippets of just the rows kept: ordering by a bm25() call,
        # or filtering on a joined path first, ranked, joined and snippeted every match
        # (a word in 30% of the headlines cost 40 ms on 2,000 notes). So the path
        # filter is only applied when some indexed note lies outside ``under``.
        ranked = (
            "SELECT rowid AS id, rank, "
            f"snippet(search_fts, 1, '', '', '…', {SNIPPET_TOKENS}) AS snip FROM search_fts "
            f"WHERE search_fts MATCH ? AND rank MATCH 'bm25({TITLE_WEIGHT}, 1.0)'"
        )
        joined = (
            "JOIN search_heads h ON h.id = r.id JOIN search_files f ON f.id = h.file_id"
        )
        if not prefix or not _outside(conn, prefix):
            total = int(
                conn.execute(
                    "SELECT count(*) FROM search_fts WHERE search_fts MATCH ?", (match,)
                ).fetchone()[0]
            )
            rows = conn.execute(
                f"SELECT f.path, h.line, h.title, r.snip FROM ({ranked} ORDER BY rank LIMIT ?) r "
                f"{joined} ORDER BY r.rank, f.path, h.line",
                (match, limit),
            ).fetchall()
        else:
            inside = f"({ranked}) r {joined} WHERE f.path LIKE ? ESCAPE '\\'"
            params = (match, _like_prefix(prefix))
            total = int(conn.execute(f"SELECT count(*) FROM {inside}", params).fetchone()[0])
            rows = conn.execute(
                f"SELECT f.path, h.line, h.title, r.snip FROM {inside} "
                "ORDER BY r.rank, f.path, h.line LIMIT ?",
                (*params, limit),
            ).fetchall()
        hits = [
            IndexHit(Path(str(path)), int(line), str(title), _one_line(str(snippet)))
            for path, line, title, snippet in rows
        ]
        return hits, total


def fts_query(words: Sequence[str]) -> str:
    """Return an FTS5 query holding every word's tokens, each quoted (no query syntax)."""
    tokens = [token for word in words for token in _WORD.findall(word)]
    return " AND ".join('"' + token.replace('"', '""') + '"' for token in tokens)


class Section:
    """One headline the index may hold: its line, its headline line and its section text."""

    __slots__ = ("_title", "body", "head", "line", "start", "todo")

    def __init__(self, line: int, start: int, head: str, body: str, todo: TodoKeywords) -> None:
        self.line = line
        self.start = start  # offset of the headline in the file's text
        self.head = head
        self.body = body
        self.todo = todo
        self._title: str | None = None

    @property
    def title(self) -> str:
        """Return the title: the headline without keyword, priority, COMMENT and tags."""
        if self._title is None:
            from orgrouter.org.headline import parse_headline

            self._title = parse_headline(self.head, self.todo).raw
        return self._title


def headline_starts(text: str) -> list[int]:
    """Return the offsets of the headline lines of ``text`` (``^\\*+ ``)."""
    starts = [0] if text.startswith("*") and _HEADLINE.match(text) else []
    starts += [found.start() + 1 for found in NEXT_HEADLINE.finditer(text)]
    return starts


def file_prelude(
    text: str, privacy_tags: Collection[str], path: str | None = None, folded: str = ""
) -> tuple[TodoKeywords, bool, bool] | None:
    """Return a note's TODO keywords, whether a privacy tag and a result mark are written in it.

    None: the whole file is private (``#+FILETAGS``, also from a setup file). ``folded``
    is ``text.casefold()``, when the caller has it.
    """
    from orgrouter.neuro.privacy import is_private
    from orgrouter.org.settings import read_settings
    from orgrouter.org.todo import DEFAULT_TODO

    # Most notes set neither TODO keywords nor file tags; reading the settings costs
    # more than indexing such a file, so only files that have the keywords pay it.
    # With the file's path, a relative #+SETUPFILE is found where Org finds it.
    folded = folded or text.casefold()
    has_settings = _SETTING_WORD.search(folded) and _SETTING.search(text)
    settings = read_settings(text, None if path is None else Path(path)) if has_settings else None
    todo = DEFAULT_TODO if settings is None else settings.todo
    if settings is not None and is_private(settings.filetags, privacy_tags):
        return None
    maybe_private = any(tag.casefold() in folded for tag in privacy_tags)
    # As sections test each section; on ASCII, the folded text says the same.
    has_results = RESULT_MARK.lower() in folded if text.isascii() else RESULT_MARK in text.upper()
    return todo, maybe_private, has_results


def prelude_marks(privacy_tags: Collection[str]) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """Return what, in its case-folded text, gives a note a prelude: a pattern, and words.

    A note holding neither has the default one: ``DEFAULT_TODO``, no file tags, and no
    privacy tag in a tag group (``:tag:``, the only place one can hide a headline).
    """
    return _SETTING_WORD, tuple(f":{tag.casefold()}:" for tag in privacy_tags)


def sections(
    text: str,
    privacy_tags: Collection[str],
    path: str | None = None,
    *,
    near: Iterable[int] | None = None,
) -> Iterator[Section]:
    """Yield each headline the index may hold (``near``: only sections holding those offsets).

    Work is paid per section yielded: the title is parsed when asked for, and a file
    in which no privacy tag is written pays no tag reading.
    """
    from orgrouter.neuro.privacy import is_private
    from orgrouter.org.headline import line_tags

    prelude = file_prelude(text, privacy_tags, path)
    if prelude is None:
        return
    todo, maybe_private, has_results = prelude
    starts = headline_starts(text)
    wanted = None if near is None else {bisect.bisect_right(starts, at) - 1 for at in near}
    # Only private subtrees need every headline looked at; else just the wanted ones.
    order = range(len(starts)) if wanted is None or maybe_private else sorted(wanted - {-1})
    hidden_below: int | None = None  # level of a private subtree being passed over
    line = 1
    position = 0
    for index in order:
        head = _HEADLINE.match(text, starts[index])
        assert head is not None  # every start is stars and a blank at a line's start
        line_text = text[head.start() : head.end(2)]
        if maybe_private:
            level = len(head.group(1))
            if hidden_below is not None and level <= hidden_below:
                hidden_below = None
            if hidden_below is not None:
                continue
            if is_private(line_tags(line_text, todo), privacy_tags):
                hidden_below = level
                continue
        if wanted is not None and index not in wanted:
            continue
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        body = text[head.end() : min(end, head.end() + BODY_CHARS * 2)]
        if has_results and RESULT_MARK in body.upper():  # as file_prelude tests the file
            continue
        line += text.count("\n", position, head.start())
        position = head.start()
        row = Section(line, head.start(), line_text, body, todo)
        if "@" in row.head and ANY_ADDRESS_RE.search(row.title):
            continue
        row.body = NOT_TEXT.sub("\n", body)
        if len(row.body) > BODY_CHARS:  # cut between words: "=FOLDING=" made a word "fold"
            row.body = _WORD_TAIL.sub("", row.body[: BODY_CHARS + 1])[:BODY_CHARS]
        yield row


def _drop(conn: sqlite3.Connection, file_id: int) -> None:
    """Remove one file and its headlines from the index."""
    conn.execute(
        "DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_heads WHERE file_id = ?)",
        (file_id,),
    )
    conn.execute("DELETE FROM search_heads WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM search_files WHERE id = ?", (file_id,))


def _next_head_id(conn: sqlite3.Connection) -> int:
    """Return the first free headline id."""
    return int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM search_heads").fetchone()[0])


def _outside(conn: sqlite3.Connection, prefix: str) -> bool:
    """Return whether some indexed note's path does not start with ``prefix`` (two seeks)."""
    # Paths starting with "/a/b/" sort from "/a/b/" up to, not including, "/a/b0".
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    row = conn.execute(
        "SELECT 1 FROM search_files WHERE path < ? OR path >= ? LIMIT 1", (prefix, end)
    ).fetchone()
    return row is not None


def _like_prefix(prefix: str) -> str:
    """Return a LIKE pattern matching paths that start with ``prefix``."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _one_line(text: str) -> str:
    """Return ``text`` on one line, runs of white space folded."""
    return " ".join(text.split())
