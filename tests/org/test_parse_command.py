"""``orgrouter parse``: golden outputs, and bad files reported without stopping the run."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orgrouter.cli import main

PARSE = Path(__file__).resolve().parent.parent / "data" / "org" / "parse"


def _run(args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with pytest.raises(SystemExit) as done:
            main(["parse", *args])
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    code = done.value.code
    assert isinstance(code, int)
    return code, out, err


@pytest.mark.parametrize(
    ("option", "suffix"),
    [("--json", ".json"), ("--sexp", ".sexp"), ("--headlines", ".headlines.jsonl")],
)
def test_golden_outputs(option: str, suffix: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run([option, "demo.org"], capsys, PARSE)
    assert (code, err) == (0, "")
    assert out == (PARSE / f"demo{suffix}").read_text(encoding="utf-8")


def test_json_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["demo.org"], capsys, PARSE)
    assert code == 0
    assert out == (PARSE / "demo.json").read_text(encoding="utf-8")


def test_bad_files_are_reported_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.org").write_bytes(b"* one\n")
    (tmp_path / "latin1.org").write_bytes(b"* ok\n* caf\xe9\n")
    (tmp_path / "nul.org").write_bytes(b"* a\nb\x00c\n")
    (tmp_path / "x.org").mkdir()
    code, out, err = _run(
        ["--headlines", "latin1.org", "nul.org", "x.org", "good.org"],
        capsys,
        tmp_path,
    )
    assert code == 3
    assert out == (
        '{"file":"good.org","level":1,"raw":"one","todo":null,"priority":null,'
        '"commented":false,"archived":false,"tags":[],"byte":0,"line":1}\n'
    )
    assert err.splitlines() == [
        "orgrouter: error: latin1.org:2:6: invalid UTF-8 at byte 10 (0xe9): "
        "Org files must be UTF-8",
        "orgrouter: error: nul.org:2:2: NUL byte at byte 5: this looks like a binary file, "
        "not an Org note",
        "orgrouter: error: x.org: is a directory, not an Org file",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "secret.org"
    secret.write_bytes(b"* x\n")
    secret.chmod(0)
    code, out, err = _run(["--json", "secret.org"], capsys, tmp_path)
    assert (code, out) == (3, "")
    assert err == "orgrouter: error: secret.org: permission denied: cannot read the file\n"


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.org").write_bytes(b"")
    assert _run(["--headlines", "empty.org"], capsys, tmp_path) == (0, "", "")
    code, out, _ = _run(["--json", "empty.org"], capsys, tmp_path)
    assert (code, out) == (
        0,
        '{"type":"org-data","properties":{"begin":0,"end":0,"line":1},"contents":[]}\n',
    )
    code, out, _ = _run(["--sexp", "empty.org"], capsys, tmp_path)
    assert (code, out) == (
        0,
        "(:type :ORG-DATA :properties (:BEGIN 0 :END 0 :LINE 1) :contents ())\n",
    )


def test_no_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["parse", "--json"])
    assert done.value.code == 2
    assert "Missing argument" in capsys.readouterr().err


@pytest.mark.emacs
def test_emacs_reads_the_sexp_and_finds_the_title(emacs: str, tmp_path: Path) -> None:
    # The seed's find-agent-request walks :type, :properties :TITLE and :contents.
    walker = (
        "(let* ((tree (with-temp-buffer (insert-file-contents (car command-line-args-left))"
        " (read (current-buffer)))) (found nil))"
        " (cl-labels ((walk (n) (when (and (eq (plist-get n :type) :HEADLINE)"
        ' (string-match-p "@agent" (plist-get (plist-get n :properties) :TITLE)))'
        " (push (plist-get (plist-get n :properties) :TITLE) found))"
        " (mapc #'walk (plist-get n :contents)))) (walk tree))"
        ' (princ (format "%S" found)) (setq command-line-args-left nil))'
    )
    result = subprocess.run(
        [emacs, "-Q", "--batch", "--eval", "(require 'cl-lib)", "--eval", walker,
         str(PARSE / "demo.sexp")],
        capture_output=True, check=True,
    )  # fmt: skip
    assert result.stdout.decode("utf-8") == '("Ask @agent summarize this")'


def test_version_does_not_import_parsers() -> None:
    code = (
        "import sys; from orgrouter.cli import main\n"
        "try:\n main(['--version'])\nexcept SystemExit: pass\n"
        "import orgrouter.commands.parse, orgrouter.org.document\n"
        "print(sorted(m for m in ('orgparse', 'lark', 'httpx', 'orgrouter.org.ast')"
        " if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert result.stdout.decode().splitlines()[-1] == "[]"


def test_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"* TODO x :t:\n")))
    code, out, err = _run(["--headlines", "-"], capsys, tmp_path)
    assert (code, err) == (0, "")
    assert out == (
        '{"file":"-","level":1,"raw":"x","todo":"TODO","priority":null,'
        '"commented":false,"archived":false,"tags":["t"],"byte":0,"line":1}\n'
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"* a\n\xff\n")))
    code, out, err = _run(["--json", "-"], capsys, tmp_path)
    assert (code, out) == (3, "")
    assert err == (
        "orgrouter: error: <stdin>:2:1: invalid UTF-8 at byte 4 (0xff): Org files must be UTF-8\n"
    )
