"""Measure where the process pool pays: serial vs pooled cold routes by candidate count.

    python bench/pool.py [--candidates 16,32,64,128,256] [--per 5] [--kb 15] [--repeat 5]

For each count N it generates a tree of N * ``--per`` notes of about ``--kb`` kB, N of
them holding a request a worker may answer (todo, summarize, tag, schedule, greet),
then times a cold ``orgrouter route --dry-run`` with ``ORGROUTER_WORKERS=1`` (serial)
and with the default (one worker per further CPU), in interleaved rounds after one
untimed run of each. It prints the medians of wall and CPU time (user + sys of the
whole process tree) and the peak memory of the whole tree (the run plus its workers,
sampled from /proc every 5 ms), and the ratio pooled ÷ serial.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import MIX_FILES, generate_tree  # noqa: E402
from run import _skipped_env, orgrouter_program  # noqa: E402

POOL_SAFE = ("todo", "summarize", "tag", "schedule", "greet")


def tree_rss_kb(pid: int) -> int:
    """Return the resident memory of ``pid`` and all its descendants (Linux /proc)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in os.listdir(f"/proc/{current}/task"):
                children = Path(f"/proc/{current}/task/{task}/children").read_text()
                pending.extend(int(child) for child in children.split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Run ``argv``; return its wall time, the tree's CPU time and its peak memory (kB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(0.005)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed with exit {proc.returncode}")
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, max(peak, usage.ru_maxrss)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", default="16,32,64,128,256")
    parser.add_argument("--per", type=int, default=5, help="files per candidate file")
    parser.add_argument("--kb", type=float, default=15.0, help="average note size")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    program = orgrouter_program()
    print("| candidates | files | serial wall (s) | pooled wall (s) | wall ratio | "
          "serial CPU (s) | pooled CPU (s) | serial peak (MB) | pooled peak (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in (int(n) for n in args.candidates.split(",")):
        files = count * args.per
        share = -(-count * MIX_FILES // files) // len(POOL_SAFE) + 1
        mix = dict.fromkeys(POOL_SAFE, share)
        with tempfile.TemporaryDirectory(prefix="orgrouter-pool-") as temp:
            work = Path(temp)
            tree = generate_tree(
                work / "tree", files=files, total_mb=files * args.kb / 1000, mix=mix
            )
            env = {k: v for k, v in os.environ.items() if not _skipped_env(k)}
            env["XDG_STATE_HOME"] = str(work / "xdg")
            base = [program, "route", "--dry-run", "-q", "--state", str(work / "s.sqlite3")]
            runs = {"serial": {**env, "ORGROUTER_WORKERS": "1"}, "pooled": env}
            samples: dict[str, list[tuple[float, float, int]]] = {k: [] for k in runs}
            for round_ in range(args.repeat + 1):
                for name, run_env in runs.items():
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{work / 's.sqlite3'}{suffix}").unlink(missing_ok=True)
                    sample = run_once([*base, str(work / "tree")], run_env)
                    if round_:  # the first round only warms caches
                        samples[name].append(sample)

            def med(name: str, i: int, samples: dict[str, list[tuple[float, float, int]]]
                    = samples) -> float:
                return statistics.median(s[i] for s in samples[name])

            print(
                f"| {len(tree.requests)} | {files} | {med('serial', 0):.3f} | "
                f"{med('pooled', 0):.3f} | {med('pooled', 0) / med('serial', 0):.2f} | "
                f"{med('serial', 1):.3f} | {med('pooled', 1):.3f} | "
                f"{max(s[2] for s in samples['serial']) / 1024:.1f} | "
                f"{max(s[2] for s in samples['pooled']) / 1024:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
