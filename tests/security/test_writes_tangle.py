"""Issue 10 item 1: a routed ``@agent tangle this`` writes only files orgrouter created.

Hostile notes are planted in a real tree under a test HOME (a git repository, a
hand-written init.el, another note, the notes' own orgrouter.toml, dot files in HOME)
and routed with the real CLI; afterwards every file but the note is byte for byte what
it was. On 0.1 each of these targets was overwritten without a word.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .hostile import NOW, approve, changed, run, snapshot

CONFIG = '[privacy]\ntags = ["@personal"]\n'
# (target as the hostile block writes it, header args, whether an approval may permit it)
HOSTILE = [
    ("journal.org", "", True),  # another note
    ("init.el", "", True),  # a hand-written file
    ("orgrouter.toml", "", False),  # the notes' own configuration
    (".git/hooks/post-checkout", ":shebang #!/bin/sh", False),  # git runs it
    (".git/config", "", False),
    ("~/.ssh/authorized_keys", "", False),
    ("~/.bashrc", "", False),
    ("~/.config/orgrouter/config.toml", "", False),  # the user configuration
    (".dir-locals.el", "", False),  # Emacs evaluates it
]


def plant(tmp: Path, target: str, header: str) -> Path:
    home = tmp / "home"
    notes = home / "notes"
    (notes / ".git" / "hooks").mkdir(parents=True)
    (notes / ".git" / "config").write_text("[core]\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA me\n")
    (home / ".bashrc").write_text("export PATH=~/bin:$PATH\n")
    (home / ".config" / "orgrouter").mkdir(parents=True)
    (home / ".config" / "orgrouter" / "config.toml").write_text("")
    (notes / "orgrouter.toml").write_text(CONFIG)
    (notes / "init.el").write_text(";; my own init\n")
    (notes / "journal.org").write_text("* Diary\nDear diary.\n")
    note = notes / "planted.org"
    note.write_text(
        f"* Payload\n#+begin_src sh :tangle {target} {header}\nowned\n#+end_src\n"
        "* @agent tangle this\n"
    )
    return note


def route(tmp: Path) -> tuple[int, str]:
    code, _out, err = run(["route", "-q", "--now", NOW, str(tmp / "home" / "notes")], tmp)
    return code, err


@pytest.mark.parametrize(("target", "header", "approvable"), HOSTILE)
def test_a_routed_tangle_overwrites_nothing_it_did_not_create(
    tmp_path: Path, target: str, header: str, approvable: bool
) -> None:
    note = plant(tmp_path, target, header)
    before = snapshot(tmp_path / "home")
    code, err = route(tmp_path)
    assert code == 0, err
    assert changed(before, snapshot(tmp_path / "home")) == {"notes/planted.org"}
    assert not (tmp_path / "home" / "notes" / ".git" / "hooks" / "post-checkout").exists()
    text = note.read_text()
    if approvable:
        assert "WAITING Approve: tangle this" in text
        assert "an existing file orgrouter did not write" in text
    else:
        assert "WAITING" not in text
        assert "never written by a routed request" in text


@pytest.mark.parametrize(("target", "header"), [(t, h) for t, h, ok in HOSTILE if not ok])
def test_forbidden_targets_stay_forbidden_when_approved(
    tmp_path: Path, target: str, header: str
) -> None:
    # Pair the forbidden block with one that needs an approval, and approve it.
    note = plant(tmp_path, target, header)
    note.write_text(note.read_text() + "* Also\n#+begin_src sh :tangle ../out.sh\nx\n#+end_src\n")
    (tmp_path / "home" / "out.sh").write_text("mine\n")
    route(tmp_path)
    assert "never written, approved or not" in note.read_text()
    approve(note)
    before = snapshot(tmp_path / "home")
    code, err = route(tmp_path)
    assert code == 0, err
    assert changed(before, snapshot(tmp_path / "home")) == {"notes/planted.org", "out.sh"}
    assert not (tmp_path / "home" / "notes" / ".git" / "hooks" / "post-checkout").exists()


def test_state_reset_does_not_make_hand_written_files_ours(tmp_path: Path) -> None:
    note = plant(tmp_path, "made.el", "")
    route(tmp_path)
    made = tmp_path / "home" / "notes" / "made.el"
    assert made.read_text() == "owned\n"  # a new file in the note's tree: written
    # Ours while it holds what we wrote: a changed block rewrites it without asking.
    note.write_text(note.read_text().replace("owned", "owned v2").replace(
        "* @agent tangle this", "* @agent tangle this again"))  # fmt: skip
    route(tmp_path)
    assert made.read_text() == "owned v2\n"
    notes = str(tmp_path / "home" / "notes")
    code, _out, err = run(["state", "reset", "--yes", notes], tmp_path)
    assert code == 0, err
    note.write_text(note.read_text().replace("owned v2", "owned v3").replace(
        "tangle this again", "tangle it once more"))  # fmt: skip
    before = snapshot(tmp_path / "home")
    route(tmp_path)
    assert changed(before, snapshot(tmp_path / "home")) == {"notes/planted.org"}
    assert "an existing file orgrouter did not write" in note.read_text()


def test_a_file_edited_since_orgrouter_wrote_it_needs_approval(tmp_path: Path) -> None:
    note = plant(tmp_path, "made.el", "")
    route(tmp_path)
    made = tmp_path / "home" / "notes" / "made.el"
    made.write_text("my edit\n")
    note.write_text(note.read_text().replace("owned", "owned v2").replace(
        "* @agent tangle this", "* @agent tangle this again"))  # fmt: skip
    route(tmp_path)
    assert made.read_text() == "my edit\n"
    assert "edited since orgrouter wrote it" in note.read_text()


def test_another_notes_target_needs_approval(tmp_path: Path) -> None:
    # good.org tangles shared.el; a planted note claims the same target.
    note = plant(tmp_path, "shared.el", "")
    notes = tmp_path / "home" / "notes"
    good = notes / "good.org"
    good.write_text(note.read_text().replace("owned", "good"))
    note.write_text("* Nothing yet\n")
    route(tmp_path)
    assert (notes / "shared.el").read_text() == "good\n"
    note.write_text(good.read_text().replace("good", "owned").replace("this", "it"))
    route(tmp_path)
    assert (notes / "shared.el").read_text() == "good\n"
    assert "orgrouter wrote it from another note, good.org" in note.read_text()


def test_manual_tangle_says_what_it_overwrote(tmp_path: Path) -> None:
    # The manual command keeps Emacs's semantics (it writes) but names each file it
    # replaced that orgrouter had not written.
    note = plant(tmp_path, "init.el", "")
    code, out, err = run(["tangle", str(note)], tmp_path)
    assert code == 0, err
    assert "overwrote: " in out.decode() and "init.el" in out.decode()
    assert (tmp_path / "home" / "notes" / "init.el").read_text() == "owned\n"
    code, out, _err = run(["tangle", "--json", str(note)], tmp_path)
    (target,) = json.loads(out)["targets"]
    assert target["action"] == "unchanged" and "overwrote" not in target  # ours now
    note.write_text(note.read_text().replace("owned", "v2"))
    (tmp_path / "home" / "notes" / "init.el").write_text(";; edited by hand\n")
    code, out, _err = run(["tangle", "--json", "--force", str(note)], tmp_path)
    (target,) = json.loads(out)["targets"]
    assert target["action"] == "written" and "orgrouter had not written" in target["overwrote"]


def test_user_skill_and_rules_directories_are_never_targets(tmp_path: Path) -> None:
    # A skill file is code the next run loads: even approved, a routed tangle never
    # writes into skills.paths or rules.dir.
    note = plant(tmp_path, "../skills/evil.py", "")
    notes = tmp_path / "home" / "notes"
    (tmp_path / "home" / "skills").mkdir()
    (tmp_path / "home" / "rules").mkdir()
    config = '[skills]\npaths = ["../skills"]\n[rules]\ndir = "../rules"\n'
    (notes / "orgrouter.toml").write_text(config)
    rules = "* r\n#+begin_src toml :tangle ../rules/verbs.toml\nx\n#+end_src\n"
    note.write_text(note.read_text() + rules)
    before = snapshot(tmp_path / "home")
    code, err = route(tmp_path)
    assert code == 0, err
    assert changed(before, snapshot(tmp_path / "home")) == {"notes/planted.org"}
    text = note.read_text()
    assert "WAITING" not in text and text.count("never written by a routed request") == 2


def test_tangle_allow_admits_new_files_only(tmp_path: Path) -> None:
    note = plant(tmp_path, "../lib/new.el", "")
    home = tmp_path / "home"
    (home / "lib").mkdir()
    (home / "lib" / "old.el").write_text(";; mine\n")
    (home / "notes" / "orgrouter.toml").write_text('[tangle]\nallow = ["../lib"]\n')
    more = "* b\n#+begin_src elisp :tangle ../lib/old.el\n(evil)\n#+end_src\n"
    note.write_text(note.read_text() + more)
    route(tmp_path)
    text = note.read_text()
    assert "=../lib/old.el= (an existing file orgrouter did not write)" in text
    assert "written as they need no approval: ../lib/new.el" in text
    assert (home / "lib" / "old.el").read_text() == ";; mine\n"
    assert not (home / "lib" / "new.el").exists()  # nothing is written until approved


@pytest.mark.parametrize(
    "mode", ["(identity #o4755)", "(identity #o777)", "o2755", "-1", "(identity #o1644)"]
)
def test_a_routed_tangle_never_makes_a_setuid_or_world_writable_file(
    tmp_path: Path, mode: str
) -> None:
    note = plant(tmp_path, "tool.sh", f":tangle-mode {mode}")
    code, err = route(tmp_path)
    assert code == 0, err
    assert not (tmp_path / "home" / "notes" / "tool.sh").exists()
    assert "setuid, setgid, sticky or world-writable" in note.read_text()


def test_a_routed_tangle_keeps_an_ordinary_mode(tmp_path: Path) -> None:
    plant(tmp_path, "tool.sh", ":tangle-mode (identity #o755)")
    code, err = route(tmp_path)
    assert code == 0, err
    assert (tmp_path / "home" / "notes" / "tool.sh").stat().st_mode & 0o7777 == 0o755
