"""The whole route pipeline on copies of real corpus files with requests inserted.

A deterministic sample of corpus files of different shapes (small and large, CRLF,
no final newline, deep outlines, src blocks, property drawers, files with no
headline) gets requests inserted at the top level, under the first headline and at
the end; ``orgrouter route`` over the directory must only insert bytes (every byte
of the file as the user left it survives, in order), and a second run must change
nothing and rewrite nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from route_cli import only_insertions, run_cli

from orgrouter.org.scan import iter_headline_lines

SAMPLE = 36
NOW = "2026-11-30T09:00"
REQUESTS = (
    b"@agent summarize this section, then create todos for the action items",
    b"@agent schedule the review for next friday",
    b"@agent tag this as reviewed",
    b"@agent delete the old drafts",
)


def _sample(corpus: Path) -> list[Path]:
    """Return a deterministic spread of corpus files, always including odd shapes."""
    files = sorted(p for p in corpus.rglob("*.org") if p.is_file())
    step = max(1, len(files) // SAMPLE)
    chosen = files[::step][:SAMPLE]
    odd = [p for p in files if b"\r" in p.read_bytes()[:20000]][:2]
    odd += [p for p in files if not p.read_bytes().endswith(b"\n")][:2]
    odd += sorted(files, key=lambda p: p.stat().st_size)[-2:]
    return list(dict.fromkeys(chosen + odd))


def _with_requests(data: bytes) -> tuple[bytes, int]:
    """Insert requests where a user might: after the first headline, at the end."""
    newline = b"\r\n" if data.count(b"\r\n") and data.count(b"\r\n") == data.count(b"\n") else b"\n"
    lines = list(iter_headline_lines(data))
    out = data
    count = len(REQUESTS) - 1
    if lines:
        count += 1
        first = lines[0]
        child = b"*" * (first.level + 1) + b" " + REQUESTS[0] + newline
        nxt = lines[1].begin if len(lines) > 1 else len(data)
        if nxt == len(data) and data and not data.endswith(b"\n"):
            child = newline + child.rstrip(b"\r\n")
        out = data[:nxt] + child + data[nxt:]
    tail = b"" if not out or out.endswith(b"\n") else newline
    for request in REQUESTS[1:]:
        tail += b"* " + request + newline
    return out + tail, count


@pytest.mark.slow
def test_route_corpus_copies_only_inserts(corpus_dir: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    originals: dict[Path, bytes] = {}
    inserted: dict[Path, int] = {}
    for number, source in enumerate(_sample(corpus_dir)):
        data = source.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        target = notes / f"{number:02d}-{source.name}"
        with_requests, inserted[target] = _with_requests(data)
        target.write_bytes(with_requests)
        originals[target] = target.read_bytes()
    assert len(originals) >= 30
    state = str(tmp_path / "state.db")
    code, _out, err = run_cli(["route", "-q", "--now", NOW, "--state", state, str(notes)], tmp_path)
    assert (code, err) == (0, "")
    routed = {path: path.read_bytes() for path in originals}
    for path, before in originals.items():
        after = routed[path]
        assert after != before, f"{path.name}: no request was routed"
        assert only_insertions(before, after), f"{path.name}: a byte was changed or lost"
        assert after.count(b":ORGROUTER_HASH:") >= inserted[path]
    mtimes = {path: path.stat().st_mtime_ns for path in originals}
    args = ["route", "-q", "--now", "2026-12-01T10:00", "--state", str(tmp_path / "cold.db")]
    code, _out, err = run_cli([*args, str(notes)], tmp_path)
    assert (code, err) == (0, "")
    for path in originals:
        assert path.read_bytes() == routed[path], f"{path.name}: second run changed it"
        assert path.stat().st_mtime_ns == mtimes[path]
