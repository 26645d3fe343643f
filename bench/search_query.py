"""Time queries against a built search index, in-process: the cost a search adds to a run.

    python bench/search_query.py STATE_DB ROOT [--repeat 20]

Prints JSON: the number of indexed files and headlines and the median milliseconds (wall
and CPU) of one query (``SearchIndex.query``, the ranked hits and the total) over a few queries.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from orgrouter.searchindex import SearchIndex
from orgrouter.state import StateDB

QUERIES = (["budget"], ["kernel", "release"], ["garden", "project"], ["travel"], ["zzzz"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state", type=Path)
    parser.add_argument("root", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    db = StateDB.open(args.state)
    index = SearchIndex(db, ("@personal",))
    files = db.conn.execute("SELECT count(*) FROM search_files").fetchone()[0]
    heads = db.conn.execute("SELECT count(*) FROM search_heads").fetchone()[0]
    times = []
    cpu = []
    for _ in range(args.repeat):
        for words in QUERIES:
            start, start_cpu = time.perf_counter(), time.process_time()
            index.query(words, under=args.root.resolve())
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
    print(json.dumps({"files": files, "headlines": heads, "median_ms": statistics.median(times),
                      "median_cpu_ms": statistics.median(cpu), "max_ms": max(times)}))


if __name__ == "__main__":
    main()
