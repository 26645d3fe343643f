"""A run scans every note before routing any, and a cold run reads each note once."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from route_cli import run_cli

from orgrouter import scancache
from orgrouter.config import Config
from orgrouter.errors import StateError
from orgrouter.io import text
from orgrouter.report import Report
from orgrouter.route import runner
from orgrouter.route.router import Router, RunOptions
from orgrouter.skills.search import Lookup
from orgrouter.writemode import WriteMode

NOW = ("--now", "2026-12-01T09:00:00")


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count every read of a note (the scan's and the search's), calling the real reader."""
    seen: list[str] = []
    real = text.read_stable

    def counted(path: Any, **kwargs: Any) -> Any:
        seen.append(str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(text, "read_stable", counted)
    monkeypatch.setattr(scancache, "read_stable", counted)
    return seen


def _tree(root: Path, request_name: str) -> None:
    (root / "orgrouter.toml").write_text("")
    for n in range(30):
        words = "budget review" if n % 3 else "garden"
        body = f"* Note {n} {words}\nthe {words} of week {n}\n** Sub {n}\nbudget\n" * (n % 4 + 1)
        (root / f"n{n:02d}.org").write_text(body)
    (root / "n-bad.org").write_bytes(b"* Budget review\n\xff\n")  # not UTF-8: unreadable
    (root / "n-bom.org").write_bytes(b"\xef\xbb\xbf* Budget review with a BOM\n")
    (root / request_name).write_text("* Ask\n** @agent find notes about budget review\n")


def _route(root: Path, *args: str) -> tuple[int, str, str]:
    code, out, err = run_cli(["route", str(root), "--state", str(root / "s.db"), *NOW, *args], root)
    return code, out.decode(), err


@pytest.mark.parametrize("request_name", ["a-first.org", "zz-last.org"])
def test_a_cold_run_answers_its_search_as_a_second_read_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request_name: str
) -> None:
    learned, old = tmp_path / "learned", tmp_path / "old"
    for root in (learned, old):
        root.mkdir()
        _tree(root, request_name)
    reads = _reads(monkeypatch)
    assert _route(learned)[0] == 0
    learned_reads = len(reads)
    reads.clear()
    monkeypatch.setattr(Lookup, "learns_from", lambda *_args: False)  # the second read
    assert _route(old)[0] == 0
    assert (learned / request_name).read_text() == (old / request_name).read_text()
    answer = (old / request_name).read_text()
    assert "- [[file:n01.org::*Note 1 budget review]" in answer
    assert "*Budget review with a BOM]" in answer and "1 file could not be read" in answer
    # Learned from the first note, no note is read twice; from the last, all the others are.
    saved = len(list(old.glob("*.org"))) if request_name == "a-first.org" else 1
    assert learned_reads == len(reads) - saved


def test_files_are_reported_in_discovery_order_whatever_their_verdict(tmp_path: Path) -> None:
    (tmp_path / "a.org").write_text("* @agent find notes about budget\n")
    (tmp_path / "b.org").write_bytes(b"* @agent tag this as work\n\0binary\n")
    (tmp_path / "c.org").write_text("* Budget\nthe budget\n")
    (tmp_path / "d.org").write_text("* @agent summarize this section\nSome text here.\n")
    code, out, err = _route(tmp_path, "--dry-run", "--json")
    assert code == 3  # b.org failed
    assert [r["file"][-5:] for r in map(json.loads, out.splitlines())] == ["a.org", "d.org"]
    named = [name for line in err.splitlines() for name in ("a.org", "b.org", "d.org")
             if name in line]
    assert named == ["a.org", "b.org", "d.org"]


def test_candidates_past_the_memory_budget_are_read_again_in_their_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, reread = tmp_path / "kept", tmp_path / "reread"
    for root in (kept, reread):
        root.mkdir()
        _tree(root, "m.org")
        (root / "t.org").write_text("* @agent tag this as work\n")
    reads = _reads(monkeypatch)
    assert _route(kept)[0] == 0
    kept_reads = len(reads)
    reads.clear()
    monkeypatch.setattr(runner, "KEEP_BYTES", 0)
    assert _route(reread)[0] == 0
    for name in ("m.org", "t.org"):
        assert (kept / name).read_text() == (reread / name).read_text()
    assert len(reads) == kept_reads + 2  # m.org and t.org, once more each


def test_a_file_changed_between_scan_and_routing_is_routed_as_it_is_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.org").write_text("* @agent tag this as work\n")
    later = tmp_path / "b.org"
    later.write_text("* @agent tag this as home\n")
    real: Callable[..., Any] = Router.route

    def route_then_edit(self: Router, data: bytes, path: str | None, *args: Any) -> Any:
        if path is not None and path.endswith("a.org"):  # as a move of this run would
            later.write_text("* @agent tag this as home\n* @agent tag this as garden\n")
        return real(self, data, path, *args)

    monkeypatch.setattr(Router, "route", route_then_edit)
    code, out, _err = _route(tmp_path, "--dry-run", "--json")
    assert code == 0
    assert [r["instruction"] for r in map(json.loads, out.splitlines())] == [
        "tag this as work",
        "tag this as home",
        "tag this as garden",
    ]


def test_a_run_that_is_not_cold_never_learns_its_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path, "a.org")
    assert _route(tmp_path)[0] == 0
    (tmp_path / "b.org").write_text("* @agent find notes about garden\n")

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("a warm run made a text pass")

    monkeypatch.setattr("orgrouter.searchscan.TextPass.__init__", refuse)
    code, _out, err = _route(tmp_path)
    assert code == 0, err
    assert "[[file:n00.org::*Note 0 garden]" in (tmp_path / "b.org").read_text()


def test_a_search_routed_after_a_move_of_the_run_links_where_the_headline_is_now(
    tmp_path: Path,
) -> None:
    # --force reads every note, so its searches are learned from the scan; a move made
    # before the search's turn changed the notes since (the learned answer is stale).
    (tmp_path / "a-src.org").write_text(
        "* Move me budget\nthe budget\n** @agent refile this to z-target.org under Website\n"
    )
    target = tmp_path / "z-target.org"
    target.write_text(
        "* Website\n* Budget target\nbudget\n** @agent find notes about budget and link them here\n"
    )
    assert _route(tmp_path)[0] == 0
    source = tmp_path / "a-src.org"
    source.write_text(source.read_text().replace("WAITING Approve:", "APPROVED Approve:"))
    code, _out, err = _route(tmp_path, "--force")
    assert code == 0, err
    assert "moved into" in err
    assert "Move me budget" not in source.read_text().split("\n", 1)[0]
    answer = target.read_text()
    assert "[[file:z-target.org::*Move me budget]" in answer
    assert "[[file:a-src.org::*Move me budget]" not in answer


def _reads_under_budget(
    root: Path, monkeypatch: pytest.MonkeyPatch, note: str, budget: int
) -> list[int]:
    """Dry-run a.org, b.org and c.org, each holding ``note``, with KEEP_BYTES at ``budget``;
    return how many times each was read (1: kept from its scan, 2: read again in its turn)."""
    names = ("a.org", "b.org", "c.org")
    for name in names:
        (root / name).write_text(note)
    monkeypatch.setattr(runner, "KEEP_BYTES", budget)
    reads = _reads(monkeypatch)
    assert _route(root, "--dry-run")[0] == 0
    return [sum(r.endswith(name) for r in reads) for name in names]


def test_the_memory_budget_counts_a_kept_snapshot_s_bytes_which_is_all_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A snapshot holds its bytes only (their text is decoded when asked for): two notes
    # fit in room for twice their bytes and requests (and the gate's verdict on each),
    # the third is read again.
    note = "* @agent tag this as work\n" + "some words of the body\n" * 40
    room = 2 * (len(note) + 2 * runner.REQUEST_BYTES) + len(note) // 2
    assert _reads_under_budget(tmp_path, monkeypatch, note, room) == [1, 1, 2]
    snapshot = text.read_org_file(tmp_path / "a.org")
    assert "text" not in snapshot._fields and snapshot.text == note


def test_the_memory_budget_counts_the_requests_a_kept_candidate_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its requests (and their headlines) outweigh a note's bytes: 150 notes of 16 KB with
    # 400 requests each, all kept, peaked at 160 MB of RSS (the old code 33 MB).
    note = "".join(f"* Task {n}\n** @agent tag this as work\n" for n in range(50))
    room = 75 * runner.REQUEST_BYTES  # room for a.org's 50 requests, not for b.org's too
    assert _reads_under_budget(tmp_path, monkeypatch, note, room) == [1, 2, 2]


def test_a_fault_while_learning_a_notes_searches_leaves_the_note_to_its_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Learning runs outside route_file's one-bad-file guard: a bug there must cost the
    # run its shortcut (a second read), never the run or the note's routing.
    root = tmp_path / "notes"
    root.mkdir()
    _tree(root, "a-first.org")

    def broken(*_args: object) -> None:
        raise RuntimeError("a bug in plan")

    monkeypatch.setattr(Router, "plan", broken)
    code, _out, err = _route(root)
    assert code == 0, err
    assert "- [[file:n01.org::*Note 1 budget review]" in (root / "a-first.org").read_text()


def test_a_run_collects_garbage_less_often_and_gives_the_threshold_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path, "a-first.org")
    seen: list[int] = []
    real = scancache.scan_one

    def scan_one(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(scancache, "scan_one", scan_one)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        assert _route(tmp_path, "--dry-run")[0] == 0
        assert gc.get_threshold() == (700, 10, 10)
        (tmp_path / "a-dir").mkdir()  # the state database cannot open: the run fails
        options = RunOptions(mode=WriteMode.DRY_RUN, state_path=tmp_path / "a-dir")
        with pytest.raises(StateError):
            runner.run_route([tmp_path], Config(), Report(), options)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
    assert seen and set(seen) == {runner.GC_YOUNG}


def test_the_memory_budget_counts_the_gate_s_verdict_on_each_kept_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each request's verdict is kept with it for the route (1.8 KB each); requests alike
    # share one, so the budget that keeps a.org above holds no note of 50 different ones.
    note = "".join(f"* Task {n}\n** @agent tag this as work {n}\n" for n in range(50))
    room = 75 * runner.REQUEST_BYTES
    assert _reads_under_budget(tmp_path, monkeypatch, note, room) == [2, 2, 2]
