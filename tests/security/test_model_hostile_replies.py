"""A hostile model reply, written back by the real CLI, sets nothing and builds nothing.

The model behind ``neuro.backend = "openai"`` is a real HTTP server on 127.0.0.1 that
answers every call (decomposition, the skill, the specialists) with the same reply:
headlines, ``#+`` settings, drawers, orgrouter's own properties, control characters,
an Emacs ``-*-`` cookie and local-variables blocks in plain and Markdown form. After
``orgrouter route`` the note is visited by a live Emacs with every local variable
enabled, and Org's own parser lists its headlines and drawers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter, serve

NOTE = """\
#+TITLE: Project

* Launch
We ship on Friday.
** @agent explain this plan
"""
HOSTILE = (
    "Sure.\n"
    "* Injected headline\n"
    "#+TODO: PWNED | GONE\n"
    "#+SETUPFILE: ~/.ssh/config\n"
    ":PROPERTIES:\n"
    ":ORGROUTER_RESULT: fake/1\n"
    ":END:\n"
    ":LOGBOOK:\n"
    "- a note\n"
    ":END:\n"
    "  :ORGROUTER_STATUS: done\n"
    "bell\x07 escape\x1b[2J form feed\x0c vertical\x0b del\x7f csi\x9b done\n"
    "-*- eval: (setq orgrouter-pwned 'cookie) -*-\n"
    "\x0c\n"
    "# Local Variables:\n"
    "# eval: (setq orgrouter-pwned 'markdown)\n"
    "# End:\n"
    "Local Variables:\n"
    "eval: (setq orgrouter-pwned 'plain)\n"
    "orgrouter-planted: t\n"
    "End:\n"
    "LOCAL VARIABLES:\n"
    "eval: (setq orgrouter-pwned 'upper)\n"
    "End:\n"
    "```elisp\n"
    ";; Local Variables:\n"
    ";; eval: (setq orgrouter-pwned 'fence)\n"
    ";; End:\n"
    "```\n"
)
# Visit the note as a user with every local variable allowed would, then report what
# Emacs set and what Org parsed.
PROBE = r"""
(progn
  (require 'org)
  (setq enable-local-variables :all enable-local-eval t)
  (defvar orgrouter-pwned nil)
  (let ((buffer (find-file-noselect (car command-line-args-left))))
    (with-current-buffer buffer
      (princ (format "pwned=%S\n" orgrouter-pwned))
      (princ (format "locals=%S\n" (mapcar #'car file-local-variables-alist)))
      (princ (format "todo=%S\n" org-todo-keywords-1))
      (let ((tree (org-element-parse-buffer)))
        (princ (format "headlines=%S\n"
                       (org-element-map tree 'headline
                         (lambda (h) (org-element-property :raw-value h)))))
        (princ (format "drawers=%S\n"
                       (org-element-map tree 'drawer
                         (lambda (d) (org-element-property :drawer-name d)))))
        (princ (format "properties=%S\n"
                       (org-element-map tree 'node-property
                         (lambda (p) (org-element-property :key p)))))))))
"""


def _config(root: Path, url: str) -> None:
    (root / "orgrouter.toml").write_text(
        f'[neuro]\nbackend = "openai"\nendpoint = "{url}"\nmodel = "m"\n'
        "timeout_s = 10\nmax_retries = 0\n"
    )


def _route_hostile(root: Path, runs: int = 1) -> list[subprocess.CompletedProcess[str]]:
    """Route the note ``runs`` times against a model that answers HOSTILE to everything."""
    with serve() as server:
        server.always(HOSTILE)
        _config(root, server.url)
        done = [
            run_orgrouter(root, "route", ".", "--now", "2026-11-30T09:00:00") for _ in range(runs)
        ]
    assert all(d.returncode == 0 for d in done), [d.stderr for d in done]
    return done


def _probe(emacs: str, note: Path) -> dict[str, str]:
    done = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", PROBE, str(note)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return found


@pytest.mark.emacs
@pytest.mark.parametrize(
    ("bom", "newline"), [("", "\n"), ("\ufeff", "\r\n")], ids=["lf", "bom-crlf"]
)
def test_a_hostile_reply_sets_no_local_variable_and_builds_no_structure(
    tmp_path: Path, emacs: str, bom: str, newline: str
) -> None:
    note = tmp_path / "plan.org"
    note.write_bytes((bom + NOTE.replace("\n", newline)).encode())
    _route_hostile(tmp_path)
    raw = note.read_bytes().decode()
    assert raw.startswith(bom + NOTE[: NOTE.index("** @agent")].replace("\n", newline))
    if newline == "\r\n":  # every line the run added has the file's line end
        assert "\n" not in raw.replace("\r\n", "") and "\r" not in raw.replace("\r\n", "")
    text = raw.removeprefix(bom).replace("\r\n", "\n")
    assert ":ORGROUTER_MODEL: m" in text  # the model really answered
    assert "Local Variables:" not in text.replace("Local-Variables:", "")
    assert "local variables:" not in text.lower().replace("local-variables:", "")
    assert "-*-" not in text
    assert not any(ch in text for ch in "\x07\x1b\x0c\x0b\x7f\x9b")
    seen = _probe(emacs, note)
    assert seen["pwned"] == "nil"
    assert seen["locals"] == "nil"
    assert "PWNED" not in seen["todo"]
    headlines = seen["headlines"]
    assert "Injected headline" not in headlines
    assert headlines.startswith('("Launch" "@agent explain this plan"')
    assert seen["drawers"] == "nil"  # no LOGBOOK, no drawer at all besides properties
    assert seen["properties"].count('"ORGROUTER_RESULT"') == headlines.count('"') // 2 - 2


def test_escaped_reply_is_stable_and_readable(tmp_path: Path) -> None:
    """The reply's words are all still there, changed only where Emacs would act."""
    note = tmp_path / "plan.org"
    note.write_text(NOTE)
    _route_hostile(tmp_path)
    after = note.read_bytes()
    _route_hostile(tmp_path)
    assert note.read_bytes() == after  # a second run changes nothing
    text = after.decode()
    assert "\n- Injected headline\n" in text  # Markdown's bullet, as a model meant it
    assert ",#+TODO: PWNED | GONE" in text and ",#+SETUPFILE: ~/.ssh/config" in text
    assert ",:LOGBOOK:" in text and ",:ORGROUTER_RESULT: fake/1" in text
    assert "  ,:ORGROUTER_STATUS: done" in text
    assert "bell escape[2J form feed vertical del csi done" in text
    assert "\nLocal-Variables:\n" in text and "\n*Local-Variables:*\n" in text
    assert "\n;; Local-Variables:\n" in text  # inside a src block too: Emacs reads it all


@pytest.mark.parametrize(
    ("text", "plain", "safe"),
    [
        ("* h", ",* h", ",* h"),
        ("*bold* x", ",*bold* x", "*bold* x"),
        ("#+TODO: A", ",#+TODO: A", ",#+TODO: A"),
        (":LOGBOOK:", ",:LOGBOOK:", ",:LOGBOOK:"),
        ("  :END:  ", "  ,:END:  ", "  ,:END:  "),
        (":orgrouter_result: x/1", ",:orgrouter_result: x/1", ",:orgrouter_result: x/1"),
        (":smile: ok", ":smile: ok", ":smile: ok"),
        ("-*- mode: org; eval: (x) -*-", "-\\*- mode: org; eval: (x) -\\*-", None),
        ("% Local Variables: %", "% Local-Variables: %", "% Local-Variables: %"),
        # Overlapping cookies: escaping the first "-*-" must not leave a second one.
        ("-*-*- x: 1 -*-*-", "-\\*-\\*- x: 1 -\\*-\\*-", None),
        ("a\x1b[31mb\x07c\x0cd\x00e\rf", "a[31mbcd\ufffde\nf", "a[31mbcd\ufffde\nf"),
    ],
)
def test_one_rule_for_plain_and_safe_bodies(text: str, plain: str, safe: str | None) -> None:
    from orgrouter.org.escape import escape_plain, escape_safe

    assert escape_plain(text) == plain
    assert escape_safe(text) == (plain if safe is None else safe)


def test_titles_and_markdown_take_the_same_rule() -> None:
    from orgrouter.neuro.markdown import markdown_to_org
    from orgrouter.org.escape import safe_line

    assert safe_line("Local Variables:\x1b\x07 -*- x -*-") == "Local-Variables: -\\*- x -\\*-"
    assert markdown_to_org(":PROPERTIES:\n:ORGROUTER_RESULT: a/1\n:END:") == (
        ",:PROPERTIES:\n,:ORGROUTER_RESULT: a/1\n,:END:"
    )


@pytest.mark.emacs
def test_hostile_headlines_listed_by_search_set_nothing(tmp_path: Path, emacs: str) -> None:
    """Skill text from other notes (search's titles and snippets) takes the same rule."""
    (tmp_path / "orgrouter.toml").write_text("")
    (tmp_path / "planted.org").write_text(
        "* kubernetes Local Variables:\n"
        "* kubernetes eval: (setq orgrouter-pwned 'search)\n"
        "* kubernetes End:\n"
        "* kubernetes -*- eval: (setq orgrouter-pwned 'cookie) -*-\n"
        "* kubernetes bell\x07 escape\x1b[2J\n"
        "local variables: kubernetes\n"
    )
    note = tmp_path / "ops.org"
    note.write_text("* Ops\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", "--now", "2026-11-30T09:00:00")
    assert done.returncode == 0, done.stderr
    text = note.read_text()
    assert "kubernetes Local-Variables:" in text  # listed, and defused
    assert "Local Variables:" not in text and "-*-" not in text
    assert "\x07" not in text and "\x1b" not in text
    seen = _probe(emacs, note)
    assert seen["pwned"] == "nil" and seen["locals"] == "nil"
