"""Run one program and write its wall time, CPU time and peak RSS as JSON to a pipe.

    python bench/measure.py FD -- PROGRAM ARGS...

bench/run.py starts every measured program through this small launcher, because a
child forked straight from the runner inherits the runner's resident pages until it
execs, and Linux reports that as the child's peak RSS. Forked from this launcher
instead, a program's peak is its own (the launcher's ~10 MB is below any Python's).
"""

import json
import os
import subprocess
import sys
import time

argv = sys.argv[sys.argv.index("--") + 1 :]
start = time.perf_counter()
proc = subprocess.Popen(argv)
_pid, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - start
result = {
    "wall": wall,
    "cpu": usage.ru_utime + usage.ru_stime,
    "max_rss_kb": usage.ru_maxrss,
    "code": os.waitstatus_to_exitcode(status),
}
with os.fdopen(int(sys.argv[1]), "w") as out:
    out.write(json.dumps(result))
