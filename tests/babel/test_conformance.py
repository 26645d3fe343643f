"""Conformance with Emacs 28.2 / Org 9.5.5 `org-babel-tangle-file`.

The manifest (``../shared/oracle/expected/tangle.jsonl``) records what Emacs wrote for
every corpus file that tangles: each output's path, sha256 and mode. Files Emacs's
sandbox refused must be refused by us too: Lisp values are reported (never
evaluated), code execution is reported and the block skipped, and targets outside
the file's directory are refused by our root rule.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from orgrouter.babel.document import Document
from orgrouter.babel.plan import lisp_forms
from orgrouter.babel.run import Tangler, TangleReport
from orgrouter.writemode import WriteMode


def tangle_alone(source: Path, sandbox: Path, mkdirs: tuple[str, ...] = ()) -> TangleReport:
    """Copy ``source`` alone into ``sandbox`` (the root) and tangle it there."""
    sandbox.mkdir(parents=True, exist_ok=True)
    copy = sandbox / source.name
    shutil.copyfile(source, copy)
    os.chmod(copy, 0o644)
    for directory in mkdirs:
        (sandbox / directory).mkdir(parents=True, exist_ok=True)
    return Tangler([sandbox], WriteMode.WRITE, display_base=sandbox).run([copy])


def outputs(sandbox: Path, source_name: str) -> dict[str, tuple[str, str]]:
    """Return {relative path: (sha256, mode)} of every file in ``sandbox`` but the source."""
    found: dict[str, tuple[str, str]] = {}
    for directory, _, files in os.walk(sandbox):
        for name in files:
            path = Path(directory) / name
            rel = path.relative_to(sandbox).as_posix()
            if rel == source_name:
                continue
            data = path.read_bytes()
            mode = os.stat(path).st_mode & 0o7777
            found[rel] = (hashlib.sha256(data).hexdigest(), f"{mode:04o}")
    return found


DATA = Path(__file__).resolve().parent.parent / "data" / "tangle"
LIVE_CASES = sorted(p.name for p in DATA.glob("*.org"))


def _manifest(shared_dir: Path) -> list[dict[str, object]]:
    lines = (shared_dir / "oracle" / "expected" / "tangle.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _check_entry(entry: dict[str, object], corpus: Path, sandbox: Path) -> str | None:
    """Return what differs from Emacs for one manifest entry, or None."""
    source = corpus / str(entry["source"])
    mkdirs = tuple(str(d) for d in entry.get("mkdirs", []))  # type: ignore[attr-defined]
    report = tangle_alone(source, sandbox, mkdirs)
    reason = entry.get("skipped_reason")
    if reason is not None:
        ours = {s.reason for _, s in report.blocks_skipped}
        detail = str(entry.get("detail"))
        if reason == "elisp-form":
            doc = Document.from_bytes(source, source.read_bytes())
            if any(detail.startswith(f"line {f.line}:") for f in lisp_forms(doc)):
                ours.add("elisp-form")
        return None if reason in ours else f"expected refusal {reason}, we report {ours}"
    expected = {
        str(o["path"]): (str(o["sha256"]), str(o["mode"]))
        for o in entry["outputs"]  # type: ignore[attr-defined]
    }
    got = outputs(sandbox, source.name)
    for directory in mkdirs:  # created empty beforehand, as the oracle does
        assert (sandbox / directory).is_dir()
    if got != expected:
        differing = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
        return f"outputs differ: {differing[:5]}"
    escapes = sorted(str(s["target"]) for s in entry.get("skipped", []))  # type: ignore[attr-defined]
    refused = sorted(
        _target_name(t.reason)
        for t in report.targets
        if t.action == "refused"
    )
    if refused != escapes:
        return f"refused {refused}, Emacs's sandbox kept out {escapes}"
    return None


def _target_name(reason: str) -> str:
    return reason.split(": ", 1)[0]


@pytest.mark.slow
def test_whole_manifest_matches_emacs(shared_dir: Path, tmp_path: Path) -> None:
    corpus = shared_dir / "corpus"
    entries = _manifest(shared_dir)
    failures = []
    for i, entry in enumerate(entries):
        problem = _check_entry(entry, corpus, tmp_path / str(i))
        if problem is not None:
            failures.append(f"{entry['source']}: {problem}")
    matched = len(entries) - len(failures)
    print(f"tangle conformance: {matched}/{len(entries)} manifest files match Emacs")
    assert len(entries) == 72
    assert failures == []


@pytest.mark.emacs
@pytest.mark.parametrize("name", LIVE_CASES)
def test_tricky_cases_match_live_emacs(name: str, oracle_script: Path, tmp_path: Path) -> None:
    emacs_out = tmp_path / "emacs"
    emacs_out.mkdir()
    run = subprocess.run(
        [str(oracle_script), "tangle", str(DATA / name), str(emacs_out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout.splitlines()[-1])["outputs"]
    ours = tmp_path / "ours"
    report = tangle_alone(DATA / name, ours)
    assert report.failed == [] and report.blocks_skipped == []
    expected = outputs(emacs_out, "")
    assert expected  # the case writes something
    assert outputs(ours, name) == expected


def test_live_cases_exist() -> None:
    assert len(LIVE_CASES) >= 6
    assert all(os.path.getsize(DATA / name) > 0 for name in LIVE_CASES)
    assert shutil.which("python3") is not None
