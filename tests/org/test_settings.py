"""In-buffer settings are read only where Org honours them (checked against Emacs)."""

from __future__ import annotations

import os
from pathlib import Path

from orgrouter.org.settings import SettingKeyword, read_settings
from orgrouter.org.todo import DEFAULT_TODO

TRICKY = Path(__file__).resolve().parent.parent / "data" / "org" / "tricky"


def test_no_keywords_gives_org_defaults() -> None:
    settings = read_settings("* TODO x\n", None)
    assert settings.todo is DEFAULT_TODO
    assert settings.todo.keywords == ("TODO", "DONE")
    assert settings.todo.done == ("DONE",)
    assert (settings.odd_levels, settings.filetags, dict(settings.properties)) == (False, (), {})


def test_fast_access_keys_and_done_states() -> None:
    text = "#+SEQ_TODO: TODO(t) INPROGRESS(i) WAITING(w@) | DONE(d) CANCELED(c@)\n"
    todo = read_settings(text, None).todo
    assert todo.keywords == ("TODO", "INPROGRESS", "WAITING", "DONE", "CANCELED")
    assert todo.done == ("DONE", "CANCELED")
    assert todo.sequences[0].keys == (
        ("TODO", "t"), ("INPROGRESS", "i"), ("WAITING", "w"), ("DONE", "d"), ("CANCELED", "c"),
    )  # fmt: skip


def test_typ_todo_lines_come_first_then_todo_and_seq_todo() -> None:
    text = (TRICKY / "todo-order.org").read_text(encoding="utf-8")
    todo = read_settings(text, None).todo
    assert todo.keywords == ("A", "B", "D", "E", "F", "G", "H", "C")
    assert [s.kind for s in todo.sequences] == ["type"] + ["sequence"] * 4
    assert todo.done == ("B", "F", "G", "H", "C")


def test_an_empty_todo_line_removes_the_default() -> None:
    todo = read_settings("#+TODO:\n* TODO x\n", None).todo
    assert todo.keywords == ()
    assert todo.match("TODO x", 0) is None


def test_keywords_inside_lesser_blocks_and_latex_do_not_count() -> None:
    text = (TRICKY / "keywords-in-blocks.org").read_text(encoding="utf-8")
    settings = read_settings(text, None)
    assert [(k.value, k.line) for k in settings.keywords] == [
        ("BBB | CCC", 5),  # a quote block is transparent
        ("EEE", 11),  # the example block is not closed before the next headline
        ("GGG", 13),
    ]


def test_setupfile_is_read_relative_to_the_file_and_loops_stop(tmp_path: Path) -> None:
    path = TRICKY / "setupfile.org"
    settings = read_settings(path.read_text(encoding="utf-8"), path)
    setup = (TRICKY / "sub" / "s.org").resolve()
    assert settings.todo.keywords == ("NEXT", "KW")
    assert settings.setupfiles == (setup,)
    assert settings.keywords == (SettingKeyword("TODO", "NEXT | KW", setup, 1),)
    assert settings.warnings == (f"{setup}:3: setup file not read: No such file or directory",)


def test_remote_setup_files_are_not_fetched() -> None:
    settings = read_settings("#+SETUPFILE: https://example.org/x.setup\n", Path("n.org"))
    assert settings.setupfiles == ()
    assert settings.warnings == (
        "n.org:1: remote setup file not read: https://example.org/x.setup",
    )


def test_startup_filetags_and_properties() -> None:
    text = (
        "#+STARTUP: overview odd\n"
        "#+filetags: :work:proj: extra\n"
        "#+PROPERTY: header-args :tangle yes\n"
        "#+PROPERTY: header-args+ :comments link\n"
        "#+PROPERTY: header-args:python :results output\n"
        "#+PROPERTY: Effort_ALL 0 0:10\n"
        "#+PROPERTY: effort_all 1:00\n"
        "#+PROPERTY: lonely\n"
        "#+STARTUP: oddeven\n"
        "#+STARTUP: ODD\r\n"
    )
    settings = read_settings(text, None)
    assert settings.odd_levels is True
    assert settings.startup == ("overview", "odd", "oddeven", "ODD")
    assert settings.filetags == ("work", "proj", "extra")
    assert dict(settings.properties) == {
        "header-args": ":tangle yes :comments link",
        "header-args:python": ":results output",
        "Effort_ALL": "1:00",
    }
    assert settings.property("Header-Args") == ":tangle yes :comments link"
    assert settings.property("header-args:python") == ":results output"
    assert settings.property("EFFORT_ALL") == "1:00"
    assert settings.property("lonely") is None


def test_setup_files_that_are_not_regular_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "dir.setup").mkdir()
    os.mkfifo(tmp_path / "pipe.setup")
    note = tmp_path / "note.org"
    text = "#+SETUPFILE: dir.setup\n#+SETUPFILE: pipe.setup\n#+TODO: A | B\n"
    settings = read_settings(text, note)
    assert settings.todo.keywords == ("A", "B")
    assert settings.warnings == (
        f"{note}:1: setup file not read: not a regular file: dir.setup",
        f"{note}:2: setup file not read: not a regular file: pipe.setup",
    )


def test_keywords_in_a_crlf_file_lose_their_cr() -> None:
    settings = read_settings("#+TODO: A B | C\r\n#+FILETAGS: :x:\r\n", None)
    assert settings.todo.keywords == ("A", "B", "C")
    assert settings.filetags == ("x",)


def test_setup_file_chains_are_bounded(tmp_path: Path) -> None:
    for number in range(40):
        (tmp_path / f"s{number}.setup").write_text(
            f"#+SETUPFILE: s{number + 1}.setup\n#+FILETAGS: :t{number}:\n", encoding="utf-8"
        )
    note = tmp_path / "note.org"
    settings = read_settings("#+SETUPFILE: s0.setup\n", note)
    assert len(settings.setupfiles) == 32
    assert settings.filetags == tuple(f"t{number}" for number in range(31, -1, -1))
    assert settings.warnings == (
        f"{tmp_path / 's31.setup'}:1: setup file not read: more than 32 nested",
    )


def test_a_keyword_first_after_a_bom_counts() -> None:
    # Emacs drops the BOM as it visits the file; "archive the done items" in such a
    # note took SHIPPED for no done state.
    settings = read_settings("\ufeff#+TODO: NEXT | SHIPPED\n* NEXT x\n")
    assert settings.todo.keywords == ("NEXT", "SHIPPED")


def test_keywords_after_a_block_closed_only_outside_its_greater_block_count() -> None:
    # The src block cannot close past "#+end_center" (Org), so the keyword is one.
    text = "#+begin_center\n#+begin_src sh\n#+end_center\n#+TODO: A | B\n#+end_src\n"
    assert read_settings(text, None).todo.keywords == ("A", "B")


def test_keywords_inside_a_crlf_src_block_do_not_count() -> None:
    # Emacs visits a CRLF file with dos line ends: "#+end_src\r\n" closes the block.
    text = "#+begin_src sh\r\n#+TODO: A | B\r\n#+end_src\r\n"
    assert read_settings(text, None).todo == DEFAULT_TODO


def test_a_cr_only_setup_file_is_read_by_its_lines_as_emacs_visits_it(tmp_path: Path) -> None:
    """Emacs reads a setup file with mac EOL when it has a CR and no LF (checked live)."""
    (tmp_path / "cr.setup").write_bytes(b"#+TODO: NEXT | DONE\r#+STARTUP: odd\r#+FILETAGS: :s:\r")
    settings = read_settings("#+SETUPFILE: cr.setup\n* NEXT a\n", tmp_path / "n.org")
    assert settings.todo.keywords == ("NEXT", "DONE")
    assert (settings.odd_levels, settings.filetags) == (True, ("s",))
