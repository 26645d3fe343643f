"""The search index: FTS5 over titles and section text, kept current from one stat per file."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

import pytest

from orgrouter import searchindex
from orgrouter.config import Config
from orgrouter.skills.base import Context, Emit, Request, delegation
from orgrouter.skills.search import SKILL as SEARCH
from orgrouter.state import StateDB

PRIVATE = ("@personal",)


def _index(tmp_path: Path) -> searchindex.SearchIndex:
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    return searchindex.SearchIndex(db, PRIVATE)


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.org"))


def _read(path: Path) -> str:
    return path.read_text()


def _age(path: Path) -> None:
    """Date the file's mtime an hour back, as a note written long before the run."""
    past = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(past, past))


def test_body_text_matches_and_titles_rank_first(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text(
        "* Groceries\nRemember the budget for the week.\n* Budget 2027\nNumbers.\n"
    )
    index = _index(tmp_path)
    index.refresh(_files(notes), _read, under=notes)
    hits, total = index.query(["budget"], under=notes)
    assert total == 2
    assert [h.title for h in hits] == ["Budget 2027", "Groceries"]
    assert hits[1].line == 1 and "budget for the week" in hits[1].snippet


def test_refresh_reads_only_changed_files_and_drops_deleted(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(5):
        (notes / f"n{n}.org").write_text(f"* Note {n}\nkubernetes {n}\n")
        _age(notes / f"n{n}.org")
    index = _index(tmp_path)
    assert index.refresh(_files(notes), _read, under=notes).indexed == 5
    assert index.refresh(_files(notes), _read, under=notes) == searchindex.Refreshed(0, 0, 0)
    (notes / "n1.org").write_text("* Note one\nnothing here\n")
    (notes / "n2.org").unlink()
    done = index.refresh(_files(notes), _read, under=notes)
    assert (done.indexed, done.dropped) == (1, 1)
    hits, total = index.query(["kubernetes"], under=notes)
    assert total == 3 and {h.path.name for h in hits} == {"n0.org", "n3.org", "n4.org"}


def test_private_results_and_requests_are_never_indexed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "diary.org").write_text("#+FILETAGS: :@personal:\n* Budget worries\n")
    (notes / "mixed.org").write_text(
        "* Health :@personal:\n** Budget for the dentist\n* Work\n** Budget review\n"
        "** @agent find budget\n*** Search: budget\n:PROPERTIES:\n"
        ":ORGROUTER_RESULT: abc/1\n:END:\n- budget\n"
    )
    index = _index(tmp_path)
    index.refresh(_files(notes), _read, under=notes)
    hits, total = index.query(["budget"], under=notes)
    assert [h.title for h in hits] == ["Budget review"] and total == 1


def test_query_syntax_in_words_is_literal(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text('* Plan NOT "done" (draft)\n')
    index = _index(tmp_path)
    index.refresh(_files(notes), _read, under=notes)
    assert index.query(["NOT", '"done"', "(draft"], under=notes)[1] == 1
    assert index.query(["*", "OR"], under=notes)[1] == 0


def test_unreadable_file_is_counted_not_indexed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "good.org").write_text("* Garden\n")
    (notes / "bad.org").write_bytes(b"* Garden \x00\n")
    index = _index(tmp_path)

    from orgrouter.io.text import read_org_text

    assert index.refresh(_files(notes), read_org_text, under=notes).unreadable == 1
    assert index.query(["garden"], under=notes)[1] == 1


def test_skill_uses_the_index_once_per_run(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "k8s.org").write_text("* Cluster work\nUpgrade kubernetes to 1.31.\n")
    here = notes / "journal.org"
    here.write_text("* @agent find kubernetes\n")
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    request = Request(here, 1, "@agent find kubernetes", "find kubernetes", "agent")
    ctx = Context(Config(), datetime(2026, 12, 1), request=request, notes_root=notes, state=db)

    def body() -> str:
        action = SEARCH.symbolic(delegation({"skill": "search", "text": "find kubernetes"}), ctx)
        assert isinstance(action, Emit)
        return action.results[0].body

    assert body() == (
        "- [[file:k8s.org::*Cluster work][Cluster work]] — Upgrade kubernetes to 1.31."
    )
    # The same run does not stat the tree again: a file added now is found next run.
    (notes / "more.org").write_text("* Kubernetes notes\n")
    assert "Kubernetes notes" not in body()
    db.run_memo.clear()
    assert body().startswith("- [[file:more.org::*Kubernetes notes]")
    os.utime(notes / "k8s.org")  # a touch re-reads the file; nothing changes
    db.run_memo.clear()
    assert "Cluster work" in body()


def _ask(tmp_path: Path, notes: Path, text: str) -> tuple[str, str]:
    """Return the title and body of the search ``@agent TEXT`` answers in a note of ``notes``."""
    here = notes / "asking.org"
    here.write_text(f"* @agent {text}\n")
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    request = Request(here, 1, "@agent " + text, text, "agent")
    ctx = Context(Config(), datetime(2026, 12, 1), request=request, notes_root=notes, state=db)
    action = SEARCH.symbolic(delegation({"skill": "search", "text": text}), ctx)
    assert isinstance(action, Emit)
    return action.results[0].title, action.results[0].body


def test_words_no_headline_holds_are_dropped_and_said(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "curries.org").write_text("* Chana masala\nChickpeas.\n* Thai green curry\nTofu.\n")
    assert _ask(tmp_path, notes, "dig up my curry recipes") == (
        "Search: curry recipes",
        "- [[file:curries.org::*Thai green curry][Thai green curry]] — Tofu.\n\n"
        "(No headline mentions 'recipes'; these mention the rest.)",
    )


@pytest.mark.parametrize("tag", ["@personal", "private"])
def test_a_crlf_note_private_subtree_is_never_indexed(tmp_path: Path, tag: str) -> None:
    # Emacs visits a CRLF note as dos: the tags before the CR are the headline's tags.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_bytes(
        f"* Budget plan\r\nbudget 2027\r\n* Trip :{tag}:\r\nbudget SECRET\r\n"
        "** Sub\r\nbudget HIDDEN\r\n* Work :w:\r\nbudget review\r\n".encode()
    )
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    index = searchindex.SearchIndex(db, (tag,))
    index.refresh(_files(notes), lambda p: p.read_bytes().decode(), under=notes)
    stored = db.conn.execute("SELECT title || ' ' || body FROM search_fts").fetchall()
    assert not [row for row in stored if "SECRET" in row[0] or "HIDDEN" in row[0]]
    hits, total = index.query(["budget"], under=notes)
    assert total == 2 and sorted(h.title for h in hits) == ["Budget plan", "Work"]


def test_a_file_written_just_before_it_was_indexed_is_read_again(tmp_path: Path) -> None:
    # Where mtime ticks are coarse, a write in the tick of the read leaves the stat as
    # it was (git's "racy clean"): such a file must not be trusted by its stat alone.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "old.org").write_text("* Old\nkubernetes\n")
    _age(notes / "old.org")
    (notes / "new.org").write_text("* New\nkubernetes\n")
    index = _index(tmp_path)
    assert index.refresh(_files(notes), _read, under=notes).indexed == 2
    assert index.refresh(_files(notes), _read, under=notes).indexed == 1  # new.org only
    _age(notes / "new.org")
    index.refresh(_files(notes), _read, under=notes)
    assert index.refresh(_files(notes), _read, under=notes) == searchindex.Refreshed(0, 0, 0)


def test_an_index_of_the_older_schema_is_dropped_with_its_text(tmp_path: Path) -> None:
    # Version 1 indexed the private subtrees of CRLF notes: its rows (the FTS5 table
    # included, a virtual table) must not survive into the new schema.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text("* Budget plan\nbudget 2027\n")
    _age(notes / "a.org")
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    searchindex.SearchIndex(db, ("@personal",)).refresh(_files(notes), _read, under=notes)
    db.conn.execute("INSERT INTO search_fts (title, body) VALUES ('Trip', 'budget SECRET')")
    db.conn.execute("UPDATE schema_versions SET version = 1 WHERE name = ?", (searchindex.SCHEMA,))
    db.conn.commit()
    db.close()
    db = StateDB.open(tmp_path / "state.db")
    index = searchindex.SearchIndex(db, ("@personal",))
    index.refresh(_files(notes), _read, under=notes)
    stored = db.conn.execute("SELECT title || ' ' || body FROM search_fts").fetchall()
    assert stored and not [row for row in stored if "SECRET" in row[0]]


def test_words_each_held_but_never_together_are_not_said_to_be_dropped(tmp_path: Path) -> None:
    # Every word is in some headline, none holds both: there is no word to drop, and
    # the result said "(No headline mentions ''; these mention the rest.)".
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text("* Alpha plan\ntext\n* Beta plan\nmore\n")
    assert _ask(tmp_path, notes, "find notes about alpha beta")[1] == (
        "No headline under the notes root mentions 'alpha beta'."
    )


def _stored(index: searchindex.SearchIndex) -> str:
    rows = index.db.conn.execute("SELECT title || ' ' || body FROM search_fts").fetchall()
    return "\n".join(row[0] for row in rows)


def test_a_change_of_the_privacy_tags_reindexes_unchanged_notes(tmp_path: Path) -> None:
    # The tags decide what is indexed: a note indexed under other tags holds text that
    # is private now (or lacks text that is public now) though its stat is unchanged.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text("* Work budget :work:\nbudget WORK\n* Trip :trip:\nbudget TRIP\n")
    _age(notes / "a.org")
    db = _index(tmp_path).db
    searchindex.SearchIndex(db, ("work",)).refresh(_files(notes), _read, under=notes)
    index = searchindex.SearchIndex(db, ("trip",))
    index.refresh(_files(notes), _read, under=notes)
    assert "TRIP" not in _stored(index)
    hits, total = index.query(["budget"], under=notes)
    assert total == 1 and [h.title for h in hits] == ["Work budget"]
    assert index.refresh(_files(notes), _read, under=notes) == searchindex.Refreshed(0, 0, 0)


def test_a_setup_file_made_private_is_seen_without_an_edit_of_the_note(tmp_path: Path) -> None:
    # #+SETUPFILE's #+FILETAGS make the whole note private: the note's own stat does
    # not change when the setup file does.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.org").write_text("#+SETUPFILE: tags.setup\n* Budget\nbudget SECRET\n")
    (notes / "tags.setup").write_text("#+TODO: TODO DONE\n")
    _age(notes / "a.org")
    index = _index(tmp_path)
    index.refresh(_files(notes), _read, under=notes)
    assert "SECRET" in _stored(index)
    (notes / "tags.setup").write_text("#+FILETAGS: :@personal:\n")
    index.refresh(_files(notes), _read, under=notes)
    assert "SECRET" not in _stored(index)
