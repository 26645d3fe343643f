"""Emacs reads what write-back wrote: every result is a child of its request, with its
property drawer and planning line where Org accepts them.

Each golden ``NAME.expected.org`` is opened by real Emacs (Org 9.5) in batch mode;
``org-entry-get`` only sees properties and SCHEDULED/DEADLINE that sit exactly where
Org expects them, so a misplaced drawer or planning line fails here.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "route"
EXPECTED = sorted(DATA.glob("*.expected.org"))

ELISP = r"""
(progn
  (require 'org)
  (require 'json)
  (dolist (file command-line-args-left)
    (with-temp-buffer
      (insert-file-contents file)
      (let ((org-todo-keywords '((sequence "TODO" "WAITING" "|" "DONE" "APPROVED" "REJECTED"))))
        (org-mode)
        (org-map-entries
         (lambda ()
           (let ((id (org-entry-get nil "ORGROUTER_RESULT")))
             (when id
               (let ((level (org-current-level))
                     (scheduled (org-entry-get nil "SCHEDULED"))
                     (deadline (org-entry-get nil "DEADLINE"))
                     (kind (org-entry-get nil "ORGROUTER_KIND"))
                     (parent-hash (save-excursion
                                    (and (org-up-heading-safe)
                                         (org-entry-get nil "ORGROUTER_HASH"))))
                     (parent-level (save-excursion
                                     (and (org-up-heading-safe) (org-current-level)))))
                 (princ (json-encode
                         (list (cons 'file file) (cons 'id id) (cons 'level level)
                               (cons 'kind kind)
                               (cons 'parent_hash parent-hash)
                               (cons 'parent_level parent-level)
                               (cons 'scheduled scheduled) (cons 'deadline deadline))))
                 (terpri)))))))))
  (kill-emacs 0))
"""


@pytest.fixture(scope="module")
def emacs_results(emacs: str) -> dict[str, list[dict[str, object]]]:
    """Return what Emacs finds in every expected file, from one Emacs process."""
    done = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", ELISP, *map(str, EXPECTED)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    found: dict[str, list[dict[str, object]]] = {str(p): [] for p in EXPECTED}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            found[entry["file"]].append(entry)
    return found


@pytest.mark.emacs
@pytest.mark.parametrize("path", EXPECTED, ids=[p.stem for p in EXPECTED])
def test_emacs_sees_results_as_children(
    emacs_results: dict[str, list[dict[str, object]]], path: Path
) -> None:
    text = path.read_text(encoding="utf-8")
    written = re.findall(r"^:ORGROUTER_RESULT: (\S+)", text, re.MULTILINE)
    seen = emacs_results[str(path)]
    assert [entry["id"] for entry in seen] == written
    for entry in seen:
        assert entry["parent_hash"] is not None, entry  # a child of its request
        assert entry["level"] == entry["parent_level"] + 1  # type: ignore[operator]
    planned = re.findall(  # results' planning lines (not the user's own)
        r"^(SCHEDULED|DEADLINE): (<[^>]+>)\r?\n:PROPERTIES:\r?\n:ORGROUTER_RESULT:",
        text,
        re.MULTILINE,
    )
    from_emacs = [
        (key.upper(), entry[key])
        for entry in seen
        for key in ("scheduled", "deadline")
        if entry[key]
    ]
    assert from_emacs == planned
