"""Discovery: which files under a notes tree are notes, in what order, each once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orgrouter.config import ScanConfig
from orgrouter.discover import common_root, discover, find_notes_root, is_emacs_artifact


def touch(path: Path, text: str = "* x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def rel(root: Path, paths: list[str]) -> list[str]:
    return [os.path.relpath(p, root) for p in paths]


def test_walk_skips_hidden_git_and_emacs_files_in_sorted_order(tmp_path: Path) -> None:
    for name in [
        "b.org",
        "a.org",
        "sub/z.org",
        "sub/deeper/y.org",
        "notes.txt",
        "a.org~",
        "#a.org#",
        ".git/config.org",
        ".hidden/h.org",
        ".dotfile.org",
        "Z.org",
    ]:
        touch(tmp_path / name)
    os.symlink("user@host.1234:1", tmp_path / ".#b.org")  # an Emacs lock
    found = discover([tmp_path], ScanConfig())
    assert rel(tmp_path, found.files) == [
        "Z.org",
        "a.org",
        "b.org",
        "sub/deeper/y.org",
        "sub/z.org",
    ]
    assert found.skipped == [] and found.errors == []


def test_include_and_exclude_patterns(tmp_path: Path) -> None:
    for name in [
        "a.org",
        "b.org_archive",
        "archive/old.org",
        "x/archive/old.org",
        "journal/2024/j.org",
        "journal/2025/j.org",
        "draft.tmp.org",
    ]:
        touch(tmp_path / name)
    scan = ScanConfig(
        include=["*.org", "*.org_archive"],
        exclude=["archive", "journal/2024", "*.tmp.org"],
    )
    assert rel(tmp_path, discover([tmp_path], scan).files) == [
        "a.org",
        "b.org_archive",
        "journal/2025/j.org",
    ]
    only_journal = ScanConfig(include=["journal/*.org"])
    assert rel(tmp_path, discover([tmp_path], only_journal).files) == [
        "journal/2024/j.org",
        "journal/2025/j.org",
    ]


def test_explicit_files_are_always_taken(tmp_path: Path) -> None:
    odd = touch(tmp_path / ".hidden" / "notes.txt")
    backup = touch(tmp_path / "a.org~")
    found = discover([odd, backup], ScanConfig())
    assert found.files == [str(odd), str(backup)]


def test_symlinked_file_is_taken_once_and_loops_end(tmp_path: Path) -> None:
    real = touch(tmp_path / "real" / "a.org")
    (tmp_path / "links").mkdir()
    os.symlink(real, tmp_path / "links" / "alias.org")
    os.symlink(tmp_path, tmp_path / "real" / "loop")  # a directory loop
    os.symlink(tmp_path / "links" / "self.org", tmp_path / "links" / "self.org")
    os.symlink(tmp_path / "missing.org", tmp_path / "links" / "dangling.org")
    found = discover([tmp_path], ScanConfig())
    assert rel(tmp_path, found.files) == ["links/alias.org"]
    reasons = {os.path.relpath(p, tmp_path): r for p, r in found.skipped}
    assert reasons["real/a.org"] == "same file as one already taken"
    assert reasons["real/loop"] == "symlink to a directory already walked"
    assert reasons["links/dangling.org"] == f"broken symlink (symlink to {tmp_path}/missing.org)"
    assert reasons["links/self.org"].startswith("unusable symlink: ")
    assert found.errors == []


def test_symlinked_directory_outside_the_root_is_walked(tmp_path: Path) -> None:
    outside = touch(tmp_path / "outside" / "o.org")
    root = tmp_path / "root"
    touch(root / "r.org")
    os.symlink(outside.parent, root / "shared")
    assert rel(root, discover([root], ScanConfig()).files) == ["r.org", "shared/o.org"]


def test_the_same_file_given_twice_is_taken_once(tmp_path: Path) -> None:
    a = touch(tmp_path / "a.org")
    found = discover([a, tmp_path, tmp_path / "." / "a.org"], ScanConfig())
    assert found.files == [str(a)]


def test_missing_and_special_arguments_are_errors_not_crashes(tmp_path: Path) -> None:
    good = touch(tmp_path / "good.org")
    os.mkfifo(tmp_path / "pipe.org")
    found = discover([tmp_path / "nope.org", good, tmp_path / "pipe.org"], ScanConfig())
    assert found.files == [str(good)]
    assert [str(e) for e in found.errors] == [
        f"{tmp_path}/nope.org: no such file or directory",
        f"{tmp_path}/pipe.org: is not a regular file or a directory",
    ]


def test_fifo_in_tree_is_skipped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.org")
    found = discover([tmp_path], ScanConfig())
    assert found.files == []
    assert found.skipped == [(str(tmp_path / "pipe.org"), "not a regular file")]


def test_emacs_artifact_names() -> None:
    assert is_emacs_artifact("a.org~")
    assert is_emacs_artifact("#a.org#")
    assert is_emacs_artifact(".#a.org")
    assert not is_emacs_artifact("a.org")
    assert not is_emacs_artifact("#")
    assert not is_emacs_artifact("#notes.org")


def test_common_root(tmp_path: Path) -> None:
    touch(tmp_path / "a" / "b" / "x.org")
    touch(tmp_path / "a" / "c" / "y.org")
    assert common_root([tmp_path / "a/b/x.org", tmp_path / "a/c"]) == tmp_path.resolve() / "a"
    assert common_root([tmp_path / "a/b/x.org"]) == tmp_path.resolve() / "a" / "b"


def test_leading_globstar_matches_at_the_top_too(tmp_path: Path) -> None:
    for name in ["a.org", "x/b.org", "x/y/c.org", "drafts/d.org", "x/drafts/e.org"]:
        touch(tmp_path / name)
    scan = ScanConfig(include=["**/*.org"], exclude=["**/drafts/*"])
    assert rel(tmp_path, discover([tmp_path], scan).files) == ["a.org", "x/b.org", "x/y/c.org"]


def test_walked_lists_only_directory_arguments(tmp_path: Path) -> None:
    one = touch(tmp_path / "a" / "one.org")
    touch(tmp_path / "b" / "two.org")
    found = discover([one, tmp_path / "b"], ScanConfig())
    assert found.walked == [tmp_path / "b"]
    assert rel(tmp_path, found.files) == ["a/one.org", "b/two.org"]


def test_find_notes_root_prefers_the_config_directory(tmp_path: Path) -> None:
    note = touch(tmp_path / "notes" / "sub" / "deep" / "x.org")
    assert find_notes_root([note]) == (tmp_path / "notes" / "sub" / "deep").resolve()
    touch(tmp_path / "notes" / "orgrouter.toml", "")
    assert find_notes_root([note]) == (tmp_path / "notes").resolve()
    assert find_notes_root([tmp_path / "notes" / "sub"]) == (tmp_path / "notes").resolve()


def test_find_notes_root_is_never_widened_by_a_repository(tmp_path: Path) -> None:
    # Issue 10 item 2: 0.1 took the nearest .git above as the root, so a dotfiles
    # repository in $HOME put ~/.ssh inside the notes. The root is what the user chose.
    note = tmp_path / "repo" / "notes" / "a.org"
    note.parent.mkdir(parents=True)
    note.write_text("* a\n")
    assert find_notes_root([note]) == note.parent.resolve()
    (tmp_path / "repo" / ".git").mkdir()
    assert find_notes_root([note]) == note.parent.resolve()
    assert find_notes_root([tmp_path / "repo"]) == (tmp_path / "repo").resolve()
    # orgrouter's own config anywhere above is the user's choice of root
    (tmp_path / "orgrouter.toml").write_text("")
    assert find_notes_root([note]) == tmp_path.resolve()


def test_odd_things_named_like_notes_are_listed_for_the_report(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.org")
    os.mkfifo(tmp_path / "pipe.txt")  # not named like a note: passed over in silence
    (tmp_path / "folder.org").mkdir()
    touch(tmp_path / "folder.org" / "inner.org")
    os.symlink("loop.org", tmp_path / "loop.org")
    (tmp_path / "journal" / "2026").mkdir(parents=True)
    found = discover([tmp_path], ScanConfig(include=["*.org", "journal/*"]))
    assert [(os.path.relpath(p, tmp_path), r.split(":")[0]) for p, r in found.odd] == [
        ("folder.org", "a directory, not a note (its notes are routed)"),
        ("loop.org", "unusable symlink"),
        ("pipe.org", "not a regular file"),
    ]
    assert rel(tmp_path, found.files) == ["folder.org/inner.org"]


def test_paths_are_spelt_as_given_normalised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reports, the scan cache and links name a note as the walk spells it: relative to
    # the directory given, without "./" or doubled slashes (as pathlib joins them).
    touch(tmp_path / "a" / "x.org")
    touch(tmp_path / "top.org")
    monkeypatch.chdir(tmp_path)
    assert discover(["."], ScanConfig()).files == ["a/x.org", "top.org"]
    assert discover(["./a/"], ScanConfig()).files == ["a/x.org"]
    assert discover(["a//", "./top.org"], ScanConfig()).files == ["a/x.org", "top.org"]
    assert discover([f"{tmp_path}//a/."], ScanConfig()).files == [f"{tmp_path}/a/x.org"]
    assert discover([Path("a")], ScanConfig()).walked == [Path("a")]


def test_many_exclude_globs_each_still_apply(tmp_path: Path) -> None:
    for name in ["keep.org", "a/skip-1.org", "b/c/kept.org", "c/d.org", "x.org"]:
        touch(tmp_path / name)
    scan = ScanConfig(exclude=["skip-*", "[ox]*.org", "c/", "nothing"])
    assert rel(tmp_path, discover([tmp_path], scan).files) == ["b/c/kept.org", "keep.org"]
