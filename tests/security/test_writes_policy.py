"""The write policy (orgrouter.io.policy): what a routed request may write besides its note."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orgrouter.io.policy import Allowed, Forbidden, NeedsApproval, WritePolicy, _inside


class Record:
    """An in-memory ownership record, as TargetRecord answers it."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, str]] = {}

    def owner(self, target: str) -> tuple[str, str] | None:
        return self.rows.get(target)

    def wrote(self, target: Path, source: Path) -> None:
        sha = hashlib.sha256(target.read_bytes()).hexdigest()
        self.rows[os.path.realpath(target)] = (sha, str(source))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "home" / "notes"
    (root / "sub").mkdir(parents=True)
    note = root / "sub" / "n.org"
    note.write_text("* n\n")
    return root, note


def check(root: Path, note: Path, target: Path | str, record: Record | None = None,
          ) -> Allowed | NeedsApproval | Forbidden:  # fmt: skip
    return WritePolicy(root, (), (), record).check(note, note.parent / target)


@pytest.mark.parametrize(
    "target",
    [
        ".git/hooks/post-checkout",
        "../.git/config",
        "../../.ssh/authorized_keys",
        "../../.bashrc",
        ".dir-locals.el",
        "deep/.hidden/x.sh",
        "orgrouter.toml",
        "../orgrouter.toml",
        "n.org",
    ],
)
def test_never_writes_hidden_paths_config_or_the_note(tree: tuple[Path, Path], target: str) -> None:
    root, note = tree
    assert isinstance(check(root, note, target), Forbidden)


def test_a_git_directory_of_any_name_is_forbidden(tree: tuple[Path, Path]) -> None:
    root, note = tree
    bare = note.parent / "repo.git"
    (bare / "objects").mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    verdict = check(root, note, "repo.git/hooks/post-update")
    assert isinstance(verdict, Forbidden) and "git directory" in verdict.reason


def test_orgrouter_state_and_user_config_are_forbidden(tree: tuple[Path, Path]) -> None:
    root, note = tree
    state = note.parent / "state"
    verdict = WritePolicy(root, (), (state,)).check(note, state / "x.sqlite3")
    assert isinstance(verdict, Forbidden)


def test_a_symlink_into_a_hidden_directory_is_forbidden(tree: tuple[Path, Path]) -> None:
    root, note = tree
    (root / ".git").mkdir()
    (note.parent / "hooks").symlink_to(root / ".git")
    assert isinstance(check(root, note, "hooks/post-checkout"), Forbidden)


def test_a_hard_link_to_the_note_is_the_note(tree: tuple[Path, Path]) -> None:
    # A move "into" it would write the whole note twice (os.replace splits the link).
    root, note = tree
    os.link(note, note.parent / "same.org")
    verdict = check(root, note, "same.org")
    assert isinstance(verdict, Forbidden) and "the note itself" in verdict.reason


def test_new_file_in_the_notes_tree_is_allowed(tree: tuple[Path, Path]) -> None:
    root, note = tree
    assert isinstance(check(root, note, "out/run.sh"), Allowed)


def test_outside_the_notes_own_directory_needs_approval(tree: tuple[Path, Path]) -> None:
    root, note = tree
    assert isinstance(check(root, note, "../sibling.sh"), NeedsApproval)
    assert isinstance(check(root, note, "../../outside/approved.sh"), NeedsApproval)


def test_existing_files_need_approval_unless_ours_from_this_note(tree: tuple[Path, Path]) -> None:
    root, note = tree
    mine = note.parent / "init.el"
    mine.write_text(";; hand-written\n")
    record = Record()
    assert isinstance(check(root, note, "init.el", record), NeedsApproval)
    other = note.parent / "journal.org"
    other.write_text("* diary\n")
    assert isinstance(check(root, note, "journal.org", record), NeedsApproval)
    record.wrote(mine, note)
    assert isinstance(check(root, note, "init.el", record), Allowed)
    record.wrote(mine, note.parent / "other.org")
    assert "another note" in check(root, note, "init.el", record).reason
    record.wrote(mine, note)
    mine.write_text(";; edited since\n")
    assert "edited since" in check(root, note, "init.el", record).reason
    # No record at all (after `orgrouter state reset`): not ours.
    record.rows.clear()
    assert isinstance(check(root, note, "init.el", record), NeedsApproval)


def test_project_file_in_any_case_is_forbidden(tree: tuple[Path, Path]) -> None:
    root, note = tree
    assert isinstance(check(root, note, "ORGROUTER.TOML"), Forbidden)


def test_a_symlink_leading_outside_says_where_it_leads(tree: tuple[Path, Path]) -> None:
    root, note = tree
    outside = root.parent / "outside.sh"
    outside.write_text("x\n")
    (note.parent / "link.sh").symlink_to(outside)
    verdict = check(root, note, "link.sh")
    assert isinstance(verdict, NeedsApproval)
    assert verdict.reason.endswith(f"through a symlink to {outside.resolve()}")


def test_a_symlinked_note_keeps_its_own_directory(tree: tuple[Path, Path]) -> None:
    root, note = tree
    elsewhere = root.parent / "synced"
    elsewhere.mkdir()
    (elsewhere / "real.org").write_text("* n\n")
    link = note.parent / "linked.org"
    link.symlink_to(elsewhere / "real.org")
    assert isinstance(check(root, link, "new.el"), Allowed)
    assert isinstance(check(root, link, "../../synced/new.el"), NeedsApproval)
    assert isinstance(check(root, link, "../../synced/real.org"), Forbidden)  # the note


_PARTS = st.sampled_from(["", "a", "ab", "b", ".", "..", "a.b"])


@given(
    st.lists(_PARTS, max_size=4), st.lists(_PARTS, max_size=4), st.sampled_from(["/", "//"])
)
def test_inside_is_pathlib_s_parent_relation(inner: list[str], outer: list[str], root: str) -> None:
    # The policy's paths are absolute and normalised (abspath, realpath) before the test.
    path = Path(os.path.normpath(root + "/".join(inner)))
    for directory in (Path(os.path.normpath(root + "/".join(outer))), Path("/"), path, path.parent):
        expected = path == directory or directory in path.parents
        assert _inside(path, directory) is expected, (path, directory)
