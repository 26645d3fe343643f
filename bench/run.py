"""Measure orgrouter against the baselines of issue 4, side by side, and print the table.

    python bench/run.py [--repeat 5] [--files 2000,20000] [--mb 30] [--big-mb 5] [--mix ...]
                        [--skip-orgparse] [--json]

For each tree size in ``--files`` (by default a 2,000- and a 20,000-file tree of the
same ``--mb``, each with the request mix scaled to its files), generates the synthetic
tree and the 5 MB file (bench/generate.py) in a temporary directory, then runs every
measurement once per round, ``--repeat`` rounds interleaved (so a burst of load hits
all of them alike), and reports the median wall time and the median CPU time (user +
sys of the child, which noise from other processes barely moves). Each program runs
as its own process, as a user runs it: Python start-up is part of every number,
orgrouter's and the baselines' alike.

Nothing here is part of the test suite; ``tests/ops/test_bench.py`` only smoke-tests
it on a tiny tree. ``--json`` prints one object per tree size (a list of them when
there are several).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import MIX_HELP, generate_big, generate_tree, parse_mix  # noqa: E402

BASELINES = HERE / "baselines"


def _skipped_env(name: str) -> bool:
    """Return whether the measured programs must not inherit variable ``name``."""
    # ORGROUTER_*: a user's settings would change what runs. PYTHONDONTWRITEBYTECODE:
    # without bytecode caches every run compiles its modules again, which no installed
    # program does (and the baselines, a module or two, would barely feel).
    return name.startswith("ORGROUTER_") or name == "PYTHONDONTWRITEBYTECODE"


@dataclass
class Sample:
    """One run of one program."""

    wall: float
    cpu: float
    max_rss_kb: int
    code: int


@dataclass
class Measure:
    """A program and its samples."""

    name: str
    argv: list[str]
    stdin: Path | None = None
    before: Callable[[], None] | None = None  # run before each sample, not timed
    samples: list[Sample] = field(default_factory=list)

    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    def peak_mb(self) -> float:
        return max(s.max_rss_kb for s in self.samples) / 1024


def run_once(argv: list[str], stdin: Path | None, env: dict[str, str]) -> Sample:
    """Run ``argv`` to completion through bench/measure.py; return its measurements."""
    read_end, write_end = os.pipe()
    handle = open(stdin, "rb") if stdin is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "measure.py"), str(write_end), "--", *argv],
            stdin=handle,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        with os.fdopen(read_end) as result:
            text = result.read()
        proc.wait()
    finally:
        if stdin is not None:
            handle.close()  # type: ignore[union-attr]
    if not text:
        raise SystemExit(f"the launcher failed for {argv}")
    data = json.loads(text)
    return Sample(data["wall"], data["cpu"], data["max_rss_kb"], data["code"])


def orgrouter_program() -> str:
    """Return the installed orgrouter script (what users run)."""
    beside = Path(sys.executable).with_name("orgrouter")
    found = str(beside) if beside.is_file() else shutil.which("orgrouter")
    if found is None:
        raise SystemExit("orgrouter is not installed: pip install -e .")
    return found


def build(work: Path, args: argparse.Namespace) -> tuple[list[Measure], dict[str, object]]:
    """Generate the inputs and return the measurements to take, plus facts for the table."""
    tree_dir = work / "tree"
    tree = generate_tree(
        tree_dir, files=args.files, total_mb=args.mb, mix=args.mix, seed=args.seed
    )
    big = work / "big.org"
    big_size = generate_big(big, mb=args.big_mb, seed=args.seed)
    warm_dir = work / "warm-tree"
    shutil.copytree(tree_dir, warm_dir)
    largest = max(p.stat().st_size for p in tree.files)
    program = orgrouter_program()
    python = sys.executable
    cold_state = work / "cold.sqlite3"
    warm_state = work / "warm.sqlite3"
    indexed_state = work / "indexed.sqlite3"
    indexing_state = work / "indexing.sqlite3"
    seen_state = work / "seen.sqlite3"  # after one run: scan cache, no search index

    def forget_cold_state() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{cold_state}{suffix}").unlink(missing_ok=True)

    def restore_seen_state() -> None:
        for suffix in ("-wal", "-shm"):
            Path(f"{indexing_state}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(seen_state, indexing_state)

    measures = [
        Measure(
            "cold route --dry-run",
            [program, "route", "--dry-run", "-q", "--state", str(cold_state), str(tree_dir)],
            before=forget_cold_state,
        ),
        Measure(
            "bare read + prefilter", [python, str(BASELINES / "read_prefilter.py"), str(tree_dir)]
        ),
        # The second run over the tree: the first answered its searches from the notes'
        # text; this one builds the search index (once), as any later run that searches.
        Measure(
            "indexing route --dry-run",
            [program, "route", "--dry-run", "-q", "--state", str(indexing_state), str(tree_dir)],
            before=restore_seen_state,
        ),
        # The same dry run with the search index built: what a run pays for its
        # searches from then on.
        Measure(
            "indexed route --dry-run",
            [program, "route", "--dry-run", "-q", "--state", str(indexed_state), str(tree_dir)],
        ),
        Measure("warm route", [program, "route", "-q", "--state", str(warm_state), str(warm_dir)]),
        Measure("bare os.walk + stat", [python, str(BASELINES / "walk_stat.py"), str(warm_dir)]),
        Measure(
            "route --stdin (5 MB)",
            [program, "route", "--stdin", "--file-name", str(big)],
            stdin=big,
        ),
        Measure("bare start-up + read", [python, str(BASELINES / "read_stdin.py")], stdin=big),
    ]
    if not args.skip_orgparse:
        measures.append(
            Measure("naive orgparse", [python, str(BASELINES / "orgparse_naive.py"), str(tree_dir)])
        )
    emacs = shutil.which("emacs")
    if emacs is not None:
        measures.append(
            Measure(
                "emacs --batch scan",
                [emacs, "--batch", "-Q", "-l", str(BASELINES / "emacs_scan.el"), str(tree_dir)],
            )
        )
    rg = shutil.which("rg")
    if rg is not None:
        measures.append(Measure("rg -l", [rg, "-l", "-i", r"^\*+ .*@agent\b", str(tree_dir)]))
    facts: dict[str, object] = {
        "files": len(tree.files),
        "tree_mb": round(tree.total_bytes / 1e6, 1),
        "requests": len(tree.requests),
        "largest_kb": round(largest / 1024, 1),
        "big_mb": round(big_size / 1e6, 1),
        "warm_state": warm_state,
        "indexed_state": indexed_state,
        "seen_state": seen_state,
        "tree_dir": tree_dir,
        "warm_dir": warm_dir,
        "program": program,
    }
    return measures, facts


def prepare_warm(facts: dict[str, object], env: dict[str, str]) -> None:
    """Route the warm tree once (writing its results), so later runs find it unchanged."""
    argv = [
        str(facts["program"]),
        "route",
        "-q",
        "--state",
        str(facts["warm_state"]),
        str(facts["warm_dir"]),
    ]
    subprocess.run(argv, env=env, check=True, capture_output=True)
    # Files written in the last 2 s are re-read once (the racy-mtime rule of the scan
    # cache); wait that out and settle them with one more run.
    time.sleep(2.1)
    subprocess.run(argv, env=env, check=True, capture_output=True)


def prepare_index(facts: dict[str, object], env: dict[str, str]) -> None:
    """Leave one state after a first run (no index yet), and one with the index built."""
    for state, runs in ((facts["seen_state"], 1), (facts["indexed_state"], 2)):
        argv = [str(facts["program"]), "route", "--dry-run", "-q", "--state", str(state)]
        for _run in range(runs):
            subprocess.run([*argv, str(facts["tree_dir"])], env=env, check=True)
        # One file to copy: fold the write-ahead log into the database.
        with sqlite3.connect(str(state)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def ratio_rows(by: dict[str, Measure], facts: dict[str, object]) -> list[dict[str, object]]:
    """Return the table rows: each ratio, its two sides, and the target."""
    rows: list[dict[str, object]] = []

    def add(top: str, bottom: str, target: str, check: Callable[[float], bool] | None) -> None:
        if top not in by or bottom not in by:
            return
        wall = by[top].wall() / by[bottom].wall()
        cpu = by[top].cpu() / by[bottom].cpu()
        rows.append(
            {
                "ratio": f"{top} ÷ {bottom}",
                "top_s": by[top].wall(),
                "bottom_s": by[bottom].wall(),
                "wall_ratio": wall,
                "cpu_ratio": cpu,
                "target": target,
                "ok": None if check is None else check(wall),
            }
        )

    add("cold route --dry-run", "bare read + prefilter", "≤ 2.5", lambda r: r <= 2.5)
    add("indexing route --dry-run", "bare read + prefilter", "(reported)", None)
    add("indexed route --dry-run", "bare read + prefilter", "(reported)", None)
    add("warm route", "bare os.walk + stat", "≤ 2.5", lambda r: r <= 2.5)
    add("route --stdin (5 MB)", "bare start-up + read", "≤ 3", lambda r: r <= 3)
    add("naive orgparse", "cold route --dry-run", "≥ 10", lambda r: r >= 10)
    add("emacs --batch scan", "cold route --dry-run", "(reported)", None)
    add("rg -l", "cold route --dry-run", "(reported)", None)
    search = facts.get("search_query")
    if isinstance(search, dict):
        rows.append(
            {
                "ratio": f"one search over {search['files']} indexed files (ms)",
                "top_s": None,
                "bottom_s": None,
                "wall_ratio": float(search["median_ms"]),
                "cpu_ratio": float(search["median_cpu_ms"]),
                "target": "≤ 50",
                "ok": float(search["median_ms"]) <= 50,
            }
        )
    cold = by["cold route --dry-run"]
    limit_mb = 2 * float(str(facts["largest_kb"])) / 1024 + 60
    rows.append(
        {
            "ratio": "peak RSS of the cold run (MB)",
            "top_s": None,
            "bottom_s": None,
            "wall_ratio": cold.peak_mb(),
            "cpu_ratio": None,
            "target": f"≤ {limit_mb:.1f} (2 × largest file + 60)",
            "ok": cold.peak_mb() <= limit_mb,
        }
    )
    return rows


def render(
    rows: list[dict[str, object]], by: dict[str, Measure], facts: dict[str, object], repeat: int
) -> str:
    """Return the Markdown tables: ratios, then every program's medians."""
    out = [
        f"Tree: {facts['files']} files, {facts['tree_mb']} MB, {facts['requests']} with a "
        f"request (largest {facts['largest_kb']} KB); single file: {facts['big_mb']} MB. "
        f"Median of {repeat}; wall time, with the CPU-time ratio beside it.",
        "",
        "| measure | value | CPU ratio | target | met |",
        "|---|---:|---:|---|---|",
    ]
    for row in rows:
        value = row["wall_ratio"]
        cpu = row["cpu_ratio"]
        ok = {True: "yes", False: "NO", None: ""}[row["ok"]]  # type: ignore[index]
        cpu_text = "" if cpu is None else f"{cpu:.2f}"
        out.append(f"| {row['ratio']} | {value:.2f} | {cpu_text} | {row['target']} | {ok} |")
    out += ["", "| program | wall (s) | CPU (s) | peak RSS (MB) |", "|---|---:|---:|---:|"]
    for measure in by.values():
        out.append(
            f"| {measure.name} | {measure.wall():.3f} | {measure.cpu():.3f} | "
            f"{measure.peak_mb():.1f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--files",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[2000, 20000],
        help="tree sizes, comma-separated (default 2000,20000)",
    )
    parser.add_argument("--mb", type=float, default=30.0)
    parser.add_argument("--big-mb", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--mix", type=parse_mix, default=None, help=MIX_HELP)
    parser.add_argument("--skip-orgparse", action="store_true", help="Skip the slowest baseline.")
    parser.add_argument("--json", action="store_true", help="Print JSON instead of Markdown.")
    args = parser.parse_args(argv)
    results = []
    for files in args.files:
        results.append(measure_tree(argparse.Namespace(**{**vars(args), "files": files})))
        if not args.json:
            print(results[-1], end="\n\n" if files != args.files[-1] else "\n", flush=True)
    if args.json:
        data = results[0] if len(results) == 1 else results
        print(json.dumps(data, indent=2, ensure_ascii=False))
    return 0


def measure_tree(args: argparse.Namespace) -> Any:
    """Measure one tree of ``args.files`` files; return its Markdown (or, --json, its data)."""
    with tempfile.TemporaryDirectory(prefix="orgrouter-bench-") as temp:
        work = Path(temp)
        env = {
            **{k: v for k, v in os.environ.items() if not _skipped_env(k)},
            "XDG_STATE_HOME": str(work / "xdg-state"),
            "XDG_CONFIG_HOME": str(work / "xdg-config"),
        }
        measures, facts = build(work, args)
        prepare_warm(facts, env)
        prepare_index(facts, env)
        # One untimed run of each: Python writes the bytecode caches a user's installed
        # program has (pip compiles them), and every input is in the page cache.
        for measure in measures:
            if measure.before is not None:
                measure.before()
            run_once(measure.argv, measure.stdin, env)
        for _round in range(args.repeat):
            for measure in measures:
                if measure.before is not None:
                    measure.before()
                sample = run_once(measure.argv, measure.stdin, env)
                if sample.code not in (0, 1):  # rg and --check-like exits are fine
                    raise SystemExit(
                        f"{measure.name} failed with exit {sample.code}: {measure.argv}"
                    )
                measure.samples.append(sample)
        query = subprocess.run(
            [
                sys.executable,
                str(HERE / "search_query.py"),
                str(facts["indexed_state"]),
                str(facts["tree_dir"]),
            ],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        facts["search_query"] = json.loads(query.stdout)
        by = {m.name: m for m in measures}
        rows = ratio_rows(by, facts)
        if not args.json:
            return render(rows, by, facts, args.repeat)
        return {
            "facts": {k: v for k, v in facts.items() if isinstance(v, int | float | str)},
            "rows": rows,
            "programs": {
                m.name: {"wall_s": m.wall(), "cpu_s": m.cpu(), "peak_mb": m.peak_mb()}
                for m in measures
            },
        }


if __name__ == "__main__":
    raise SystemExit(main())
