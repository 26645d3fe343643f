"""The tangle and detangle commands: write modes, safety, conflicts, exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgrouter.cli import cli

NOTE = """\
* Script
#+begin_src sh :tangle out/run.sh :mkdirp yes :shebang "#!/bin/sh" :comments link
echo hello
#+end_src
"""
RUN_SH = (
    "#!/bin/sh\n# [[file:../note.org::*Script][Script:1]]\necho hello\n# Script:1 ends here\n"
)


@pytest.fixture()
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "orgrouter.toml").write_text("")
    (root / "note.org").write_text(NOTE)
    monkeypatch.setenv("ORGROUTER_STATE", str(tmp_path / "state.sqlite3"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(root)
    return root


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=False)
    code = result.return_value if isinstance(result.return_value, int) else result.exit_code
    return code, result.stdout, result.stderr


def test_tangle_writes_then_leaves_unchanged(notes: Path) -> None:
    assert invoke("tangle", ".")[0] == 0
    target = notes / "out" / "run.sh"
    assert target.read_text() == RUN_SH
    assert os.stat(target).st_mode & 0o777 == 0o755
    os.utime(target, (1, 1))
    code, _, err = invoke("tangle", ".")
    assert code == 0 and err == "1 unchanged; 0 blocks skipped\n"
    assert os.stat(target).st_mtime == 1  # not rewritten


def test_check_diff_and_dry_run_write_nothing(notes: Path) -> None:
    code, out, err = invoke("tangle", "--check", ".")
    assert code == 1 and out == "would-write: out/run.sh (from note.org)\n"
    assert err == "1 would-write; 0 blocks skipped\n"
    assert not (notes / "out").exists()
    code, out, _ = invoke("tangle", "--diff", ".")
    assert code == 0 and out.startswith("--- a/out/run.sh\n+++ b/out/run.sh\n")
    assert invoke("tangle", "--dry-run", ".")[0] == 0
    assert not (notes / "out").exists()
    assert invoke("tangle", ".")[0] == 0
    assert invoke("tangle", "--check", ".")[0] == 0


def test_hand_edit_is_a_conflict_unless_forced(notes: Path) -> None:
    invoke("tangle", ".")
    target = notes / "out" / "run.sh"
    target.write_text(RUN_SH + "# mine\n")
    (notes / "note.org").write_text(NOTE.replace("hello", "bye"))
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    report = json.loads(out)
    assert report["targets"][0]["action"] == "conflict"
    assert target.read_text().endswith("# mine\n")
    assert invoke("tangle", "--force", ".")[0] == 0
    assert "echo bye" in target.read_text()


def test_target_outside_root_and_symlink_escape_are_refused(
    notes: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (notes / "link").symlink_to(outside)
    (notes / "note.org").write_text(
        "#+begin_src sh :tangle ../escape.sh\nx\n#+end_src\n"
        "#+begin_src sh :tangle link/through.sh\ny\n#+end_src\n"
        "#+begin_src sh :tangle ok.sh\nz\n#+end_src\n"
    )
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    actions = {t["target"]: (t["action"], t.get("reason", "")) for t in json.loads(out)["targets"]}
    assert actions["../escape.sh"][0] == "refused"
    assert "outside the allowed directories" in actions["../escape.sh"][1]
    assert actions["link/through.sh"][0] == "refused"
    assert "symlink leads outside" in actions["link/through.sh"][1]
    assert actions["ok.sh"] == ("written", "")
    assert list(outside.iterdir()) == []


def test_allow_list_in_config_permits_a_directory(notes: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (notes / "orgrouter.toml").write_text(f'[tangle]\nallow = ["{extra}"]\n')
    (notes / "note.org").write_text("#+begin_src sh :tangle ../extra/e.sh\nx\n#+end_src\n")
    assert invoke("tangle", ".")[0] == 0
    assert (extra / "e.sh").read_text() == "x\n"


def test_relative_allow_entry_is_relative_to_the_config_file(notes: Path, tmp_path: Path) -> None:
    # The routed tangle skill reads the same entry the same way (tests/security).
    (tmp_path / "extra").mkdir()
    (notes / "orgrouter.toml").write_text('[tangle]\nallow = ["../extra"]\n')
    (notes / "note.org").write_text("#+begin_src sh :tangle ../extra/e.sh\nx\n#+end_src\n")
    assert invoke("tangle", ".")[0] == 0
    assert (tmp_path / "extra" / "e.sh").read_text() == "x\n"


def test_tangling_a_file_into_itself_is_refused(notes: Path) -> None:
    (notes / "note.org").write_text("#+begin_src org :tangle note.org\nx\n#+end_src\n")
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    assert json.loads(out)["targets"][0]["reason"].endswith("the target is the Org file itself")


def test_lisp_block_is_reported_and_others_written(notes: Path) -> None:
    (notes / "note.org").write_text(
        "#+begin_src sh :tangle (expand-file-name \"x\")\nx\n#+end_src\n"
        "#+begin_src sh :tangle y.sh\ny\n#+end_src\n"
    )
    code, _, err = invoke("tangle", ".")
    assert code == 0
    assert "note.org:1: block skipped (elisp-form): :tangle (expand-file-name \"x\")" in err
    assert (notes / "y.sh").read_text() == "y\n"


def test_bad_file_does_not_stop_the_run(notes: Path) -> None:
    (notes / "bad.org").write_bytes(b"#+begin_src sh :tangle x.sh\n\xff\n#+end_src\n")
    (notes / "plain.org").write_bytes(b"\xff\n")  # no src block: never even decoded
    code, _, err = invoke("tangle", ".")
    assert code == 3
    assert "bad.org:2:1: invalid UTF-8 at byte 28" in err and "plain.org" not in err
    assert (notes / "out" / "run.sh").exists()


def test_detangle_carries_an_edit_back(notes: Path) -> None:
    (notes / "note.org").write_text(
        "* Script\n#+begin_src sh :tangle run.sh :comments link\n  echo hello\n#+end_src\n"
    )
    invoke("tangle", ".")
    target = notes / "run.sh"
    target.write_text(target.read_text().replace("echo hello", "echo hi\n* star"))
    code, out, _ = invoke("detangle", "run.sh")
    assert code == 0 and out == "detangled: Script:1 -> note.org:2\n"
    assert (notes / "note.org").read_text() == (
        "* Script\n#+begin_src sh :tangle run.sh :comments link\n  echo hi\n  ,* star\n#+end_src\n"
    )
    assert invoke("detangle", "run.sh")[1] == "unchanged: note.org\n"


def test_detangle_refuses_an_edit_on_both_sides(notes: Path) -> None:
    org = notes / "note.org"
    org.write_text("* S\n#+begin_src sh :tangle run.sh :comments link\n  echo a\n#+end_src\n")
    invoke("tangle", ".")
    target = notes / "run.sh"
    target.write_text(target.read_text().replace("echo a", "echo tangled-side"))
    org.write_text(org.read_text().replace("echo a", "echo org-side"))
    code, out, err = invoke("detangle", "run.sh")
    assert code == 3 and out == ""
    assert "both" in err and "changed since the last tangle" in err
    assert "org-side" in org.read_text()


def test_detangle_keeps_crlf_and_escapes(notes: Path) -> None:
    org = notes / "note.org"
    org.write_bytes(b"* S\r\n#+begin_src org :tangle t.org :comments link\r\n  x\r\n#+end_src\r\n")
    invoke("tangle", ".")
    target = notes / "t.org"
    target.write_text(target.read_text().replace("x\n", "* heading\n#+title: t\n"))
    assert invoke("detangle", "t.org")[0] == 0
    assert org.read_bytes() == (
        b"* S\r\n#+begin_src org :tangle t.org :comments link\r\n"
        b"  ,* heading\r\n  ,#+title: t\r\n#+end_src\r\n"
    )
    assert invoke("tangle", "--check", ".")[0] == 0


def test_detangle_keeps_each_line_end_of_a_mixed_file(notes: Path) -> None:
    org = notes / "note.org"
    before = b"* S\r\nintro\n#+begin_src sh :tangle t.sh :comments link\r\n  x\r\n#+end_src\n"
    after = b"tail\r\n* T\n#+begin_src sh :tangle t.sh :comments link\n  y\n#+end_src\r\n"
    org.write_bytes(before + after)
    invoke("tangle", ".")
    target = notes / "t.sh"
    target.write_bytes(target.read_bytes().replace(b"y\n", b"y2\nz\n"))
    assert invoke("detangle", "t.sh")[0] == 0
    # Only the edited body changed; it takes its begin line's end, every other line
    # keeps its own, and the untouched CRLF block is left as it was.
    assert org.read_bytes() == before + after.replace(b"  y\n", b"  y2\n  z\n")


def test_detangle_without_markers_is_an_error(notes: Path) -> None:
    (notes / "plain.sh").write_text("echo\n")
    code, _, err = invoke("detangle", "plain.sh")
    assert code == 3
    assert err == (
        "orgrouter: error: plain.sh: no [[file:...]] link markers to follow "
        "(tangle with :comments link)\n"
    )


def test_emacs_lock_on_a_target_is_a_conflict(notes: Path) -> None:
    invoke("tangle", ".")
    (notes / "note.org").write_text(NOTE.replace("hello", "bye"))
    (notes / "out" / ".#run.sh").symlink_to("user@host.1234:1")
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    (target,) = json.loads(out)["targets"]
    assert target["action"] == "conflict" and "Emacs is editing this file" in target["reason"]
    assert (notes / "out" / "run.sh").read_text() == RUN_SH


def test_missing_directory_without_mkdirp_fails_that_target_only(notes: Path) -> None:
    (notes / "note.org").write_text(
        "#+begin_src sh :tangle missing/a.sh\na\n#+end_src\n"
        "#+begin_src sh :tangle b.sh\nb\n#+end_src\n"
    )
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    results = {t["target"]: t for t in json.loads(out)["targets"]}
    assert results["missing/a.sh"]["action"] == "failed"
    assert results["missing/a.sh"]["reason"].endswith("(add :mkdirp yes to create it)")
    assert results["b.sh"]["action"] == "written"


def test_mode_change_alone_is_applied(notes: Path) -> None:
    invoke("tangle", ".")
    target = notes / "out" / "run.sh"
    os.chmod(target, 0o600)
    code, out, _ = invoke("tangle", "--check", ".")
    assert code == 1 and out == "would-write: out/run.sh (from note.org)\n"
    assert invoke("tangle", ".")[0] == 0
    assert os.stat(target).st_mode & 0o777 == 0o755


def test_detangle_refuses_a_block_with_noweb_references(notes: Path) -> None:
    (notes / "note.org").write_text(
        "* S\n#+begin_src sh :tangle run.sh :comments link :noweb yes\n<<x>>\n#+end_src\n"
        "#+name: x\n#+begin_src sh\necho x\n#+end_src\n"
    )
    invoke("tangle", ".")
    target = notes / "run.sh"
    target.write_text(target.read_text().replace("echo x", "echo y"))
    code, _, err = invoke("detangle", "run.sh")
    assert code == 3 and "expands noweb references" in err
    assert "<<x>>" in (notes / "note.org").read_text()


def test_symlinked_target_inside_root_is_written_through_the_link(notes: Path) -> None:
    real = notes / "real"
    real.mkdir()
    (real / "run.sh").write_text("old\n")
    (notes / "run.sh").symlink_to(real / "run.sh")
    (notes / "note.org").write_text("#+begin_src sh :tangle run.sh\nnew\n#+end_src\n")
    assert invoke("tangle", ".")[0] == 0
    assert (notes / "run.sh").is_symlink()  # Org 9.7: overwritten in place
    assert (real / "run.sh").read_text() == "new\n"


def test_target_that_is_a_directory_fails_clearly(notes: Path) -> None:
    (notes / "adir").mkdir()
    (notes / "note.org").write_text("#+begin_src sh :tangle adir\nx\n#+end_src\n")
    code, out, _ = invoke("tangle", "--json", ".")
    assert code == 3
    (target,) = json.loads(out)["targets"]
    assert target["action"] == "failed" and target["reason"].startswith("cannot read:")


def test_diff_marks_a_last_line_without_newline_as_gnu_diff_does(notes: Path) -> None:
    target = notes / "out" / "run.sh"
    target.parent.mkdir()
    target.write_text("#!/bin/sh\necho old")
    code, out, _ = invoke("tangle", "--diff", ".")
    assert code == 0
    assert "-echo old\n\\ No newline at end of file\n" in out
    assert out.startswith("--- a/out/run.sh\n+++ b/out/run.sh\n")


def test_tangle_discovers_notes_as_route_does(notes: Path) -> None:
    """[scan] include/exclude, hidden files and Emacs backups: one discovery for both."""
    scan = '[scan]\ninclude = ["*.org", "*.txt"]\nexclude = ["old"]\n'
    (notes / "orgrouter.toml").write_text(scan)
    for name in ("old/a.org", ".hidden.org", "b.org~", "c.txt"):
        (notes / name).parent.mkdir(exist_ok=True)
        (notes / name).write_text(NOTE.replace("out/run.sh", name.replace("/", "-") + ".sh"))
    code, out, _ = invoke("tangle", "--dry-run", ".")
    assert code == 0
    assert out == (
        "would-write: c.txt.sh (from c.txt)\nwould-write: out/run.sh (from note.org)\n"
    )


def test_a_note_named_like_a_directory_is_skipped_not_failed(notes: Path) -> None:
    (notes / "odd.org").mkdir()
    code, _, err = invoke("tangle", ".")
    assert code == 0
    assert "orgrouter: skipped odd.org: a directory, not a note (its notes are routed)\n" in err


def test_a_fifo_named_like_a_note_is_skipped_not_read(notes: Path) -> None:
    """Reading it would block the run for ever (tangle's own walk once opened it)."""
    os.mkfifo(notes / "pipe.org")
    code, out, err = invoke("tangle", ".")
    assert code == 0 and out == "written: out/run.sh (from note.org)\n"
    assert "orgrouter: skipped pipe.org: not a regular file\n" in err


def test_notes_are_tangled_in_full_path_order(notes: Path) -> None:
    # One discovery with route: files in the order of their full paths, so a
    # subdirectory's note (a/b/x.org) comes before a later name in its parent
    # (a/z.org); 0.1 walked a directory's own files first. README pins the change.
    (notes / "note.org").unlink()
    (notes / "a" / "b").mkdir(parents=True)
    (notes / "a" / "z.org").write_text("#+begin_src sh :tangle z.sh\necho z\n#+end_src\n")
    (notes / "a" / "b" / "x.org").write_text("#+begin_src sh :tangle x.sh\necho x\n#+end_src\n")
    code, out, _ = invoke("tangle", "--json", "--dry-run", ".")
    assert code == 0
    sources = [t["source"] for t in json.loads(out)["targets"]]
    assert sources == ["a/b/x.org", "a/z.org"]
