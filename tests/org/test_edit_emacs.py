"""Emacs reads the golden edit outputs the way we do: our drawers are Org's drawers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_drawer_emacs import _ours, _run_emacs  # the sibling module's Emacs harness

from orgrouter.io.text import BOM, detect_newline
from orgrouter.org.drawer import locate_head
from orgrouter.org.edit import AddTag, plan_edits
from orgrouter.org.scan import iter_headline_lines

CASES = Path(__file__).resolve().parent.parent / "data" / "edit"


@pytest.mark.emacs
def test_golden_outputs_agree_with_emacs(emacs: str, tmp_path: Path) -> None:
    # The harness reads files as utf-8-unix, where byte offsets match ours; the CRLF +
    # BOM case is checked as Emacs visits it, by line, in the test below.
    names = [
        p.name
        for p in sorted(CASES.glob("*.out.org"))
        if b"\r\n" not in p.read_bytes() and not p.read_bytes().startswith(BOM)
    ]
    assert len(names) >= 8
    records = _run_emacs(emacs, names, CASES, tmp_path)
    results = 0
    for record in records:
        data = (CASES / record["file"]).read_bytes()
        assert _ours(data) == record["heads"], record["file"]
        results += sum(
            any(prop[0] == "ORGROUTER_RESULT" for prop in head["props"] or [])
            for head in record["heads"]
        )
    # Every child appended by the golden cases is a headline with a drawer to Emacs.
    assert results == 9


# Visit a file the way a user does (coding and line ends detected, BOM dropped) and list
# its headlines and node properties by line number.
VISIT_EL = r"""
(require 'org) (require 'org-element)
(with-temp-buffer
  (insert-file-contents (car command-line-args-left))
  (princ (format "coding %S\n" buffer-file-coding-system))
  (let ((org-inhibit-startup t)) (delay-mode-hooks (org-mode)))
  (let ((tree (org-element-parse-buffer 'element)))
    (org-element-map tree 'headline
      (lambda (h)
        (princ (format "headline %d %d %S\n"
                       (line-number-at-pos (org-element-property :begin h))
                       (org-element-property :level h)
                       (org-element-property :tags h)))))
    (org-element-map tree 'node-property
      (lambda (p)
        (princ (format "property %d %s %s\n"
                       (line-number-at-pos (org-element-property :begin p))
                       (org-element-property :key p)
                       (org-element-property :value p)))))))
(setq command-line-args-left nil)
"""


@pytest.mark.emacs
def test_crlf_bom_output_as_emacs_visits_it(emacs: str, tmp_path: Path) -> None:
    name = "crlf_bom_no_final_newline.out.org"
    data = (CASES / name).read_bytes()
    (tmp_path / "visit.el").write_text(VISIT_EL, encoding="utf-8")
    proc = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(tmp_path / "visit.el"), str(CASES / name)],
        capture_output=True,
        check=True,
    )
    newline = detect_newline(data)
    assert newline == b"\r\n"
    headlines, props = [], []
    for line in list(iter_headline_lines(data)):
        headlines.append(f"headline {line.line} {line.level} {_tags(data, line.begin, newline)}")
        drawer = locate_head(data, line, newline=newline).drawer
        if drawer is not None:
            props += [f"property {p.line} {p.key} {p.value}" for p in drawer.properties]
    expected = ["coding utf-8-with-signature-dos", *headlines, *props]
    assert proc.stdout.decode("utf-8").splitlines() == expected
    assert len(props) == 3


def _tags(data: bytes, begin: int, newline: bytes) -> str:
    """Return the case's tags on a headline as Emacs prints them: nil or ("done")."""
    # Adding a tag that is already there plans nothing.
    there = not plan_edits(data, [AddTag(begin, "done")], newline=newline)
    return '("done")' if there else "nil"


# What Org reads in a result body: its elements in order, a keyword's key, a block's
# type and (for src and example blocks) the value once Org has removed the commas.
ELEMENTS_EL = r"""
(require 'org) (require 'org-element)
(with-temp-buffer
  (insert-file-contents (car command-line-args-left))
  (let ((org-inhibit-startup t)) (delay-mode-hooks (org-mode)))
  (org-element-map (org-element-parse-buffer) org-element-all-elements
    (lambda (e)
      (let ((type (org-element-type e)))
        (unless (memq type '(section property-drawer node-property))
          (princ (format "%s %S %S\n" type
                         (or (org-element-property :key e)
                             (org-element-property :type e)
                             (org-element-property :raw-value e))
                         (org-element-property :value e))))))))
(setq command-line-args-left nil)
"""


@pytest.mark.emacs
def test_a_safe_body_keeps_its_blocks_and_sets_nothing(emacs: str, tmp_path: Path) -> None:
    (tmp_path / "elements.el").write_text(ELEMENTS_EL, encoding="utf-8")
    proc = subprocess.run(
        [
            emacs,
            "-Q",
            "--batch",
            "-l",
            str(tmp_path / "elements.el"),
            str(CASES / "safe_body.out.org"),
        ],
        capture_output=True,
        check=True,
    )
    # Three headlines (no new one), no keyword (no #+TITLE or #+SETUPFILE for the file),
    # the src block whole with Org's comma removed, the quote and example blocks kept.
    assert proc.stdout.decode("utf-8").split("\n") == [
        'headline "Notes" nil',
        'headline "@agent explain" nil',
        'headline "Explanation" nil',
        "paragraph nil nil",
        "plain-list unordered nil",
        "item nil nil",
        "paragraph nil nil",
        "paragraph nil nil",
        'src-block nil "squares = [x * x for x in range(3)]',
        "* escaped in code",
        '"',
        "quote-block nil nil",
        "paragraph nil nil",
        "paragraph nil nil",
        'example-block nil ""',
        "paragraph nil nil",
        "",
    ]
