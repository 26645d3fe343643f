"""archive, refile and delete through the whole route: asked, approved, done once.

Each test writes a note, routes it (the approval is asked, showing what moves where),
approves it as the user does, and routes again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from orgrouter.errors import InputError
from orgrouter.org.document import Document
from orgrouter.route.moves import apply_moves
from orgrouter.skills.executor import Move, subject_at

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "route"))

from route_cli import run_cli

NOW = "2026-12-01T10:00:00"


def _notes(tmp: Path, files: dict[str, str]) -> Path:
    notes = tmp / "notes"
    notes.mkdir()
    (notes / "orgrouter.toml").write_text("")
    for name, text in files.items():
        (notes / name).write_text(text)
    return notes


def _route(tmp: Path, notes: Path) -> tuple[int, str]:
    args = ["route", "-q", "--now", NOW, "--state", str(tmp / "state.db"), str(notes)]
    code, _out, err = run_cli(args, tmp, env={"HOME": str(tmp)})
    return code, err


def _approve(path: Path) -> None:
    path.write_text(path.read_text().replace("WAITING Approve", "APPROVED Approve"))


def test_archive_this_asks_showing_what_and_where_then_archives_once(tmp_path: Path) -> None:
    notes = _notes(
        tmp_path, {"a.org": "* Old project :p:\nNotes.\n** @agent archive this\n* Keep\n"}
    )
    note = notes / "a.org"
    assert _route(tmp_path, notes)[0] == 0
    asked = note.read_text()
    assert "*** WAITING Approve: archive this\n" in asked
    assert "- Old project (line 1) -> a.org_archive\n" in asked
    assert not (notes / "a.org_archive").exists()
    _approve(note)
    assert _route(tmp_path, notes)[0] == 0
    assert note.read_text() == "* Keep\n"
    archived = (notes / "a.org_archive").read_text()
    assert archived.startswith(f"#    -*- mode: org -*-\n\n\nArchived entries from file {note}\n")
    assert archived.count("* Old project") == 1
    assert ":ARCHIVE_FILE: ~/notes/a.org\n" in archived
    assert "*** Archived 'Old project'" in archived  # the result moved with the subtree
    before = {p: p.stat().st_mtime_ns for p in notes.iterdir()}
    assert _route(tmp_path, notes)[0] == 0
    assert {p: p.stat().st_mtime_ns for p in notes.iterdir()} == before


def test_editing_the_subject_after_approval_asks_again_and_moves_nothing(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"a.org": "* Draft\nText.\n** @agent delete this\n"})
    note = notes / "a.org"
    _route(tmp_path, notes)
    _approve(note)
    note.write_text(note.read_text().replace("Text.", "Text I changed."))
    assert _route(tmp_path, notes)[0] == 0
    text = note.read_text()
    assert "Text I changed." in text
    assert "asked again because" in text
    assert not (notes / "a.org_archive").exists()


def test_delete_archives_and_says_where(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"a.org": "* Draft idea\nWords.\n** @agent get rid of this draft\n"})
    note = notes / "a.org"
    _route(tmp_path, notes)
    assert "(deleted from this note, kept there)" in note.read_text()
    _approve(note)
    _route(tmp_path, notes)
    assert note.read_text() == ""
    kept = (notes / "a.org_archive").read_text()
    assert "Words." in kept and "Deleted 'Draft idea': moved to the archive" in kept


def test_refile_under_an_outline_path_of_another_file(tmp_path: Path) -> None:
    files = {
        "a.org": "* Inbox\n** Redesign :web:\nBody.\n** @agent refile Redesign to projects.org"
        " under Website\n",
        "projects.org": "* Website\n** Existing\n* Other\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    assert _route(tmp_path, notes)[0] == 0
    assert "Redesign" not in (notes / "a.org").read_text().split("** @agent")[0]
    assert (
        (notes / "projects.org")
        .read_text()
        .startswith(
            "* Website\n** Existing\n** Redesign" + " " * (72 - 11) + ":web:\nBody.\n* Other\n"
        )
    )


def test_unknown_and_ambiguous_targets_get_clarifications_listing_candidates(
    tmp_path: Path,
) -> None:
    files = {
        "a.org": "* X\n** @agent refile this to nowhere.org\n* Y\n** @agent move this under Dup\n",
        "b.org": "* Dup\n* P\n** Dup\n",
        "c.org": "* Dup\n* Q\n** Dup\n* R\n** @agent refile this under Dup\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    text = (notes / "a.org").read_text()
    assert "Clarification needed: no file 'nowhere.org'" in text
    assert "- b.org\n" in text and "- c.org\n" in text
    assert "Clarification needed: no headline 'Dup' in this file" in text
    ambiguous = (notes / "c.org").read_text()
    assert "several headlines match 'Dup'" in ambiguous
    assert "- Dup (line 1)\n- Q/Dup (line 3)\n" in ambiguous
    assert "WAITING" not in text + ambiguous


def test_a_long_listing_names_twelve_files_and_counts_the_rest_for_every_request(
    tmp_path: Path,
) -> None:
    # Both requests share the run's one walk of the tree; each lists the same files.
    files = {f"n{i:02d}.org": "* N\n" for i in range(14)}
    files["a.org"] = "* X\n** @agent refile this to nowhere.org\n** @agent refile this to no.org\n"
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    text = (notes / "a.org").read_text()
    listing = "- a.org\n" + "".join(f"- n{i:02d}.org\n" for i in range(11)) + "- ... and 3 more\n"
    assert text.count(listing) == 2


def test_a_file_named_anywhere_in_the_tree_is_found_by_its_casefolded_name_once(
    tmp_path: Path,
) -> None:
    # The run's one walk indexes names: a unique one resolves, two alike or a hidden one do not.
    asks = ("PROJECTS.org", "dup.org", "hid.org")
    files = {"a.org": "".join(f"* {i}\n** @agent refile this to {n}\n" for i, n in enumerate(asks))}
    notes = _notes(tmp_path, files)
    for name in ("work/Projects.org", "x/dup.org", "y/dup.org", ".h/hid.org"):
        (notes / name).parent.mkdir(exist_ok=True)
        (notes / name).write_text("* P\n")
    _route(tmp_path, notes)
    text = (notes / "a.org").read_text()
    assert "- 0 (line 1) -> work/Projects.org (at the end, level 1)" in text
    assert "Clarification needed: no file 'dup.org'" in text
    assert "Clarification needed: no file 'hid.org'" in text
    assert "- x/dup.org\n- y/dup.org\n" in text and ".h/" not in text


def test_a_file_named_as_it_is_is_found_without_walking_the_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orgrouter.skills import refile

    walks: list[object] = []
    real = refile.org_files
    monkeypatch.setattr(refile, "org_files", lambda *args: walks.append(args) or real(*args))
    files = {"a.org": "* X\n** @agent refile this to projects.org\n", "projects.org": "* P\n"}
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    assert "- X (line 1) -> projects.org (at the end, level 1)" in (notes / "a.org").read_text()
    assert walks == []  # a name that is not there still walks them once (the tests above)


def test_a_locked_target_defers_the_whole_move(tmp_path: Path) -> None:
    files = {
        "a.org": "* Task\nT.\n** @agent refile this to b.org\n",
        "b.org": "* B\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    approved = (notes / "a.org").read_bytes()
    os.symlink("user@host.1", notes / ".#b.org")
    assert _route(tmp_path, notes)[0] == 0  # skipped and reported, picked up later
    assert (notes / "a.org").read_bytes() == approved
    assert (notes / "b.org").read_text() == "* B\n"
    (notes / ".#b.org").unlink()
    _route(tmp_path, notes)
    assert (notes / "a.org").read_text() == ""
    assert (notes / "b.org").read_text().startswith("* B\n* Task\nT.\n")


def test_archive_tag_variant_and_forbidden_archive_location(tmp_path: Path) -> None:
    files = {
        "a.org": "* Old :x:\n** @agent archive this with the archive tag\n",
        "h.org": "#+ARCHIVE: .hidden/h.org::\n* Secret\n** @agent archive this\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    _route(tmp_path, notes)
    assert (notes / "a.org").read_text().startswith("* Old :x:ARCHIVE:\n")
    hidden = (notes / "h.org").read_text()
    assert "the archive file may not be written" in hidden and "WAITING" not in hidden
    assert not (notes / ".hidden").exists()


def test_two_approved_moves_of_one_subtree_move_it_once(tmp_path: Path) -> None:
    text = "* Old\nX.\n** @agent archive this\n** @agent delete this\n"
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    assert _route(tmp_path, notes)[0] == 0
    assert (notes / "a.org").read_text() == ""
    assert (notes / "a.org_archive").read_text().count("* Old\n") == 1


def test_archive_the_done_items_archives_each_done_child(tmp_path: Path) -> None:
    text = "* Sprint\n** DONE One\n** TODO Two\n** DONE Three\n** @agent archive the done items\n"
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    _route(tmp_path, notes)
    left = (notes / "a.org").read_text()
    assert "** TODO Two\n" in left and "DONE One" not in left and "DONE Three" not in left
    archived = (notes / "a.org_archive").read_text()
    assert archived.index("* DONE One\n") < archived.index("* DONE Three\n")


def test_next_weeks_file_is_the_note_named_for_next_week(tmp_path: Path) -> None:
    files = {
        "a.org": "* Idea\nI.\n** @agent move this to next week's file\n",
        "2026-12-08.org": "* Monday\n",  # --now is Tuesday 2026-12-01
        "2026-12-15.org": "* Later\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    assert "-> 2026-12-08.org (at the end, level 1)" in (notes / "a.org").read_text()


def test_tag_it_archived_is_the_archive_tag_variant(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"a.org": "* Old\nX.\n** @agent tag it archived\n"})
    _route(tmp_path, notes)
    assert "- Old (line 1): tag it :ARCHIVE:\n" in (notes / "a.org").read_text()
    _approve(notes / "a.org")
    _route(tmp_path, notes)
    assert (notes / "a.org").read_text().startswith("* Old" + " " * 63 + ":ARCHIVE:\n")


def test_a_private_subtree_stays_private_where_it_lands(tmp_path: Path) -> None:
    files = {
        "a.org": "* Health :@personal:\n** Results\nPrivate.\n*** @agent refile this to b.org\n",
        "b.org": "* Inbox\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    _route(tmp_path, notes)
    moved = (notes / "b.org").read_text()
    assert moved.startswith("* Inbox\n* Results" + " " * (77 - 11 - 9) + ":@personal:\nPrivate.\n")


def test_an_archive_location_outside_the_notes_is_shown_before_approval(tmp_path: Path) -> None:
    notes = _notes(
        tmp_path, {"a.org": "#+ARCHIVE: ../elsewhere.org::\n* T\nx\n** @agent archive this\n"}
    )
    _route(tmp_path, notes)
    assert "-> ../elsewhere.org (NOTE: outside the notes root)" in (notes / "a.org").read_text()
    assert not (tmp_path / "elsewhere.org").exists()


def test_moves_ask_with_their_plan_in_every_note_of_a_run(tmp_path: Path) -> None:
    files = {f"n{n}.org": f"* T{n}\nBody.\n** @agent archive this\n* Keep\n" for n in range(50)}
    notes = _notes(tmp_path, files)
    args = ["route", "-q", "--now", NOW, "--state", str(tmp_path / "state.db"), str(notes)]
    env = {"HOME": str(tmp_path)}
    assert run_cli(args, tmp_path, env=env)[0] == 0
    assert "- T7 (line 1) -> n7.org_archive\n" in (notes / "n7.org").read_text()
    for name in files:
        _approve(notes / name)
    assert run_cli(args, tmp_path, env=env)[0] == 0
    assert all((notes / name).read_text() == "* Keep\n" for name in files)


def test_crlf_bom_note_without_final_newline_moves_once(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"p.org": "* P"})
    note = notes / "a.org"
    note.write_bytes(b"\xef\xbb\xbf* Notes\r\n* Notes\r\nB.\r\n** @agent refile this to p.org")
    _route(tmp_path, notes)
    note.write_bytes(note.read_bytes().replace(b"WAITING Approve", b"APPROVED Approve"))
    _route(tmp_path, notes)
    assert note.read_bytes() == b"\xef\xbb\xbf* Notes\r\n"
    assert (notes / "p.org").read_bytes().startswith(b"* P\n* Notes\nB.\n** @agent refile")


def test_a_binary_target_is_refused_before_approval(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"a.org": "* T\nx\n** @agent refile this to bin.org\n"})
    (notes / "bin.org").write_bytes(b"\x00\x01binary")
    _route(tmp_path, notes)
    text = (notes / "a.org").read_text()
    assert "that file may not be written" in text and "WAITING" not in text


def test_two_moves_into_one_target_in_one_run(tmp_path: Path) -> None:
    files = {
        "a.org": "* Website\nW.\n** @agent refile this to p.org under Website\n"
        "* Other\nO.\n** @agent refile this to p.org under Website\n",
        "p.org": "* Website\n",
    }
    notes = _notes(tmp_path, files)
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    assert _route(tmp_path, notes)[0] == 0
    moved = (notes / "p.org").read_text()
    assert moved.startswith("* Website\n** Website\nW.\n")
    assert "\n** Other\nO.\n" in moved and (notes / "a.org").read_text() == ""


def test_route_stdin_leaves_a_move_across_files_to_a_file_route(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {"a.org": "* T\nx\n** @agent archive this\n"})
    note = notes / "a.org"
    _route(tmp_path, notes)
    _approve(note)
    approved = note.read_bytes()
    args = ["route", "--stdin", "--file-name", str(note), "--now", NOW]
    args += ["--state", str(tmp_path / "state.db")]
    code, out, err = run_cli(args, tmp_path, stdin=approved, env={"HOME": str(tmp_path)})
    assert (code, out) == (0, approved) and "waits: run `orgrouter route`" in err
    _route(tmp_path, notes)  # the same approval: no new question
    assert note.read_text() == "" and "\nx\n" in (notes / "a.org_archive").read_text()


def test_two_moves_of_headlines_with_the_same_title_move_each_once(tmp_path: Path) -> None:
    # Both subjects are "* Notes": once the first moved, the second used to be found
    # again by its rank among identical lines, which named the wrong one (in-file
    # archive: the first archived twice, the second left) or none (the file failed).
    twin = "* Notes\n{0}-notes\n** @agent {1}\n"
    in_file = "#+ARCHIVE: ::\n" + "".join(twin.format(n, "archive this") for n in "ab")
    across = twin.format("a", "refile this to p.org") + twin.format("b", "refile this to p.org")
    notes = _notes(
        tmp_path,
        {"i.org": in_file + "* Tail\n", "x.org": across + "* Tail\n", "p.org": "* W\n"},
    )
    _route(tmp_path, notes)
    _approve(notes / "i.org")
    _approve(notes / "x.org")
    assert _route(tmp_path, notes)[0] == 0
    kept = (notes / "i.org").read_text()
    assert kept.startswith("#+ARCHIVE: ::\n* Tail\n\n* Notes\n")
    assert kept.index("a-notes") < kept.index("b-notes")
    assert kept.count("a-notes") == kept.count("b-notes") == 1
    assert (notes / "x.org").read_text() == "* Tail\n"
    moved = (notes / "p.org").read_text()
    assert moved.count("* Notes\n") == 2 and moved.index("a-notes") < moved.index("b-notes")


def test_an_in_file_archive_heading_inside_the_subject_is_refused(tmp_path: Path) -> None:
    # Org pastes the subtree under the heading, then cuts the subject with the heading
    # and the copy in it: the text is gone. orgrouter asks instead, and moves nothing.
    files = {
        "a.org": "#+ARCHIVE: ::* Archive\n* Work\n* Archive\n** old\nbody\n"
        "** @agent archive this\n",
        "b.org": "#+ARCHIVE: ::** Sub\n* Work\nw\n** Sub\n*** kept\n** @agent archive this\n",
        "c.org": "#+ARCHIVE: ::*** Sub\n* B\n** DONE d3\n*** Sub\n** DONE d4\n"
        "** @agent archive the done items\n",
    }
    notes = _notes(tmp_path, files)
    assert _route(tmp_path, notes)[0] == 0
    for name, text in files.items():
        routed = (notes / name).read_text()
        assert "the archive heading is inside what would be archived" in routed, name
        assert "WAITING" not in routed and routed.startswith(text), name


def test_apply_moves_never_pastes_a_subtree_into_itself() -> None:
    # The plan refuses it; the move refuses it too, should the note change between.
    data = b"* Work\nw\n** Sub\n*** kept\n* Tail\n"
    subject = subject_at(Document(data), 0)
    with pytest.raises(InputError, match="into itself"):
        apply_moves(data, [Move(subject, "archive", "", "** Sub")], "a.org", b"\n")


def test_a_done_item_with_an_open_todo_under_it_stays(tmp_path: Path) -> None:
    # org-archive-all-done leaves a done child whose subtree still has an open TODO;
    # archiving it would take that task out of the agenda without saying so.
    text = (
        "* Sprint\n** DONE One\n*** DONE nested\n** DONE Two\n*** TODO still open\n"
        "** @agent archive the done items\n"
    )
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    asked = (notes / "a.org").read_text()
    assert "- One (line 2) -> a.org_archive\n" in asked and "- Two" not in asked
    _approve(notes / "a.org")
    _route(tmp_path, notes)
    assert "** DONE Two\n*** TODO still open\n" in (notes / "a.org").read_text()
    archived = (notes / "a.org_archive").read_text()
    assert "* DONE One\n" in archived and "Two" not in archived


def test_a_result_written_before_the_subject_in_the_same_run_is_not_moved(tmp_path: Path) -> None:
    # A new request above answers "** Hello", the very line of the approved subject:
    # found again by rank among identical lines, the result was archived instead.
    notes = _notes(tmp_path, {"a.org": "* Stuff\n** Hello\nMine.\n*** @agent archive this\n"})
    note = notes / "a.org"
    _route(tmp_path, notes)
    _approve(note)
    note.write_text("* @agent greet\n" + note.read_text())
    assert _route(tmp_path, notes)[0] == 0
    kept = note.read_text()
    assert kept.startswith("* @agent greet\n") and kept.count("** Hello\n") == 1
    assert "Mine." not in kept and kept.endswith("* Stuff\n")
    archived = (notes / "a.org_archive").read_text()
    assert "* Hello\n" in archived and "Mine.\n" in archived


def test_a_refile_into_a_subtree_another_move_archives_goes_first(tmp_path: Path) -> None:
    # Both approved: archiving B first left no B/Child to refile into, so the file
    # failed, both were asked again, and approving them again failed again.
    text = "* B\n** Child\n** @agent archive this\n* X\nMine.\n"
    text += "** @agent refile this under B/Child\n"
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    _approve(notes / "a.org")
    assert _route(tmp_path, notes)[0] == 0
    assert (notes / "a.org").read_text() == ""
    archived = (notes / "a.org_archive").read_text()
    assert archived.count("Mine.") == 1
    assert archived.index("** Child\n") < archived.index("*** X\nMine.\n")


def test_a_named_headline_is_found_by_the_title_org_shows(tmp_path: Path) -> None:
    text = "* TODO [[https://example.org][Site]] [1/2] :web:\nS.\n* Notes\n** @agent archive Site\n"
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    assert "- [[https://example.org][Site]] [1/2] (line 1) -> a.org_archive\n" in (
        notes / "a.org"
    ).read_text()


def test_the_done_items_of_a_note_with_a_bom_follow_its_todo_line(tmp_path: Path) -> None:
    notes = _notes(tmp_path, {})
    note = notes / "a.org"
    note.write_bytes(
        b"\xef\xbb\xbf#+TODO: NEXT | SHIPPED\n* Sprint\n** SHIPPED One\n** NEXT Two\n"
        b"** @agent archive the done items\n"
    )
    _route(tmp_path, notes)
    assert "- One (line 3) -> a.org_archive\n" in note.read_text(encoding="utf-8-sig")


def test_a_named_headline_followed_by_the_word_heading_is_that_headline(tmp_path: Path) -> None:
    # "clean out the 2023 receipts heading" names the headline "2023 receipts", as a
    # person reads it; a headline really titled "... heading" still wins.
    text = (
        "* Old receipts\n** 2023 receipts\nScanned.\n** 2024 receipts\n"
        "** @agent clean out the 2023 receipts heading\n"
        "* Style\n** Section heading\n** @agent archive the section heading\n"
    )
    notes = _notes(tmp_path, {"a.org": text})
    _route(tmp_path, notes)
    routed = (notes / "a.org").read_text()
    assert "- 2023 receipts (line 2) -> a.org_archive" in routed
    assert "- Section heading (line 7) -> a.org_archive\n" in routed
    assert "Clarification needed" not in routed


def _routed(tmp: Path, text: str) -> str:
    notes = _notes(tmp, {"a.org": text})
    _route(tmp, notes)
    return (notes / "a.org").read_text()


def test_kind_and_position_words_are_not_part_of_the_subjects_title(tmp_path: Path) -> None:
    note = _routed(
        tmp_path,
        "* Old\n** 2023 receipts\nScanned.\n** 2024 receipts\n"
        "** @agent clean out the 2023 receipts heading\n",
    )
    assert "WAITING Approve: clean out the 2023 receipts heading" in note
    assert "1. 2023 receipts" in note and "no headline called" not in note


def test_a_line_of_the_text_named_for_deletion_is_named_not_moved(tmp_path: Path) -> None:
    body = "* Subs\n- newspaper app: 4.99\n- cloud: 9.99\n"
    note = _routed(tmp_path, body + "** @agent get rid of the newspaper line above\n")
    assert "'newspaper' is a line of the text, not a headline" in note
    assert "'- newspaper app: 4.99'" in note and "WAITING" not in note
    assert note.startswith(body)


@pytest.mark.parametrize("verb", ["archive this", "delete this section"])
def test_a_move_asked_on_stdin_without_a_file_asks_for_one(tmp_path: Path, verb: str) -> None:
    # An editor's filter (route --stdin, no --file-name) has no file to move text out of.
    note = f"* Old idea\n** @agent {verb}\n".encode()
    args = ["route", "--stdin", "--now", NOW, "--state", str(tmp_path / "state.db")]
    code, out, err = run_cli(args, tmp_path, env={"HOME": str(tmp_path)}, stdin=note)
    assert code == 0, err
    assert b"Error in skill" not in out and b"AssertionError" not in out
    assert b"*** Clarification needed: which note?\n" in out
    assert b"needs a note file" in out
