"""Archive and refile against the reference: Emacs 28 / Org 9.5 on the same input.

Each case runs ``org-archive-subtree`` or ``org-refile`` in ``emacs --batch`` on a copy
of the files, then orgrouter's executors on the same files in the same place (so the
header and ARCHIVE_FILE name the same path); every file must come out byte for byte
the same, the ARCHIVE_TIME line aside (Emacs stamps its own clock).
"""

from __future__ import annotations

import os
import re
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from orgrouter.config import Config
from orgrouter.org.document import Document
from orgrouter.route.moves import apply_moves
from orgrouter.skills.archive import archive_plan, outline_title
from orgrouter.skills.base import Context, Request
from orgrouter.skills.executor import Move, full, index_at_line, subject_at

HERE = Path(__file__).parent
NOW = datetime(2026, 12, 1, 9, 30)
_TIME = re.compile(rb"^:ARCHIVE_TIME: .*$", re.MULTILINE)

A_ORG = """#+TITLE: A
#+FILETAGS: :proj:

* Website :web:
Some intro.
** TODO Redesign :design:
SCHEDULED: <2026-12-01 Tue>
Body of redesign.
*** sub item  :x:
** DONE Old thing
* Other
"""

ARCHIVE_CASES = {
    "new-archive-file": ({"a.org": A_ORG}, "a.org", 6),
    "existing-archive-file": (
        {"a.org": A_ORG, "a.org_archive": "* DONE earlier\n:PROPERTIES:\n:X: 1\n:END:\n"},
        "a.org",
        10,
    ),
    "in-file-heading": (
        {
            "b.org": "#+ARCHIVE: ::* Archived Tasks\n* Website :web:\n** TODO Redesign :design:\n"
            "body\n* Other\n\n* Archived Tasks\n** old\n\n\n* Tail\n"
        },
        "b.org",
        3,
    ),
    "in-file-heading-missing": (
        {"b.org": "#+ARCHIVE: ::* Archived Tasks\n* Website\n** DONE Redesign\nbody"},
        "b.org",
        3,
    ),
    "property-location-new-org-file": (
        {
            "c.org": "* Proj\n:PROPERTIES:\n:ARCHIVE: done.org::* From %s\n:END:\n"
            "** DONE Thing   :x:\n"
        },
        "c.org",
        5,
    ),
    "category-and-todo-keywords": (
        {
            "d.org": "#+TODO: NEXT | SHIPPED\n#+CATEGORY: work\n* Area [1/2] [[https://x.y][Site]]"
            "\n:PROPERTIES:\n:CATEGORY: area\n:END:\n*** SHIPPED Launch :a:b:\nnotes\n\n\n* Next\n"
        },
        "d.org",
        7,
    ),
    "top-level-last-no-final-newline": (
        {"e.org": "* One\ntext\n* Two :t:\nlast line"},
        "e.org",
        3,
    ),
    "crlf-note": ({"g.org": "* A :a:\r\n** TODO B\r\nbody\r\n* C\r\n"}, "g.org", 2),
    "crlf-note-lf-archive": (
        {"g.org": "* A\r\n** B\r\nx\r\n", "g.org_archive": "* old\n"},
        "g.org",
        2,
    ),
    "local-variables-stay": (
        {"l.org": "* A\n** B\nbody\n\n# Local Variables:\n# fill-column: 70\n# End:\n"},
        "l.org",
        2,
    ),
    # ARCHIVE_OLPATH keeps a COMMENT keyword (org-get-outline-path's title group).
    "commented-parent-in-olpath": ({"h.org": "* COMMENT P\n** C\nx\n"}, "h.org", 2),
    # #+ARCHIVE is unique to org-collect-keywords: the first line counts.
    "first-archive-keyword-wins": (
        {"k.org": "#+ARCHIVE: one.org::\n* A\n** a1\n#+ARCHIVE: two.org::\n* B\n** b1\n"},
        "k.org",
        3,
    ),
    "archive-keyword-in-src-block-is-no-keyword": (
        {"k.org": "#+begin_src org\n#+ARCHIVE: x.org::\n#+end_src\n* P\n** C\n"},
        "k.org",
        5,
    ),
    # An archive file that exists but is empty gets the mode line (not the header).
    "existing-empty-archive-file": ({"m.org": "* P\n** C\n", "m.org_archive": ""}, "m.org", 2),
    # A control character is two columns (^M) when the tags are aligned.
    "control-character-in-headline": ({"n.org": "* P\n** C\rD\x7f :t:\nx\n"}, "n.org", 2),
    # Mixed line ends decode as LF, the \r a ^M kept: into a CRLF archive it stays.
    "mixed-line-ends-into-crlf-archive": (
        {"o.org": "* P\r\n** C\nx\r\n* Q\r\n", "o.org_archive": "* old\r\n"},
        "o.org",
        2,
    ),
    # Emacs drops the BOM: #+ARCHIVE on the first line after it is a keyword.
    "bom-then-archive-keyword": (
        {"q.org": "\ufeff#+ARCHIVE: ::* Arch\n#+CATEGORY: cat\n* B\n** C\n* Arch\n"},
        "q.org",
        4,
    ),
    "deep-subtree-promoted": (
        {"f.org": "* A\n** B\n*** C  :long_tag_name:other:\n**** D :d:\nbody\n***** E\n* Z\n"},
        "f.org",
        3,
    ),
}

P_ORG = "* Website :web:\n** Existing\n\ntrailing text\n\n* Other\n"
REFILE_CASES = {
    "under-heading-other-file": ({"a.org": A_ORG, "p.org": P_ORG}, "a.org", 6, "p.org", 1),
    "file-only-level-1": (
        {"a.org": A_ORG, "p.org": "* X\nno final newline"},
        "a.org",
        6,
        "p.org",
        0,
    ),
    "deeper-target": (
        {"a.org": A_ORG, "p.org": "* W\n** Deep\n*** Deeper :q:\n* Other\n"},
        "a.org",
        4,
        "p.org",
        3,
    ),
    "crlf-target": ({"a.org": A_ORG, "p.org": "* W\r\n** x\r\n"}, "a.org", 6, "p.org", 1),
    "local-variables-target": (
        {"a.org": A_ORG, "p.org": "* W\n** x\n# Local Variables:\n# End:\n"},
        "a.org",
        6,
        "p.org",
        0,
    ),
    "same-file-before": ({"a.org": A_ORG}, "a.org", 10, "a.org", 4),
    "same-file-after": ({"a.org": A_ORG}, "a.org", 6, "a.org", 11),
}


def _emacs(emacs: str, home: Path, *args: str) -> None:
    env = {**os.environ, "HOME": str(home)}
    subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(HERE / "emacs_ops.el"), "--", *args],
        check=True,
        capture_output=True,
        env=env,
        timeout=120,
    )


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        p.name: _TIME.sub(b":ARCHIVE_TIME: <time>", p.read_bytes()) for p in directory.iterdir()
    }


def _lay_out(directory: Path, files: dict[str, str]) -> None:
    for child in directory.iterdir():
        child.unlink()
    for name, text in files.items():
        (directory / name).write_bytes(text.encode("utf-8"))


def _ctx(root: Path, source: Path, line: int) -> Context:
    request = Request(path=source, line=line, headline="", instruction="", agent="agent")
    return Context(Config(), NOW, request=request, notes_root=root)


def _write(directory: Path, source: Path, data: bytes, writes: list) -> None:  # type: ignore[type-arg]
    source.write_bytes(data)
    for write in writes:
        Path(write.path).write_bytes(write.data)


def _olpath(document: Document, index: int) -> tuple[str, ...]:
    path: list[str] = []
    at: int | None = index
    while at is not None:
        path.insert(0, outline_title(document.headline(at).raw))
        at = document.entries[at].parent
    return tuple(path)


@pytest.mark.parametrize("name", sorted(ARCHIVE_CASES))
def test_archive_matches_emacs(
    name: str, emacs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, source_name, line = ARCHIVE_CASES[name]
    notes = tmp_path / "notes"
    notes.mkdir()
    _lay_out(notes, files)
    _emacs(emacs, tmp_path, "archive", str(notes / source_name), str(line))
    expected = _snapshot(notes)
    _lay_out(notes, files)
    monkeypatch.setenv("HOME", str(tmp_path))
    source = notes / source_name
    document = full(Document(source.read_bytes(), source))
    subject = subject_at(document, index_at_line(document, line))
    plan = archive_plan(document, [subject], _ctx(notes, source, line), "archive")
    data, writes = apply_moves(document.data, plan.moves, str(source), document.newline)
    _write(notes, source, data, writes)
    assert _snapshot(notes) == expected


@pytest.mark.parametrize("name", sorted(REFILE_CASES))
def test_refile_matches_emacs(name: str, emacs: str, tmp_path: Path) -> None:
    files, source_name, line, target_name, target_line = REFILE_CASES[name]
    notes = tmp_path / "notes"
    notes.mkdir()
    _lay_out(notes, files)
    source, target = notes / source_name, notes / target_name
    _emacs(emacs, tmp_path, "refile", str(source), str(line), str(target), str(target_line))
    expected = _snapshot(notes)
    _lay_out(notes, files)
    document = full(Document(source.read_bytes(), source))
    subject = subject_at(document, index_at_line(document, line))
    olpath: tuple[str, ...] = ()
    if target_line:
        holder = full(Document(target.read_bytes(), target))
        olpath = _olpath(holder, index_at_line(holder, target_line))
    same = target == source
    move = Move(subject, "refile", "" if same else str(target), "", olpath)
    data, writes = apply_moves(document.data, [move], str(source), document.newline)
    _write(notes, source, data, writes)
    assert _snapshot(notes) == expected
