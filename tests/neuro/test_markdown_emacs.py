"""Emacs's own parser agrees: converted model text adds no headline or keyword, and
each fenced block comes back from Org with exactly the code the model wrote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from orgrouter.neuro.markdown import markdown_to_org

CASES = Path(__file__).resolve().parent.parent / "data" / "neuro" / "markdown"
ELISP = """
(progn
  (require 'org)
  (require 'json)
  (find-file (car command-line-args-left))
  (org-mode)
  (let* ((tree (org-element-parse-buffer))
         (count (lambda (type) (length (org-element-map tree type #'identity)))))
    (princ (json-encode
            (list (cons 'headlines (funcall count 'headline))
                  (cons 'keywords (funcall count 'keyword))
                  (cons 'quotes (funcall count 'quote-block))
                  (cons 'src (org-element-map tree 'src-block
                               (lambda (b) (vector (org-element-property :language b)
                                                   (org-element-property :value b))))))))))
"""


def org_view(emacs: str, path: Path) -> dict[str, object]:
    done = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", ELISP, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(done.stdout))


@pytest.mark.emacs
def test_emacs_sees_the_code_the_model_wrote_and_no_new_structure(
    emacs: str, tmp_path: Path
) -> None:
    body = markdown_to_org((CASES / "fences.md").read_text(encoding="utf-8"))
    note = tmp_path / "note.org"
    note.write_text(f"* Result\n{body}\n", encoding="utf-8")
    assert org_view(emacs, note) == {
        "headlines": 1,
        "keywords": 0,
        "quotes": 0,
        "src": [
            [
                "python",
                '* not a headline\n#+TITLE: not a keyword\n,* already escaped once\nprint("hi")\n',
            ],
            ["sh", '  echo "* star"\n'],  # in a list item; Org strips it on tangle
            ["emacs-lisp", '(message "unclosed fence")\n'],
        ],
    }


@pytest.mark.emacs
def test_emacs_sees_no_structure_in_hostile_markdown(emacs: str, tmp_path: Path) -> None:
    body = markdown_to_org((CASES / "structure.md").read_text(encoding="utf-8"))
    note = tmp_path / "note.org"
    note.write_text(f"* Result\n{body}\n", encoding="utf-8")
    assert org_view(emacs, note) == {"headlines": 1, "keywords": 0, "quotes": 1, "src": None}
