"""Smoke-test the benchmark harness on a tiny tree (the benchmark itself is not a test)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from orgrouter.prefilter import make_prefilter

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load_generator() -> ModuleType:
    """Import bench/generate.py under a name no other module can clash with."""
    spec = importlib.util.spec_from_file_location("orgrouter_bench_generate", BENCH / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


generator = _load_generator()
generate_big = generator.generate_big
generate_tree = generator.generate_tree


def digest(root: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(root.rglob("*.org")):
        sha.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()


def test_generator_is_deterministic_and_marks_requests(tmp_path: Path) -> None:
    first = generate_tree(tmp_path / "a", files=50, total_mb=0.5, seed=7)
    second = generate_tree(tmp_path / "b", files=50, total_mb=0.5, seed=7)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert len(first.files) == 50 and len(first.requests) == 1  # 2% of 50
    assert [p.name for p in first.requests] == [p.name for p in second.requests]
    assert 350_000 < first.total_bytes < 650_000
    prefilter = make_prefilter([], ["APPROVED", "REJECTED"])
    # The only files the prefilter takes are the ones holding a request, although
    # most have @ on headline lines (tags like :@home:, e-mail addresses).
    assert [p for p in first.files if prefilter.matches(p.read_bytes())] == first.requests
    assert sum(b"@" in p.read_bytes() for p in first.files) > 25
    size = generate_big(tmp_path / "big.org", mb=0.2, seed=7)
    data = (tmp_path / "big.org").read_bytes()
    assert len(data) == size and 200_000 <= size < 210_000
    assert data.count(b"\n* @agent ") == 1


def test_runner_smoke(tmp_path: Path, emacs: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            "--repeat",
            "1",
            "--files",
            "20",
            "--mb",
            "0.2",
            "--big-mb",
            "0.1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    names = [row["ratio"] for row in data["rows"]]
    assert names[:6] == [
        "cold route --dry-run ÷ bare read + prefilter",
        "indexing route --dry-run ÷ bare read + prefilter",
        "indexed route --dry-run ÷ bare read + prefilter",
        "warm route ÷ bare os.walk + stat",
        "route --stdin (5 MB) ÷ bare start-up + read",
        "naive orgparse ÷ cold route --dry-run",
    ]
    assert "emacs --batch scan ÷ cold route --dry-run" in names
    assert names[-2].startswith("one search over ") and names[-2].endswith(" indexed files (ms)")
    assert names[-1] == "peak RSS of the cold run (MB)"
    assert data["facts"]["files"] == 20
    for program in data["programs"].values():
        assert program["wall_s"] > 0 and program["peak_mb"] > 0


def test_the_mix_holds_every_offline_skill_a_user_can_call() -> None:
    from orgrouter.skills.registry import BUILTINS

    offline = {name for name, b in BUILTINS.items() if b.intents and not b.models}
    assert offline <= set(generator.REQUESTS) and offline <= set(generator.DEFAULT_MIX)


def test_stages_time_each_stage_and_name_what_they_found(tmp_path: Path) -> None:
    generate_tree(tmp_path / "tree", files=50, total_mb=0.5, seed=7)
    done = subprocess.run(
        [sys.executable, str(BENCH / "stages.py"), str(tmp_path / "tree"), "--repeat", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert set(result["cpu_s"]) == {"discover", "scan", "flush", "text_pass", "scan_searching"}
    assert (result["files"], result["candidates"]) == (50, 1) and result["hits"] > 0
