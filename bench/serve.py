"""Measure ``orgrouter serve`` and orgrouter.el against the issue's two targets.

1. The mean time of ``orgrouter-route-buffer`` on a 1 MB Org buffer, over 10 calls
   each with a new request (the server already started by one call before), against
   the time to start ``orgrouter --version`` once (the mean of 10 starts).
2. The mean round trip of a server ``route`` call on a 5 MB note, each call with a
   new request, against a minimal JSON-RPC echo server with the same framing that
   parses the call and answers the text back (``bench/echo_server.py``).

    python bench/serve.py [--calls 10] [--emacs emacs] [--fallback]

Figures are printed, never asserted: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from generate import document  # noqa: E402

from orgrouter.serve.framing import read_message, write_message  # noqa: E402

EMACS_SCRIPT = r"""
(progn
  (require 'orgrouter)
  (setq orgrouter-executable (getenv "ORGROUTER_BENCH_PROGRAM"))
  (setq orgrouter-use-server (not (getenv "ORGROUTER_BENCH_NO_SERVER")))
  (let ((calls (string-to-number (getenv "ORGROUTER_BENCH_CALLS")))
        (done nil)
        (times nil))
    (add-hook 'orgrouter-after-route-hook (lambda (_buffer status) (setq done status)))
    (with-current-buffer (find-file-noselect (getenv "ORGROUTER_BENCH_NOTE"))
      (org-mode)
      (dotimes (i (1+ calls))
        (goto-char (point-max))
        (insert (format "* @agent create a todo to buy item %d\n" i))
        (setq done nil)
        (let ((start (float-time)))
          (orgrouter-route-buffer)
          (while (not done) (accept-process-output nil 0.001))
          (unless (eq done 'changed) (error "route %d: %s" i done))
          ;; The first call starts the server: it is reported apart.
          (push (- (float-time) start) times)))
      (set-buffer-modified-p nil))
    (setq times (nreverse times))
    (princ (format "%S\n" (list orgrouter-last-route-path (car times) (cdr times))))))
"""


def orgrouter_program() -> str:
    """Return the orgrouter script beside this Python, else the one on PATH."""
    beside = Path(sys.executable).with_name("orgrouter")
    found = str(beside) if beside.is_file() else shutil.which("orgrouter")
    if found is None:
        raise SystemExit("bench/serve.py: install orgrouter first (pip install -e .)")
    return found


def note(mb: float, seed: int) -> bytes:
    """Return a deterministic note of about ``mb`` MB with no request in it."""
    return document(random.Random(seed), int(mb * 1_000_000), None)


def version_start(program: str, runs: int) -> float:
    """Return the mean wall time of ``orgrouter --version``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([program, "--version"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.mean(times)


def emacs_route_buffer(
    emacs: str, program: str, calls: int, env: dict[str, str], *, server: bool = True
) -> Any:
    """Return (path, first call, later calls) timed inside ``emacs --batch``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.org"
        path.write_bytes(note(1.0, 2026))
        done = subprocess.run(
            [emacs, "--batch", "-Q", "-L", str(HERE.parent / "emacs"), "--eval", EMACS_SCRIPT],
            env={
                **env,
                "ORGROUTER_BENCH_PROGRAM": program,
                "ORGROUTER_BENCH_CALLS": str(calls),
                "ORGROUTER_BENCH_NOTE": str(path),
                **({} if server else {"ORGROUTER_BENCH_NO_SERVER": "1"}),
            },
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp,
        )
        if done.returncode != 0:
            raise SystemExit(f"emacs failed:\n{done.stderr[-2000:]}")
        line = done.stdout.strip().splitlines()[-1]
        path_taken, first, rest = line.strip("()").split(" ", 2)
        return path_taken, float(first), [float(t) for t in rest.strip("()").split()]


def round_trips(argv: list[str], text: str, calls: int, env: dict[str, str]) -> list[float]:
    """Return the wall time of ``calls`` route calls to the server ``argv`` starts."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp
        )
        assert proc.stdin is not None and proc.stdout is not None
        path = str(Path(tmp) / "big.org")
        times = []
        try:
            for i in range(calls + 1):
                body = text + f"* @agent create a todo to buy item {i}\n"
                params = {"text": body, "path": path, "now": "2026-11-30T09:00"}
                start = time.perf_counter()
                reply = _call(proc.stdin, proc.stdout, i, params)
                if i:  # the first warms the server's imports
                    times.append(time.perf_counter() - start)
                if "error" in reply or len(reply["result"]["text"]) < len(body):
                    raise SystemExit(f"{argv}: bad reply: {str(reply)[:300]}")
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
        return times


def _call(stdin: BinaryIO, stdout: BinaryIO, call_id: int, params: dict[str, Any]) -> Any:
    message = {"jsonrpc": "2.0", "id": call_id, "method": "route", "params": params}
    write_message(stdin, json.dumps(message, ensure_ascii=False).encode())
    body = read_message(stdout)
    assert body is not None
    return json.loads(body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--emacs", default="emacs")
    parser.add_argument(
        "--fallback", action="store_true", help="Also time the route --stdin path, for scale."
    )
    args = parser.parse_args(argv)
    program = orgrouter_program()
    with tempfile.TemporaryDirectory() as home:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")},
            "HOME": home,
            "XDG_STATE_HOME": str(Path(home) / "state"),
            "XDG_CONFIG_HOME": str(Path(home) / "config"),
            "ORGROUTER_NOW": "2026-11-30T09:00",
        }
        version = version_start(program, args.calls)
        print(f"orgrouter --version start: {version * 1000:.1f} ms (mean of {args.calls})")
        if shutil.which(args.emacs):
            path_taken, first, rest = emacs_route_buffer(args.emacs, program, args.calls, env)
            mean = statistics.mean(rest)
            print(
                f"orgrouter-route-buffer, 1 MB buffer, {len(rest)} calls via {path_taken}: "
                f"mean {mean * 1000:.1f} ms (first call, starting the server: "
                f"{first * 1000:.1f} ms); ratio to --version {mean / version:.2f} (target <= 1)"
            )
            if args.fallback:
                path_taken, first, rest = emacs_route_buffer(
                    args.emacs, program, args.calls, env, server=False
                )
                print(
                    f"orgrouter-route-buffer via {path_taken} (route --stdin, no server): "
                    f"mean {statistics.mean(rest) * 1000:.1f} ms"
                )
        text = note(5.0, 2027).decode()
        serve = round_trips([program, "serve"], text, args.calls, env)
        echo = round_trips([sys.executable, str(HERE / "echo_server.py")], text, args.calls, env)
        ratio = statistics.mean(serve) / statistics.mean(echo)
        print(
            f"server route, 5 MB note: mean {statistics.mean(serve) * 1000:.1f} ms; "
            f"echo server: mean {statistics.mean(echo) * 1000:.1f} ms; "
            f"ratio {ratio:.2f} (target <= 3)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
