"""Searching the notes' text: the index's hits, without building the index."""

from __future__ import annotations

import bisect
import gc
import math
import random
import sqlite3
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from orgrouter import searchindex, searchscan
from orgrouter.io.text import read_org_text
from orgrouter.state import StateDB

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter

PRIVATE = ("@personal",)
WORDS = ["budget", "review", "kernel", "garden", "the", "of", "and", "notes", "plan"]
# Notes that put a query word everywhere the index treats specially.
TRICKY = {
    "tags.org": "* Meeting :budget:review:\nnothing\n* TODO Budget\n* DONE review\n",
    "drawers.org": (
        "* Plan\n:PROPERTIES:\n:budget: 12\n:END:\nSCHEDULED: <2026-12-01 Tue>\n"
        "#+caption: budget\n  #+begin_src python\nbudget = 1\n#+end_src\n* Other\n"
        "  DEADLINE: budget\n  budget in the text\n"
    ),
    "requests.org": (
        "* @agent find budget\n** Search: budget\n:PROPERTIES:\n:ORGROUTER_RESULT: a/1\n"
        ":END:\n- budget\n* Budget mail bob@agent.org :@home:\nbudget\n"
        "* TODO :@home:\nbudget\n* [#A] COMMENT budget @later\n* Kept @ budget\n"
    ),
    "private.org": (
        "* Health :@personal:\n** Budget dentist\nbudget\n* Work\n** Budget review\n"
        "* Diary :@Personal:\nbudget\n"
    ),
    "filetags.org": "#+FILETAGS: :@personal:\n* Budget worries\nbudget\n",
    "unicode.org": "* Budgét plan\nthe budget—review, Budget_x, budgetary\n* Ärger\nbudget\n",
    "crlf.org": "* Budget\r\nreview of the budget\r\n* Next\r\nkernel\r\n",
    "crlftags.org": (
        "* Budget :work:\r\nreview\r\n* Home :@personal:\r\n** Budget keys\r\nbudget\r\n"
    ),
    "crlfplain.org": "* Kernel budget :work:\r\nkernel\r\n",
    "long.org": "* Long\n" + "garden " * 400 + "budget\n* Short\nbudget " + "x " * 990 + "\n",
    # The index's BODY_CHARS end inside "kernels": no word "kernel" may come of the cut.
    "cut.org": "* Cut\n" + "x " * 996 + " kernels\n",
    "before.org": "budget before any headline\n* Kernel\n",
    "custom.org": "#+TODO: plan | done\n* plan budget\n* done\nbudget\n* plan :budget:\n",
    # Words in the headline line, out of the title: tags, a priority cookie, COMMENT.
    "titles.org": "* :budget:\n* [#A] a budget\n** COMMENTARY budget\n* TODO :budget:\n",
}

# Privacy tags and headlines as Org reads them at their edges (the two must agree there too).
EXTRA = {
    "x_filetags_bare.org": "#+FILETAGS: @personal\n* Budget bare\nbudget\n",
    "x_filetags_lower.org": "#+filetags: :@PERSONAL:\n* Budget lower\nbudget\n",
    "x_filetags_late.org": "* Budget late\nbudget\n#+FILETAGS: :@personal:\n",
    "x_filetags_two.org": "#+FILETAGS: :work:\n#+FILETAGS: :@personal:\n* Budget two\nbudget\n",
    "x_filetags_indent.org": "   #+FILETAGS: :@personal:\n* Budget indent\nbudget\n",
    "x_filetags_crlf.org": "#+FILETAGS: :@personal:\r\n* Budget crlf\r\nbudget\r\n",
    "x_tagtab.org": "* Health\t:@personal:\t\nbudget\n* Budget after\n",
    "x_tagmid.org": "* Health :@personal: budget\nbudget\n",
    "x_tagsecond.org": (
        "* Health :work:@personal:\n** Budget deep\n*** budget deeper\nbudget\n* Budget out\n"
    ),
    "x_startab.org": "*\tBudget tab :@personal:\nbudget\n* Next\n",
    "x_bom.org": "\ufeff* Budget bom :@personal:\nbudget\n* Budget free\nbudget\n",
    "x_upper.org": "* BUDGET\nBUDGET Budget budget\n",
    "x_empty.org": "* \nbudget\n*\nbudget\n**  \nbudget\n",
    "x_bold.org": "*bold* budget\n* Real\n*budget*\n",
    "x_src.org": "* Src\n#+begin_src org\n* Budget in src :@personal:\nbudget\n#+end_src\nbudget\n",
    "x_commentpriv.org": "* COMMENT Budget :@personal:\nbudget\n",
    "x_todo_priv.org": (
        "#+TODO: TODO(t) WAIT(w@/!) | DONE(d)\n* WAIT [#B] Budget wait :@personal:\nbudget\n"
        "* WAIT budget free\n"
    ),
    "x_star_only.org": "** \t\n***\nbudget *\n* budget",
    "x_privspaces.org": "* Health   :@personal:   \nbudget\n* Budget next :tag with space:\n",
    "x_tagcase.org": "* Health :@PERSONAL:\n** budget inherit\nbudget\n",
    "x_archive.org": "* Old :ARCHIVE:\nbudget\n* budget :noexport:\n",
    "x_cr_mixed.org": "* Budget\r\nbudget\n* Home :@personal:\r\nbudget\r\n",
    "x_deep.org": "".join("*" * (i + 1) + f" lvl{i} budget\n" for i in range(60))
    + "* top :@personal:\n"
    + "".join("*" * (i + 2) + f" p{i} budget\n" for i in range(60)),
}

TRICKY.update(EXTRA)


def _notes(root: Path, seed: int) -> list[Path]:
    rng = random.Random(seed)
    for name, text in TRICKY.items():
        (root / name).write_bytes(text.encode())
    for n in range(40):
        lines = []
        for _ in range(rng.randint(1, 12)):
            stars = "*" * rng.randint(1, 3)
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
            keyword = rng.choice(["", "TODO ", "DONE "])
            tags = rng.choice(["", " :work:", " :@home:", " :@personal:", " :budget:"])
            lines.append(f"{stars} {keyword}{title.capitalize()}{tags}")
            for _ in range(rng.randint(0, 3)):
                lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))))
        (root / f"gen{n:02d}.org").write_text("\n".join(lines) + "\n")
    return sorted(root.glob("*.org"))


def _index(tmp_path: Path) -> searchindex.SearchIndex:
    db = StateDB.open(tmp_path / "state.db")
    if not searchindex.available(db.conn):
        pytest.skip("this SQLite has no FTS5")
    return searchindex.SearchIndex(db, PRIVATE)


# A batch (notes searched as one string) of every size: one note, a few, all of them.
@pytest.mark.parametrize(("seed", "batch"), [(1, 1 << 20), (2, 1), (3, 700)])
def test_the_text_pass_finds_exactly_what_the_index_finds(
    tmp_path: Path, seed: int, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searchscan, "_BATCH_CHARS", batch)
    root = tmp_path / "notes"
    root.mkdir()
    files = _notes(root, seed)
    index = _index(tmp_path)
    index.refresh(files, read_org_text, under=root)
    for words in (["budget"], ["Budget", "review"], ["kernel"], ["plan"], ["garden", "notes"]):
        tokens = searchscan.plain_tokens(words)
        assert tokens is not None
        answer = searchscan.scan_search(files, read_org_text, tokens, PRIVATE, limit=10_000)
        hits, total = index.query(words, under=root, limit=10_000)
        assert answer.total == total, words
        assert {(h.path, h.line, h.title) for h in answer.hits} == {
            (h.path, h.line, h.title) for h in hits
        }, words


@pytest.mark.xfail(
    strict=True,
    reason="the text pass ranks by a section's length in characters, tags included; FTS5's "
    "bm25 by its tokens (title without tags): a cold run and an indexed one order them apart",
)
def test_the_text_pass_ranks_as_the_index_ranks_a_tagged_title(tmp_path: Path) -> None:
    # Found by the old/new comparison of a cold route with a route after a dry run: the
    # second answers from the index and put k.org first, the first put it last.
    root = tmp_path / "notes"
    root.mkdir()
    (root / "k.org").write_text("* zebra :priv:\n")
    (root / "l.org").write_text("* zebra emacs\n" * 3)
    files = sorted(root.glob("*.org"))
    index = _index(tmp_path)
    index.refresh(files, read_org_text, under=root)
    answer = searchscan.scan_search(files, read_org_text, ["zebra"], PRIVATE, limit=10)
    hits, total = index.query(["zebra"], under=root, limit=10)
    assert answer.total == total == 4
    assert [(h.path.name, h.line) for h in answer.hits] == [(h.path.name, h.line) for h in hits]


def test_the_tricky_notes_hold_the_hits_expected(tmp_path: Path) -> None:
    files = _notes(tmp_path, 0)
    answer = searchscan.scan_search(
        [f for f in files if f.name in TRICKY], read_org_text, ["budget"], PRIVATE, limit=100
    )
    found = {(h.path.name, h.title) for h in answer.hits}
    assert ("unicode.org", "Budgét plan") in found  # accents folded, a dash separates
    assert ("unicode.org", "Ärger") in found
    assert ("drawers.org", "Other") in found  # "budget in the text", not DEADLINE's
    assert ("drawers.org", "Plan") in found  # the src block's line is text
    # The index keeps a section's first BODY_CHARS: the word after them is not held.
    assert ("long.org", "Long") not in found and ("long.org", "Short") in found
    assert ("tags.org", "Meeting") not in found  # a tag is no title word
    # A CRLF note's tags are tags (Emacs visits it as dos): not in the title, and private.
    assert ("crlftags.org", "Budget") in found and ("crlfplain.org", "Kernel budget") in found
    assert not any(name.startswith("crlf") and ":" in title for name, title in found)
    assert ("crlftags.org", "Budget keys") not in found
    assert ("custom.org", "budget") in found and ("custom.org", "done") in found
    assert {title for name, title in found if name in ("filetags.org", "private.org")} == {
        "Budget review"  # under Work; the rest is tagged private, in any case
    }
    titles = {title for _, title in found}
    assert "Kept @ budget" in titles and "Budget mail bob@agent.org" in titles
    assert not any("@later" in t or t == "Search: budget" for t in titles)


def test_titles_rank_first_and_the_snippet_shows_the_word(tmp_path: Path) -> None:
    note = tmp_path / "a.org"
    note.write_text("* Groceries\nRemember the budget for the week.\n* Budget 2027\nNumbers.\n")
    answer = searchscan.scan_search([note], read_org_text, ["budget"], PRIVATE)
    assert [h.title for h in answer.hits] == ["Budget 2027", "Groceries"]
    assert answer.total == 2 and "budget for the week" in answer.hits[1].snippet


def test_words_the_text_pass_cannot_read_are_left_to_the_index() -> None:
    assert searchscan.plain_tokens(["Ärger"]) is None
    assert searchscan.plain_tokens(["budget_2026"]) is None
    assert searchscan.plain_tokens(["Budget", "budget's"]) == ["budget", "s"]
    # Each token is looked for in every note: a long query is the index's to answer.
    many = [f"w{n}" for n in range(searchscan.MAX_TOKENS + 1)]
    assert searchscan.plain_tokens(many) is None
    assert searchscan.plain_tokens(many[:-1]) == many[:-1]


def test_a_first_run_answers_from_the_text_and_the_next_builds_the_index(tmp_path: Path) -> None:
    (tmp_path / "orgrouter.toml").write_text("")
    (tmp_path / "k8s.org").write_text("* Cluster work\nUpgrade kubernetes to 1.31.\n")
    (tmp_path / "more.org").write_text("* Kubernetes notes :ops:\n")
    first = tmp_path / "ops.org"
    first.write_text("* Ops\n** @agent find notes about kubernetes\n")
    state = tmp_path / "state.sqlite3"
    args = ("route", ".", "--state", str(state), "--now", "2026-12-01T09:00:00")
    done = run_orgrouter(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    links = [line for line in first.read_text().splitlines() if line.startswith("- [[")]
    assert links == [
        "- [[file:more.org::*Kubernetes notes][Kubernetes notes]]",
        "- [[file:k8s.org::*Cluster work][Cluster work]] — Upgrade kubernetes to 1.31.",
    ]
    with sqlite3.connect(state) as conn:
        assert conn.execute("SELECT count(*) FROM search_files").fetchone() == (0,)
    second = tmp_path / "later.org"
    second.write_text("* @agent find kubernetes\n")
    done = run_orgrouter(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert [line for line in second.read_text().splitlines() if line.startswith("- [[")] == links
    with sqlite3.connect(state) as conn:
        assert conn.execute("SELECT count(*) FROM search_files").fetchone()[0] >= 3


@pytest.mark.parametrize(("seed", "batch"), [(4, 1 << 20), (5, 1), (6, 500)])
def test_a_pass_given_the_notes_one_by_one_answers_as_scan_search(
    tmp_path: Path, seed: int, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searchscan, "_BATCH_CHARS", batch)
    files = _notes(tmp_path, seed)
    (tmp_path / "bad.org").write_bytes(b"* Budget\n\xff\n")
    files.insert(7, tmp_path / "bad.org")
    queries = [["budget"], ["review", "plan"], ["kernel"], ["notes"]]
    # Each query learned at another note: before the first, midway, at the last.
    learned_at = [0, 9, len(files) // 2, len(files) - 1]
    reads: list[Path] = []

    def read(path: Path) -> str:
        reads.append(path)
        return read_org_text(path)

    text_pass = searchscan.TextPass(files, read, PRIVATE)
    for index, path in enumerate(files):
        for words, at in zip(queries, learned_at, strict=True):
            if at == index:
                text_pass.learn(words)
        try:
            text = read_org_text(path)
        except Exception:
            text = None
        text_pass.offer(text)
    # Only the notes given before each query are read again (then the hits shown).
    assert len(reads) - sum(learned_at) <= 4 * 25
    for words in queries:
        expected = searchscan.scan_search(files, read_org_text, words, PRIVATE, limit=25)
        answer = text_pass.answer(words, 25)
        assert answer == expected, words
        assert answer.unreadable == 1 and answer.total >= len(answer.hits) > 0


def test_a_text_pass_holds_a_hit_in_a_few_bytes_an_int() -> None:
    # A cold run holds every hit until it ranks them: a word in each of 1.4 million
    # headlines (200 notes of 1 MB) took 85 MB of RSS with 8-byte ints.
    note = "".join(f"* Budget {n}\nthe budget of week {n}\n" for n in range(4_000))
    text_pass = searchscan.TextPass(["a.org", "b.org"], read_org_text, ())
    text_pass.learn(["budget"])
    tracemalloc.start()
    try:
        text_pass.offer(note)
        text_pass.offer(note)
        text_pass._search(text_pass.batch, text_pass.queries.values())
        gc.collect()  # and empties the free lists: what the pass holds, not the interpreter
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    ints = sum(len(found.hits) for found in text_pass.queries[("budget",)].found)
    assert ints == 2 * 4_000 * 4  # offset, length, the word in the title and in the text
    assert held < ints * 6  # 8-byte ints held 8.3 an int; the notes' text is the caller's


# Lines putting the words where the index treats them specially (see TRICKY), as pieces.
PIECES = [
    "* Budget", "** TODO budget review", "*** DONE Plan :budget:", "* Meeting :work:@personal:",
    "* Home :@PERSONAL:", "** Kid", "** @agent find budget", "* mail bob@agent.org budget",
    "* [#A] COMMENT budget @later", "* plan budget", "* done", "*bold* budget", "budget",
    "  budget and review", "review", ":PROPERTIES:", ":budget: 12", ":END:",
    ":ORGROUTER_RESULT: a/1", "SCHEDULED: <2026-01-01> budget", "  DEADLINE: budget",
    "scheduled: budget", "#+caption: budget", "#+TODO: plan | done", "#+FILETAGS: :@personal:",
    "x " * 1100 + "budget", "budget " + "y " * 990, "*  budget", "*\tbudget", "** ", "*",
    "budgetary budget_x Budget-review", "* Review budget\t:a:", "@personal budget", "",
    "* TODO :@home:", "** DONE budget :@phone:", "* [#B] :@x:budget:", "* NEXT Budget :a@b:",
    "* COMMENTARY budget", "* COMMENT Budget todo", "** [#A] a budget", "* TODO todo budget",
    "* TODO\tbudget", "* Budget :x:y", "* done budget done", "* :budget:", "* TODO :budget:",
]


TAGS = ("@Personal",)  # as configured; the notes write it in any case


@settings(max_examples=300, deadline=None)
@example(notes=[(["** [#A] a budget", "* TODO :budget:", "* :budget:"], False, True)], words=["a"])
@example(notes=[(["* COMMENTARY budget", "* plan budget"], True, False)], words=["commentary"])
@given(
    notes=st.lists(
        st.tuples(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans(), st.booleans()),
        min_size=1,
        max_size=4,
    ),
    words=st.sampled_from(
        [["budget"], ["budget", "review"], ["review"], ["plan", "budget"], ["todo"], ["done"],
         ["a", "budget"], ["commentary"], ["comment"]]
    ),
)
def test_a_batch_holds_the_hits_of_the_index_rows(
    notes: list[tuple[list[str], bool, bool]], words: list[str]
) -> None:
    texts = []
    for lines, crlf, final in notes:
        newline = "\r\n" if crlf else "\n"
        texts.append(newline.join(lines) + (newline if final and lines else ""))
    text_pass = searchscan.TextPass([], read_org_text, TAGS)
    text_pass.learn(words)
    patterns = text_pass.queries[tuple(words)].patterns
    batch = searchscan._Batch()
    batch.paths, batch.texts = [f"n{j}.org" for j in range(len(texts))], texts
    holding = [0] * len(words)
    found = searchscan._batch_hits(batch, patterns, TAGS, text_pass.marks, holding)
    stride = 2 + 2 * len(words)
    got = {}
    for at in range(0, len(found.hits), stride):
        note = bisect.bisect_right(found.bounds, found.hits[at]) - 1
        counts = found.hits[at + 2 : at + stride]
        got[note, found.hits[at] - found.bounds[note]] = list(counts)
    expected = {}
    for j, text in enumerate(texts):
        for row in searchindex.sections(text, TAGS, batch.paths[j]):
            counts = searchscan._counts(row, patterns)
            if counts is not None:
                expected[j, row.start] = counts
    assert got.keys() == expected.keys()
    for key, counts in expected.items():
        for n, (in_title, in_body) in enumerate(counts):
            assert got[key][2 * n + 1] == in_body, key
            # A word in the line ranks as a title word; the title is parsed where it decides.
            assert in_body or got[key][2 * n] == in_title, key
    assert holding == [sum(len(p.findall(t.lower())) for t in texts) for p in patterns]


@pytest.mark.parametrize("batch", [1, 300, 1 << 20])
def test_the_best_hits_are_the_best_of_every_hit_scored_one_by_one(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searchscan, "_BATCH_CHARS", batch)
    files = _notes(tmp_path, 7)
    for n in range(6):  # the same note under other names: equal scores, ties broken by path
        (tmp_path / f"copy{n}.org").write_text("* Budget plan\nthe budget and the plan\n")
    files = sorted(tmp_path.glob("*.org"))
    text_pass = searchscan.TextPass(files, read_org_text, PRIVATE)
    for words in (["budget"], ["plan", "budget"]):
        text_pass.learn(words)
    for path in files:
        text_pass.offer(read_org_text(path))
    text_pass._search(text_pass.batch, text_pass.queries.values())
    k1, b = searchscan.K1, searchscan.B
    for words in (["budget"], ["plan", "budget"]):
        query = text_pass.queries[tuple(words)]
        stats, stride = text_pass.stats, 2 + 2 * len(words)
        rows, slope = stats.rows(), k1 * b / stats.mean()
        # FTS5's: an idf at or below 0 counts as 1e-6 (occurrences may outnumber the rows).
        ratios = [(rows - h + 0.5) / (h + 0.5) for h in query.holding]
        idfs = [math.log(r) if r > 1 else 1e-6 for r in ratios]
        every = []  # the long way: each hit scored by itself, as FTS5's bm25 sums it
        for found in query.found:
            for at in range(0, len(found.hits), stride):
                row = found.hits[at : at + stride]
                damp = k1 * (1 - b) + slope * row[1]
                score = 0.0
                for n, idf in enumerate(idfs):
                    weight = searchindex.TITLE_WEIGHT * row[2 + 2 * n] + row[3 + 2 * n]
                    score += idf * weight * (k1 + 1) / (weight + damp)
                note = bisect.bisect_right(found.bounds, row[0]) - 1
                path = found.paths[note]
                every.append((-score, str(path), row[0] - found.bounds[note], path))
        assert len(every) > 12
        for limit in (1, 3, 10, len(every), len(every) + 5):
            best = searchscan._best(query.found, stats, query.holding, limit)
            assert best == sorted(every)[:limit], limit
