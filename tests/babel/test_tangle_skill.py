"""The tangle skill: ``* @agent tangle this`` from a note."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from orgrouter.config import Config
from orgrouter.route.binding import APPROVED_DIGEST, APPROVED_FLAG, DIGEST_KEY
from orgrouter.route.results import APPROVAL_KEY
from orgrouter.skills.base import Context, Emit, Request, Result, Skill, delegation
from orgrouter.skills.tangle_skill import SKILL

NOTE = """\
* Code
#+begin_src sh :tangle run.sh
echo hi
#+end_src
* @agent tangle this
"""


def context(root: Path, note: Path, dry_run: bool = False) -> Context:
    request = Request(path=note, line=5, headline="@agent tangle this",
                      instruction="tangle this", agent="agent")  # fmt: skip
    return Context(
        Config(), datetime(2026, 1, 1), request=request, notes_root=root, dry_run=dry_run
    )


def run(root: Path, note: Path, dry_run: bool = False, **extra: object) -> Emit:
    stimulus = delegation({"skill": "tangle", "verb": "tangle", "text": "tangle this", **extra})
    ctx = context(root, note, dry_run)
    assert SKILL.trigger(stimulus, ctx)
    action = SKILL.symbolic(SKILL.neuro(stimulus, ctx), ctx)
    assert isinstance(action, Emit)
    return action


def approve(held: Result) -> dict[str, object]:
    """Return the payload a run gets once the user changed ``held`` to APPROVED."""
    properties = dict(held.properties)
    intent = json.loads(properties[APPROVAL_KEY])
    return {**intent, APPROVED_FLAG: True, APPROVED_DIGEST: properties[DIGEST_KEY]}


def test_is_a_skill_and_triggers_on_the_verb(tmp_path: Path) -> None:
    assert isinstance(SKILL, Skill)
    stimulus = delegation({"skill": "summarize", "verb": "tangle", "text": "tangle it"})
    assert SKILL.trigger(stimulus, context(tmp_path, tmp_path / "n.org"))
    other = delegation({"skill": "summarize", "verb": "summarize", "text": "sum up"})
    assert not SKILL.trigger(other, context(tmp_path, tmp_path / "n.org"))


def test_tangles_the_note(tmp_path: Path) -> None:
    note = tmp_path / "n.org"
    note.write_text(NOTE)
    (result,) = run(tmp_path, note).results
    assert result.title == "Tangled: 1 written, 0 unchanged"
    assert result.body == "- written: =run.sh="
    assert (tmp_path / "run.sh").read_text() == "echo hi\n"
    assert note.read_text() == NOTE


def test_target_outside_root_waits_for_approval(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    note = root / "n.org"
    note.write_text(NOTE.replace(":tangle run.sh", ":tangle ../out.sh"))
    (held,) = run(root, note).results
    assert held.kind == "approval" and held.todo == "WAITING"
    assert "it writes =../out.sh= (outside the notes root)" in held.body
    assert not (tmp_path / "out.sh").exists()
    # Approval without the digest of what was shown approves nothing: it asks again.
    (again,) = run(root, note, **{APPROVED_FLAG: True}).results
    assert again.kind == "approval" and not (tmp_path / "out.sh").exists()
    (done,) = run(root, note, **approve(held)).results
    assert done.title == "Tangled: 1 written, 0 unchanged"
    assert (tmp_path / "out.sh").read_text() == "echo hi\n"


def test_dry_run_reports_what_it_would_write_and_writes_nothing(tmp_path: Path) -> None:
    note = tmp_path / "n.org"
    note.write_text(NOTE)
    (result,) = run(tmp_path, note, dry_run=True).results
    assert (result.title, result.body) == (
        "Would tangle: 1 to write, 0 unchanged",
        "- would-write: =run.sh=",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.org"]
    run(tmp_path, note)
    (same,) = run(tmp_path, note, dry_run=True).results
    assert (same.title, same.body) == (
        "Would tangle: 0 to write, 1 unchanged",
        "- unchanged: =run.sh=",
    )


def test_dry_run_of_an_approved_target_outside_the_root_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    note = root / "n.org"
    note.write_text(NOTE.replace(":tangle run.sh", ":tangle ../out.sh"))
    (held,) = run(root, note, dry_run=True).results
    assert held.kind == "approval"
    (preview,) = run(root, note, dry_run=True, **approve(held)).results
    assert (preview.title, preview.body) == (
        "Would tangle: 1 to write, 0 unchanged",
        "- would-write: =../out.sh=",
    )
    assert not (tmp_path / "out.sh").exists()


MIXED = """\
* Code
#+begin_src sh :tangle run.sh
echo hi
#+end_src
#+begin_src sh :tangle same.sh
echo same
#+end_src
#+begin_src sh :tangle risky.sh :tangle-mode (identity #o4755)
echo risky
#+end_src
#+begin_src sh :tangle (concat "x" ".sh")
echo lisp
#+end_src
* @agent tangle this
"""


def test_a_dry_run_answers_with_its_preview_as_a_second_dry_run_would(tmp_path: Path) -> None:
    # Nothing approved, nothing written: the skill reports the preview it tangled to
    # decide on approval instead of tangling the note a second time the same way.
    from orgrouter.skills.tangle_skill import _tangler, summary, write_policy
    from orgrouter.skills.writes import record_for
    from orgrouter.writemode import WriteMode

    note = tmp_path / "n.org"
    note.write_text(MIXED)
    (tmp_path / "same.sh").write_text("echo same\n")
    ctx = context(tmp_path, note, dry_run=True)
    record = record_for(ctx)
    tangler = _tangler(ctx, note, write_policy(ctx, note, record), record, WriteMode.DRY_RUN)
    long_way = summary(tangler.tangle_bytes(note, note.read_bytes()), dry_run=True)
    (result,) = run(tmp_path, note, dry_run=True).results
    assert result == long_way
    assert "would-write: =run.sh=" in result.body and "unchanged: =same.sh=" in result.body
    assert "refused: =risky.sh=" in result.body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.org", "same.sh"]
