"""Emacs itself agrees with locate_head on tricky files and on the whole shared corpus."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from orgrouter.org.drawer import locate_head
from orgrouter.org.scan import iter_headline_lines

# For each file listed in argv[1]: one JSON line with, per headline, the byte spans of
# its planning line and property drawer (up to the end of the :END: line) and the
# drawer's node properties, as org-element sees them. Files are read as utf-8-unix,
# like the conformance oracle.
HEADS_EL = r"""
(require 'org) (require 'org-element) (require 'json)
(defun hb (pos) (1- (position-bytes pos)))
(defun nextline (pos)
  (save-excursion (goto-char pos) (if (eobp) (point) (forward-line 1) (point))))
(defun end-line (dr)
  (save-excursion (goto-char (org-element-property :begin dr))
                  (re-search-forward "^[ \t]*:END:[ \t]*$") (line-beginning-position)))
(let ((files (split-string (with-temp-buffer
                             (insert-file-contents (car command-line-args-left))
                             (buffer-string)) "\n" t)))
  (dolist (f files)
    (with-temp-buffer
      (let ((coding-system-for-read 'utf-8-unix)) (insert-file-contents f))
      (let ((org-inhibit-startup t)) (delay-mode-hooks (org-mode)))
      (let (res)
        (org-element-map (org-element-parse-buffer 'element) 'headline
          (lambda (h)
            (let* ((sec (car (org-element-contents h)))
                   (kids (and (eq (org-element-type sec) 'section)
                              (org-element-contents sec)))
                   (pl (and (eq (org-element-type (car kids)) 'planning) (car kids)))
                   (dr (let ((k (if pl (cadr kids) (car kids))))
                         (and (eq (org-element-type k) 'property-drawer) k))))
              (push
               (list
                (cons 'byte (hb (org-element-property :begin h)))
                (cons 'planning
                      (and pl (vector (hb (org-element-property :begin pl))
                                      (hb (nextline (org-element-property :begin pl))))))
                (cons 'drawer
                      (and dr (vector (hb (org-element-property :begin dr))
                                      (hb (nextline (end-line dr))))))
                (cons 'props
                      (and dr (vconcat
                               (mapcar (lambda (p)
                                         (vector (org-element-property :key p)
                                                 (org-element-property :value p)
                                                 (hb (org-element-property :begin p))))
                                       (org-element-contents dr))))))
               res))))
        (princ (json-encode (list (cons 'file f) (cons 'heads (vconcat (nreverse res))))))
        (terpri)))))
(setq command-line-args-left nil)
"""

TRICKY = {
    "planning_and_drawer.org": (
        b"* TODO a\nSCHEDULED: <2024-01-02 Tue> DEADLINE: <2024-01-05>\n"
        b":PROPERTIES:\n:ID: abc\n:Empty:\n:a:b: c d \t\n:END:\nbody\n"
    ),
    "refused.org": (
        b"* blank before\n\n:PROPERTIES:\n:A: 1\n:END:\n"
        b"* text before\ntext\n:PROPERTIES:\n:A: 1\n:END:\n"
        b"* blank inside\n:PROPERTIES:\n:A: 1\n\n:END:\n"
        b"* tab after key\n:PROPERTIES:\n:A:\t1\n:END:\n"
        b"* junk line\n:PROPERTIES:\nnot a property\n:END:\n"
        b"* nbsp key\n:PROPERTIES:\n:a\xc2\xa0b: 1\n:END:\n"
        b"* clock first\nCLOCK: [2024-01-01 Mon 10:00]\n:PROPERTIES:\n:END:\n"
        b"* planning then blank\nDEADLINE: <2024-01-01>\n\n:PROPERTIES:\n:A: 1\n:END:\n"
        b"* never closed\n:PROPERTIES:\n:A: 1\n"
    ),
    "case_and_indent.org": (
        b"* a\n  scheduled: whenever\n  :properties:\n  :X: \xc3\xa9 y  \n  :end:  \n"
        b"* b\n:PROPERTIES:\n:END: not the end\n:END:\n"
        b"* c\n:PROPERTIES:\n:END:\n"
        b"* d\n\t:PROPERTIES: \t\n\t:K:    spaced   value\t\n\t:END:\n"
    ),
    "crlf_as_unix.org": b"* a\r\nDEADLINE: <2024-01-01>\r\n:PROPERTIES:\r\n:A: 1\r\n:END:\r\n",
    "eof_drawer.org": b"* a\n:PROPERTIES:\n:A: 1\n:END:",
    "eof_headline.org": b"x\n* last",
    "eof_planning.org": b"* a\nCLOSED: [2024-01-01 Mon 09:00]",
    "property_lines.org": b"".join(
        b"* h\n:PROPERTIES:\n" + line + b"\n:END:\n"
        for line in [
            b":a:b: c",
            b":a: b:",
            b":K:   ",
            b":K:\t\t",
            b"  :K: \tv\t ",
            b":K:\tv",
            b":K:v",
            b"::",
            b":K",
            b":K: " + b" " * 300 + b"x  ",
        ]
    ),
    "nested.org": b"* a\n** b\n:PROPERTIES:\n:K: v\n:END:\n*** c\nSCHEDULED: <2024-01-01>\n",
}


def _run_emacs(emacs: str, names: list[str], cwd: Path, work: Path) -> list[dict[str, Any]]:
    (work / "heads.el").write_text(HEADS_EL, encoding="utf-8")
    (work / "files.list").write_text("\n".join(names) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(work / "heads.el"), str(work / "files.list")],
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    return [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]


def _ours(data: bytes) -> list[dict[str, Any]]:
    heads = []
    for headline in iter_headline_lines(data):
        head = locate_head(data, headline)
        drawer = head.drawer
        heads.append(
            {
                "byte": headline.begin,
                "planning": [head.planning.begin, head.planning.end] if head.planning else None,
                "drawer": [drawer.begin, drawer.end] if drawer else None,
                "props": [[p.key, p.value, p.begin] for p in drawer.properties] if drawer else None,
            }
        )
    return heads


@pytest.mark.emacs
def test_tricky_files_agree_with_emacs(emacs: str, tmp_path: Path) -> None:
    for name, data in TRICKY.items():
        (tmp_path / name).write_bytes(data)
    records = _run_emacs(emacs, sorted(TRICKY), tmp_path, tmp_path)
    assert [r["file"] for r in records] == sorted(TRICKY)
    for record in records:
        assert _ours(TRICKY[record["file"]]) == record["heads"], record["file"]
    # The cases are not vacuous: Emacs found drawers and refused others.
    found = [h["drawer"] is not None for r in records for h in r["heads"]]
    assert found.count(True) == 13
    assert found.count(False) == 18


@pytest.mark.emacs
@pytest.mark.slow
def test_whole_corpus_agrees_with_emacs(emacs: str, corpus_dir: Path, tmp_path: Path) -> None:
    names = sorted(str(p.relative_to(corpus_dir)) for p in corpus_dir.rglob("*.org") if p.is_file())
    records = _run_emacs(emacs, names, corpus_dir, tmp_path)
    assert len(records) == len(names)
    mismatched = [
        r["file"] for r in records if _ours((corpus_dir / r["file"]).read_bytes()) != r["heads"]
    ]
    assert mismatched == []
    drawers = sum(h["drawer"] is not None for r in records for h in r["heads"])
    assert drawers > 0
