"""The compiled routing tables, cached by content hash under the state directory."""

from __future__ import annotations

import marshal
import os
import threading
from importlib import resources
from pathlib import Path

from orgrouter.route import rulecache
from orgrouter.route.rulecache import KEEP, cache_key, cached_rules, configured_rules
from orgrouter.route.rules import load_rules, read_tables


def test_a_cached_build_equals_a_fresh_one(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = configured_rules(None, cache)
    (entry,) = cache.iterdir()
    assert entry.name == f"rules-{cache_key(read_tables(None))}.marshal"
    second = configured_rules(None, cache)  # read from the entry
    assert first == second == load_rules(None)
    assert second.personas == load_rules(None).personas
    assert second.courtesy_frames.pattern == load_rules(None).courtesy_frames.pattern


def test_an_edited_table_is_another_entry(tmp_path: Path) -> None:
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    packaged = resources.files("orgrouter.rules").joinpath("verbs.toml").read_text()
    (rules_dir / "verbs.toml").write_text(packaged)
    cache = tmp_path / "cache"
    assert configured_rules(str(rules_dir), cache) == load_rules(rules_dir)
    edited = packaged.replace('verbs = ["summarize"', 'verbs = ["boildown", "summarize"', 1)
    assert edited != packaged
    (rules_dir / "verbs.toml").write_text(edited)
    rules = configured_rules(str(rules_dir), cache)
    assert rules.verbs[("boildown",)] == "summarize"
    assert len(list(cache.iterdir())) == 2
    for n in range(KEEP + 3):  # one entry per edit, the oldest pruned
        (rules_dir / "verbs.toml").write_text(edited.replace("boildown", f"boil{n}"))
        configured_rules(str(rules_dir), cache)
    assert len(list(cache.iterdir())) == KEEP


def test_a_broken_entry_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    tables = read_tables(None)
    cache.mkdir()
    entry = cache / f"rules-{cache_key(tables)}.marshal"
    for junk in (b"", b"\x00garbage", b"\xe9"):
        entry.write_bytes(junk)
        assert cached_rules(tables, cache) == load_rules(None)
        assert entry.read_bytes() != junk  # written again, whole


def test_a_cache_in_a_file_s_place_only_costs_time(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    assert configured_rules(None, blocker) == load_rules(None)
    assert blocker.read_text() == "not a directory"


def test_without_the_loader_s_source_nothing_is_cached(tmp_path: Path) -> None:
    tables = read_tables(None)
    code = rulecache._CODE
    rulecache._CODE = (tmp_path / "gone.py",)  # a sourceless install (.pyc only)
    try:
        assert cached_rules(tables, tmp_path / "cache") == load_rules(None)
    finally:
        rulecache._CODE = code
    assert not (tmp_path / "cache").exists()


def test_a_cached_build_compiles_a_pattern_only_when_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    configured_rules(None, cache)
    rules = configured_rules(None, cache)  # read from the entry
    fresh = load_rules(None)
    assert rules.greetings._compiled is None  # type: ignore[attr-defined]
    assert rules.courtesy_frames._compiled is None  # type: ignore[attr-defined]
    for text in ("hello there", "thanks a lot!", "renew the passport"):
        assert (rules.greetings.match(text) is None) == (fresh.greetings.match(text) is None)
    assert rules.greetings._compiled is not None  # type: ignore[attr-defined]
    assert rules.greetings == fresh.greetings and hash(rules.code) == hash(rules.code)
    assert rules.greetings != fresh.code and rules.greetings != fresh.greetings.pattern


def test_an_entry_that_loads_but_is_not_what_was_stored_is_rebuilt(tmp_path: Path) -> None:
    # marshal loads what it is given: the right fields holding the wrong values made
    # every request a "not understood" clarification, written into the notes and
    # settled, for as long as the entry stayed.
    cache = tmp_path / "cache"
    tables = read_tables(None)
    fresh = load_rules(None)
    cache.mkdir()
    entry = cache / f"rules-{cache_key(tables)}.marshal"
    entry.write_bytes(marshal.dumps(dict.fromkeys(fresh._asdict())))
    assert cached_rules(tables, cache) == fresh
    # Another entry's bytes (other tables, or another orgrouter's) in this entry's place.
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    verbs = resources.files("orgrouter.rules").joinpath("verbs.toml").read_text()
    (rules_dir / "verbs.toml").write_text(verbs.replace('verbs = ["summarize"', 'verbs = ["x"', 1))
    other = read_tables(rules_dir)
    cached_rules(other, cache)
    entry.write_bytes((cache / f"rules-{cache_key(other)}.marshal").read_bytes())
    assert cached_rules(tables, cache) == fresh


def test_a_fifo_in_an_entry_s_place_does_not_hang_the_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    tables = read_tables(None)
    cache.mkdir()
    os.mkfifo(cache / f"rules-{cache_key(tables)}.marshal")
    built: list[object] = []
    worker = threading.Thread(target=lambda: built.append(cached_rules(tables, cache)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert built == [load_rules(None)]


def test_a_pattern_s_starts_are_what_every_match_starts_with() -> None:
    starts = rulecache._starts
    assert starts(r"(?:(so )?(need|want))(?![\w'])", 2) == ("need", "so need", "so want", "want")
    assert starts(r"\bHi(?: there)?|[Yy]o\b", 2) == ("hi", "hi there", "yo")
    assert starts(r"caf\u00e9|ok", 2) == ("caf", "ok")  # up to the first non-ASCII letter
    for unknown in (r"[a-z]+x", r"(?:hi)?there|.", r"hi|", r"\w+"):
        assert starts(unknown, 2) == ()


def test_a_guarded_match_answers_as_the_pattern_does(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    configured_rules(None, cache)
    rules, fresh = configured_rules(None, cache), load_rules(None)
    assert rules.courtesy_frames.match("renew the passport") is None
    assert rules.courtesy_frames._compiled is None  # type: ignore[attr-defined]
    texts = ["would you please renew it", "Could You kindly", "ſo i need", "It'd be lovely",
             "i need a list", "Many thanks!", "hi otto", "K", "wOuLd u", "thanks", "", " hi",
             "danke schön", "please could you", "x would you"]  # fmt: skip
    for name, pattern in fresh._asdict().items():
        if name.endswith(("frames", "greetings")):
            for text in texts:
                for pos in (-1, 0, 1, 2, len(text)):
                    got = getattr(rules, name).match(text, pos)
                    want = pattern.match(text, pos)
                    assert (got and got.span()) == (want and want.span()), (name, text, pos)
