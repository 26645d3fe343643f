"""Under ``#+STARTUP: odd`` a result goes to the next odd level, as Org inserts a child."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from route_cli import run_cli

from orgrouter.org.edit import child_level

NOW = "2026-11-30T09:00"
NOTE = """\
#+STARTUP: overview odd
* Tasks
*** @agent create a todo to buy milk
***** a note of mine
* Even, as a user may write it
** @agent create a todo to buy eggs
"""
# For each result: its stars, its parent's, and the level org-get-valid-level gives a
# child of that parent, all as Emacs sees them after the file's #+STARTUP.
ELISP = r"""
(progn
  (require 'org) (require 'json)
  (with-temp-buffer
    (insert-file-contents (car command-line-args-left))
    (org-mode)
    (org-map-entries
     (lambda ()
       (when (org-entry-get nil "ORGROUTER_RESULT")
         (let* ((level (org-current-level))
                (parent (save-excursion (and (org-up-heading-safe) (org-current-level)))))
           (princ (json-encode (list level parent (org-get-valid-level parent 1)
                                     (if org-odd-levels-only 1 0))))
           (terpri))))))
  (kill-emacs 0))
"""


def route(tmp: Path, path: Path) -> None:
    """Route ``path`` quietly on the state database under ``tmp``."""
    state = ["--state", str(tmp / "state.db")]
    code, _out, err = run_cli(["route", "-q", "--now", NOW, *state, str(path)], tmp)
    assert (code, err) == (0, "")


def test_child_level_follows_org_get_valid_level() -> None:
    assert [child_level(n) for n in (1, 2, 3)] == [2, 3, 4]
    assert [child_level(n, odd_levels=True) for n in (1, 2, 3, 4, 5)] == [3, 3, 5, 5, 7]


def test_results_go_to_the_next_odd_level_and_replace_there(tmp_path: Path) -> None:
    path = tmp_path / "odd.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    routed = path.read_text()
    assert "\n***** TODO buy milk\n" in routed and "\n*** TODO buy eggs\n" in routed
    path.write_text(routed.replace("todo to buy milk\n", "todo to buy bread\n"))
    route(tmp_path, path)
    again = path.read_text()
    assert "\n***** TODO buy bread\n" in again and "buy milk\n" not in again
    assert again.count(":ORGROUTER_RESULT:") == 2


@pytest.mark.parametrize("startup", ["odd oddeven", "oddeven"])
def test_oddeven_keeps_one_star_deeper(tmp_path: Path, startup: str) -> None:
    path = tmp_path / "even.org"
    path.write_text(NOTE.replace("overview odd", startup))
    route(tmp_path, path)
    assert "\n**** TODO buy milk\n" in path.read_text()


@pytest.mark.emacs
def test_emacs_reads_odd_level_results_as_children(emacs: str, tmp_path: Path) -> None:
    path = tmp_path / "odd.org"
    path.write_text(NOTE)
    route(tmp_path, path)
    done = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", ELISP, str(path)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert rows == [[5, 3, 5, 1], [3, 2, 3, 1]]
