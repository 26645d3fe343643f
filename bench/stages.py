"""Time the stages of a cold route that scale with the tree, in process: CPU seconds each.

    python bench/stages.py TREE [--repeat 3] [--word budget]

Discovery (``discover``), the scan of every note with an empty cache (``scan_one``), the
cache's write (``flush``), one search's text pass over every note (``scan_search``), and
the scan that gives every note's text to a pass as a cold run does (``scan_searching``:
the scan and the pass, without a second read), each from a new state database, on a
tree from ``bench/generate.py``. Prints JSON: the median CPU seconds of each stage, the
load average, and what the run found (so two versions of orgrouter can be checked to
give the same answers: run each alternately).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from orgrouter.config import Config
from orgrouter.discover import discover
from orgrouter.io.text import read_org_text
from orgrouter.prefilter import prefilter_for
from orgrouter.route.runner import _text
from orgrouter.scancache import ScanCache, scan_one
from orgrouter.searchscan import TextPass, scan_search
from orgrouter.state import StateDB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--word", default="budget")
    args = parser.parse_args()
    config = Config()
    stages = ("discover", "scan", "flush", "text_pass", "scan_searching")
    times: dict[str, list[float]] = {stage: [] for stage in stages}
    found_by: dict[str, object] = {}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as state_dir:
            start = time.process_time()
            found = discover([args.tree.resolve()], config.scan)
            times["discover"].append(time.process_time() - start)
            state = StateDB.open(Path(state_dir) / "state.sqlite3")
            prefilter = prefilter_for(config)
            cache = ScanCache(state, prefilter.signature)
            start = time.process_time()
            statuses = [scan_one(path, prefilter, cache).status for path in found.files]
            times["scan"].append(time.process_time() - start)
            start = time.process_time()
            cache.flush()
            times["flush"].append(time.process_time() - start)
            state.close()
        start = time.process_time()
        answer = scan_search(found.files, read_org_text, [args.word], config.privacy.tags)
        times["text_pass"].append(time.process_time() - start)
        start = time.process_time()
        text_pass = TextPass(found.files, read_org_text, config.privacy.tags)
        text_pass.learn([args.word])
        cache = ScanCache(None, prefilter.signature)
        for path in found.files:
            text_pass.offer(_text(scan_one(path, prefilter, cache)))
        assert text_pass.answer([args.word]) == answer
        times["scan_searching"].append(time.process_time() - start)
        hits = repr([(str(h.path), h.line, h.title, h.snippet) for h in answer.hits])
        found_by = {
            "files": len(found.files),
            "candidates": statuses.count("candidate"),
            "hits": answer.total,
            "shown": hashlib.sha256(hits.encode()).hexdigest()[:16],
        }
    median = {stage: round(statistics.median(cpu), 3) for stage, cpu in times.items()}
    print(json.dumps({"cpu_s": median, "load": os.getloadavg()[0], **found_by}))


if __name__ == "__main__":
    main()
