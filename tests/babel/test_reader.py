"""Tangle reads notes through the one reader/decoder, as a visiting Emacs does.

``org-babel-tangle-file`` visits the note, so Emacs decides BOM and line ends (dos, mac)
before Babel sees a line; ``Document.from_bytes`` does the same through
``io.text.as_visited``, and a note that cannot be read fails by name, as a route does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from orgrouter.babel.document import Document
from orgrouter.babel.run import Tangler
from orgrouter.writemode import WriteMode

BOM = b"\xef\xbb\xbf"
NOTE = b"* code\n#+begin_src sh :tangle out.sh\necho a\necho b\n#+end_src\n"
STYLES = {
    "lf": NOTE,
    "crlf": NOTE.replace(b"\n", b"\r\n"),
    "cr": NOTE.replace(b"\n", b"\r"),  # classic Mac: Emacs visits it with mac EOL
    "bom-cr": BOM + NOTE.replace(b"\n", b"\r"),
    "bom-crlf": BOM + NOTE.replace(b"\n", b"\r\n"),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_line_end_style_reads_as_the_lf_note(style: str) -> None:
    doc = Document.from_bytes(Path("n.org"), STYLES[style])
    assert doc.text == NOTE.decode()
    assert [block.value for block in doc.blocks] == ["echo a\necho b\n"]


@pytest.mark.emacs
@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_style_tangles_what_a_visiting_emacs_tangles(
    emacs: str, tmp_path: Path, style: str
) -> None:
    theirs, ours = tmp_path / "emacs", tmp_path / "ours"
    for directory in (theirs, ours):
        directory.mkdir()
        (directory / "n.org").write_bytes(STYLES[style])
    subprocess.run(
        [emacs, "-Q", "--batch", "--eval",
         '(progn (require (quote ob-tangle)) (org-babel-tangle-file "n.org"))'],
        cwd=theirs, capture_output=True, check=True,
    )  # fmt: skip
    report = Tangler([ours], WriteMode.WRITE).run([ours / "n.org"])
    assert report.failed == []
    assert (ours / "out.sh").read_bytes() == (theirs / "out.sh").read_bytes() == b"echo a\necho b\n"


def test_a_note_that_cannot_be_read_fails_by_name_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "dir.org").mkdir()
    (tmp_path / "binary.org").write_bytes(b"#+begin_src sh :tangle x.sh\n\0\n#+end_src\n")
    (tmp_path / "good.org").write_bytes(NOTE)
    names = ["dir.org", "binary.org", "good.org"]
    report = Tangler([tmp_path], WriteMode.WRITE).run([tmp_path / n for n in names])
    failed = "\n".join(text for _path, text in report.failed)
    assert "dir.org: is a directory, not an Org file" in failed
    assert "binary.org:2:1: NUL byte at byte 28" in failed
    assert (tmp_path / "out.sh").read_bytes() == b"echo a\necho b\n"
