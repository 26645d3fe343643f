"""The search skill: headlines across the notes root, as Org links."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from orgrouter.config import Config
from orgrouter.skills.base import Context, Emit, Request, delegation
from orgrouter.skills.search import SKILL as SEARCH
from orgrouter.skills.search import Hit, _relative_dir, org_link, query_words
from orgrouter.state import StateDB


def _search(text: str, root: Path, request_file: Path) -> Emit:
    request = Request(request_file, 2, "@agent " + text, text, "agent")
    ctx = Context(Config(), datetime(2026, 11, 30), request=request, notes_root=root)
    action = SEARCH.symbolic(delegation({"skill": "search", "text": text}), ctx)
    assert isinstance(action, Emit)
    return action


def test_search_links_relative_to_request(tmp_path: Path) -> None:
    (tmp_path / "projects").mkdir()
    (tmp_path / "projects" / "k8s.org").write_text(
        "* Kubernetes upgrade\n** TODO Upgrade the kubernetes cluster [1/2] :ops:\n"
        "* Result about kubernetes\n:PROPERTIES:\n:ORGROUTER_RESULT: summary\n:END:\n"
    )
    (tmp_path / "journal.org").write_text("* Lunch\n* @agent find kubernetes\n")
    (result,) = _search("find notes about kubernetes", tmp_path, tmp_path / "journal.org").results
    assert result.title == "Search: kubernetes"
    assert result.body == (
        "- [[file:projects/k8s.org::*Kubernetes upgrade][Kubernetes upgrade]]\n"
        "- [[file:projects/k8s.org::*Upgrade the kubernetes cluster \\[1/2\\]]"
        "[Upgrade the kubernetes cluster (1/2)]]"
    )


def test_search_query_words() -> None:
    assert query_words('search for "release plan" please') == ["release", "plan"]
    assert query_words("find notes about kubernetes upgrades") == ["kubernetes", "upgrades"]


def test_org_link_escapes_backslash_before_bracket(tmp_path: Path) -> None:
    hit = Hit(tmp_path / "a.org", 1, "x\\[y]")
    assert org_link(hit, tmp_path) == "[[file:a.org::*x\\\\\\[y\\]][x\\(y)]]"


def test_org_links_are_relative_to_the_note_whichever_directory_they_point_into() -> None:
    # Each directory's relative path is worked out once per run: the answers stay relpath's.
    here = Path("/n/work")
    paths = ["/n/work/a.org", "/n/work/sub/b.org", "/n/home/c.org", "/n/d.org", "/e.org"]
    links = [org_link(Hit(Path(p), 1, "T"), here) for p in paths * 2]
    assert links == 2 * [
        f"[[file:{r}::*T][T]]"
        for r in ("a.org", "sub/b.org", "../home/c.org", "../d.org", "../../e.org")
    ]
    assert org_link(Hit(Path("x.org"), 1, "T"), Path.cwd()) == "[[file:x.org::*T][T]]"



def test_a_link_s_relative_folder_is_relpath_s_for_every_pair() -> None:
    # _relative_dir splits each folder once instead of calling os.path.relpath per link.
    folders = ["/", "/n", "/n/work", "/n/work/sub", "/n/home", "/e", "/n/work/../home/"]
    folders += ["//n//work/", "rel", "rel/sub", ".", "..", "../n", "/n/worker", "/n/work sub"]
    for folder in folders:
        for here in folders:
            expected = os.path.relpath(folder, here)
            expected = "" if expected == os.curdir else expected + os.sep
            assert _relative_dir(folder, here) == expected, (folder, here)

def test_search_without_hits(tmp_path: Path) -> None:
    (tmp_path / "a.org").write_text("* Lunch\n")
    (result,) = _search('search for "quantum"', tmp_path, tmp_path / "a.org").results
    assert (result.title, result.body) == (
        "Search: quantum",
        "No headline under the notes root mentions 'quantum'.",
    )


def test_search_words_as_people_say_them(tmp_path: Path) -> None:
    (tmp_path / "curries.org").write_text(
        "#+TITLE: Curries\n* Chana masala\n* Thai green curry\n** @agent find curries\n"
    )
    (tmp_path / "baking.org").write_text("* Shortbread\n* @agent dig up my curry recipes\n")
    (result,) = _search("dig up my curry recipes", tmp_path, tmp_path / "baking.org").results
    # No headline says "recipes": the word is dropped and the result says so, as the
    # index's search does (the requests themselves are never hits).
    assert result.body == (
        "- [[file:curries.org::*Thai green curry][Thai green curry]]\n\n"
        "(No headline mentions 'recipes'; these mention the rest.)"
    )


def _notes(root: Path) -> Path:
    (root / "a.org").write_text(
        "* Groceries\nRemember the Budget for the week.\n* Budget 2027\nNumbers.\n"
        "* Café plans :@personal:\nbudget secret\n"
    )
    (root / "b.org").write_text("* Trip\nThe café by the station.\n")
    return root / "a.org"


def test_search_without_a_state_reads_the_text_and_ranks_titles_first(tmp_path: Path) -> None:
    # Without a state database the notes' text is scanned: body words are hits, a title
    # ranks first, a snippet shows the words, private headlines are never hits.
    (result,) = _search("find budget", tmp_path, _notes(tmp_path)).results
    assert result.body == (
        "- [[file:a.org::*Budget 2027][Budget 2027]] — Numbers.\n"
        "- [[file:a.org::*Groceries][Groceries]] — Remember the Budget for the week."
    )
    (result,) = _search("find cafe", tmp_path, _notes(tmp_path)).results
    assert result.body == "- [[file:b.org::*Trip][Trip]] — The café by the station."


def test_search_without_fts5_scans_the_text_and_says_so(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    state = StateDB.open(tmp_path / "state.db")
    state.run_memo["fts5"] = False  # as on a SQLite built without FTS5
    request = Request(_notes(notes), 2, "@agent find budget", "find budget", "agent")
    ctx = Context(Config(), datetime(2026, 11, 30), request=request, notes_root=notes, state=state)
    action = SEARCH.symbolic(delegation({"skill": "search", "text": "find budget"}), ctx)
    assert isinstance(action, Emit)
    (result,) = action.results
    assert result.body == (
        "- [[file:a.org::*Budget 2027][Budget 2027]] — Numbers.\n"
        "- [[file:a.org::*Groceries][Groceries]] — Remember the Budget for the week.\n\n"
        "(This SQLite has no FTS5, so the notes were scanned instead of the index.)"
    )
