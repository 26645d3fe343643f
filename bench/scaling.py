"""Time every workload as one dimension of its input doubles, and print the ratios.

    python bench/scaling.py [--only depth,tags] [--ops parse,route] [--target 0.05]
                            [--timeout 60] [--json]

For each dimension (nesting depth, nested requests, requests under one deep parent,
headline length, requests per file, the same with their results written (a rerun), and then edited,
results under one request, section length, list depth, drawers and blocks, runs of blank
lines and spaces, long lines without spaces, tags, noweb references) a generator writes
an Org note at size n, 2n, 4n and 8n, and each workload (parse, route --dry-run, route,
route --stdin, tangle, search, serve's route) runs on it. The time of a call on the
smallest input (configuration, the state database: the fixed cost) is taken off every
time, and n is found per row by doubling until what is left passes ``--target`` seconds
and twice the fixed cost, so the fixed cost does not hide the growth. The table shows
the time at 8n, how much the input's bytes grow per doubling of n ("size ×": 2, or 4
where nesting n deep takes n² bytes), the time ratio per doubling (about 2 linear, about
4 quadratic, with a size × of 2) and the exponent of time in bytes over the four sizes
(1 linear, 2 quadratic; above 1.4 is flagged). A row that passes ``--timeout`` is shown
as such.

Each row runs in a process of its own (so a hang is stopped, and one row's caches do
not warm another's); within it the workload runs in process, through the CLI's click
group (or, for serve, through one ``orgrouter serve`` talking JSON-RPC on its pipes),
so Python start-up is not measured. Every call gets a fresh state database. Figures
are printed, never asserted: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NOW = "2026-11-30T09:00"
# Words the skills' patterns look for ("and", "in the", "to", commas) among plain ones.
WORDS = ("draft", "review,", "budget", "and", "release", "in", "the", "kernel", "to", "parser;")
TODO = "@agent create a todo to renew the passport"
BLOCK = "#+begin_src python :tangle out.py\nprint('budget')\n#+end_src\n"


def _words(count: int) -> str:
    return " ".join(WORDS[i % len(WORDS)] for i in range(count))


def depth(n: int) -> str:
    """Headlines nested n deep, a request and a src block at the bottom."""
    lines = [
        f"{'*' * level} level {level} budget\nText of level {level}.\n" for level in range(1, n + 1)
    ]
    return "".join(lines) + f"{'*' * (n + 1)} {TODO}\n{BLOCK}"


def nested(n: int) -> str:
    """n requests nested n deep, each the parent of the next."""
    asks = ("create a todo to renew passport {i}", "tag this with project", "hi there")
    return "".join(f"{'*' * i} @agent {asks[i % 3].format(i=i)}\n" for i in range(1, n + 1))


def under(n: int) -> str:
    """n sibling requests under one parent 100 levels deep."""
    ladder = "".join(f"{'*' * level} level {level} budget\n" for level in range(1, 101))
    asks = ("create a todo to buy item {i}", "tag this with project", "hi there")
    return ladder + "".join(f"{'*' * 101} @agent {asks[i % 3].format(i=i)}\n" for i in range(n))


def rerun(n: int) -> str:
    """n sibling requests with their results already written: what a second run reads."""
    return _routed(requests(n))


def edited(n: int) -> str:
    """n sibling requests with their results written, then every instruction edited."""
    return _routed(requests(n)).replace("* @agent ", "* @agent please ")


def results(n: int) -> str:
    """One request with n results under it: its own, then ones the user took over."""
    routed = _routed(f"* {TODO}\n")
    mark = routed.index(":ORGROUTER_HASH: ") + len(":ORGROUTER_HASH: ")
    digest = routed[mark : routed.index("\n", mark)]
    taken = "** TODO renew the passport {k}\n:PROPERTIES:\n:ORGROUTER_RESULT: {h}/{k}\n:END:\n"
    return routed + "".join(taken.format(k=k, h=digest) for k in range(2, n + 1))


@functools.cache
def _routed(text: str) -> str:
    """Return ``text`` routed once (``route --stdin``, a scratch state)."""
    from click.testing import CliRunner

    from orgrouter.cli import cli

    with tempfile.TemporaryDirectory(prefix="orgrouter-scaling-") as where:
        args = ["route", "--stdin", "-q", "--state", f"{where}/state.db", "--now", NOW]
        return CliRunner().invoke(cli, args, input=text, catch_exceptions=False).output


def headline(n: int) -> str:
    """A request whose headline has n words, and a plain headline as long."""
    return f"* budget {_words(n)}\n* {TODO} {_words(n)}\n{BLOCK}"


def requests(n: int) -> str:
    """n requests in one file, cycling through the offline skills."""
    asks = [
        "create a todo to buy item {i}",
        "tag this with project",
        "schedule the review for next monday",
        "summarize this section",
        "hi there",
    ]
    parts = [f"* @agent {asks[i % len(asks)].format(i=i)}\nBudget line {i}.\n" for i in range(n)]
    return "".join(parts) + BLOCK


def section(n: int) -> str:
    """A request with a body of n lines of text (and a block at its end)."""
    body = "".join(f"Line {i} of the budget {_words(8)}.\n" for i in range(n))
    return f"* @agent summarize this section, then create todos for the action items\n{body}{BLOCK}"


def lists(n: int) -> str:
    """A request whose instruction is a list nested n deep, and a plain list as deep."""
    nested = "".join(f"{'  ' * level}- item {level} budget\n" for level in range(n))
    return f"* notes\n{nested}* @agent\n{nested}{BLOCK}"


def blocks(n: int) -> str:
    """n property drawers, logbooks and src blocks, then a request with as many."""
    unit = (
        ":PROPERTIES:\n:ID: x{i}\n:END:\n:LOGBOOK:\n- Note taken\n:END:\n"
        "#+begin_src python :tangle out.py\nprint({i})\n#+end_src\n"
        "#+begin_quote\nbudget\n#+end_quote\n"
    )
    body = "".join(unit.format(i=i) for i in range(n))
    return f"* notes\n{body}* {TODO}\n{body}"


def blanks(n: int) -> str:
    """Runs of n blank lines and n spaces in headlines, bodies and instructions."""
    gap = "\n" * n
    spaces = " " * n
    return (
        f"* budget{spaces}notes\n{gap}text\n"
        f"* @agent create todos: buy milk,{spaces}and pay rent\n{gap}after\n"
        f"* @agent\n{gap}buy milk,{spaces}pay rent;{spaces}\n{gap}{BLOCK}"
    )


def nospace(n: int) -> str:
    """Lines of n characters without a space: headlines, a request, a body line."""
    word = "budget" + "x" * n
    return (
        f"* {word}\n{word}\n* {TODO}{word}\n{word}\n* @agent create a todo to {word}\n"
        f"{word},{word};{word}\n{BLOCK}"
    )


def tags(n: int) -> str:
    """A request and a plain headline each carrying n tags."""
    tagged = ":" + ":".join(f"t{i}" for i in range(n)) + ":"
    return f"* budget notes {tagged}\nText.\n* {TODO} {tagged}\n{BLOCK}"


def noweb(n: int) -> str:
    """A block tangling n noweb references: named blocks and ``:noweb-ref`` chunks."""
    named = "".join(
        f"** chunk {i}\n#+name: c{i}\n#+begin_src python\nx{i} = {i}\n#+end_src\n"
        f"#+begin_src python :noweb-ref r{i}\ny{i} = {i}\n#+end_src\n"
        for i in range(n)
    )
    refs = "".join(f"<<c{i}>>\n  <<r{i}>>\n" for i in range(n))
    return (
        f"* chunks\n{named}* main\n"
        f"#+begin_src python :tangle out.py :noweb yes :comments noweb\n{refs}#+end_src\n"
    )


DIMENSIONS: dict[str, Callable[[int], str]] = {
    "depth": depth,
    "nested": nested,
    "under": under,
    "rerun": rerun,
    "edited": edited,
    "results": results,
    "headline": headline,
    "requests": requests,
    "section": section,
    "lists": lists,
    "blocks": blocks,
    "blanks": blanks,
    "nospace": nospace,
    "tags": tags,
    "noweb": noweb,
}
OPS = ("parse", "dry-run", "route", "stdin", "tangle", "search", "serve")


class Workload:
    """Run one workload on generated text in a scratch directory; return seconds."""

    def __init__(self, op: str, scratch: Path) -> None:
        from click.testing import CliRunner

        from orgrouter.cli import cli

        self.op = op
        self.scratch = scratch
        self.cli = cli
        self.runner = CliRunner()
        self.calls = 0
        self.server: subprocess.Popen[bytes] | None = None

    def _fresh(self) -> Path:
        self.calls += 1
        where = self.scratch / f"run{self.calls}"
        where.mkdir()
        return where

    def _invoke(self, args: list[str], text: str | None = None) -> None:
        result = self.runner.invoke(self.cli, args, input=text, catch_exceptions=False)
        if result.exit_code not in (0, 1):
            raise RuntimeError(
                f"orgrouter {' '.join(args)}: exit {result.exit_code}: {result.output[-500:]}"
            )

    def run(self, text: str) -> float:
        where = self._fresh()
        note = where / "note.org"
        note.write_text(text, encoding="utf-8")
        state = str(where / "state.db")
        common = ["--state", state, "--now", NOW]
        if self.op == "search":
            (where / "ask.org").write_text("* @agent find notes about budget and link them here\n")
        start = time.perf_counter()
        if self.op == "parse":
            self._invoke(["parse", "--json", str(note)])
        elif self.op == "dry-run":
            self._invoke(["route", "--dry-run", *common, str(note)])
        elif self.op == "route":
            self._invoke(["route", *common, str(note)])
        elif self.op == "stdin":
            self._invoke(["route", "--stdin", *common, "--file-name", str(note)], text)
        elif self.op == "tangle":
            self._invoke(["tangle", "--state", state, str(note)])
        elif self.op == "search":
            self._invoke(["route", "--dry-run", *common, str(where / "ask.org")])
        elif self.op == "serve":
            self._serve(text, str(note))
        else:
            raise ValueError(self.op)
        return time.perf_counter() - start

    def _serve(self, text: str, path: str) -> None:
        from orgrouter.serve.framing import read_message, write_message

        if self.server is None:
            state = str(self.scratch / "serve-state.db")
            env = {**os.environ, "PYTHONPATH": str(HERE.parent)}  # this checkout's orgrouter
            self.server = subprocess.Popen(
                [sys.executable, "-m", "orgrouter", "serve", "--state", state],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=self.scratch,
            )
        assert self.server.stdin is not None and self.server.stdout is not None
        call = {"text": text, "path": path, "now": NOW, "force": True}
        message = {"jsonrpc": "2.0", "id": self.calls, "method": "route", "params": call}
        write_message(self.server.stdin, json.dumps(message).encode())
        self.server.stdin.flush()
        reply = read_message(self.server.stdout)
        if reply is None or "error" in json.loads(reply):
            raise RuntimeError(f"serve route: {reply!r:.500}")

    def close(self) -> None:
        if self.server is not None:
            assert self.server.stdin is not None
            self.server.stdin.close()
            self.server.wait(timeout=30)


def measure_row(
    dimension: str, op: str, target: float, repeat: int, max_bytes: int
) -> dict[str, Any]:
    """Return n and the best time at n, 2n, 4n, 8n for one dimension and workload."""
    make = DIMENSIONS[dimension]
    with tempfile.TemporaryDirectory(prefix="orgrouter-scaling-") as scratch:
        workload = Workload(op, Path(scratch))
        try:
            workload.run(make(4))  # imports and bytecode, untimed

            def best(n: int) -> float:
                text = make(n)
                return min(workload.run(text) for _ in range(repeat))

            # What a call costs whatever its input (configuration, the state database,
            # the server's framing): it is taken off every time, so it hides no growth.
            floor = best(1)
            n = 16
            while best(n) - floor < max(target, 2 * floor) and len(make(n * 16)) <= max_bytes:
                n *= 2
            sizes = [n * 2**step for step in range(4)]
            times = [max(best(size) - floor, 1e-4) for size in sizes]
        finally:
            workload.close()
    lengths = [len(make(size).encode()) for size in sizes]
    return {
        "dimension": dimension,
        "op": op,
        "n": n,
        "floor": floor,
        "times": times,
        "bytes": lengths,
    }


def _row_in_child(dimension: str, op: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        dimension,
        op,
        "--target",
        str(args.target),
        "--repeat",
        str(args.repeat),
        "--max-bytes",
        str(args.max_bytes),
    ]
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="orgrouter-scaling-home-") as home:
        # No user configuration and no state outside the scratch directory.
        env.update(XDG_CONFIG_HOME=home, XDG_STATE_HOME=home, XDG_CACHE_HOME=home)
        env.pop("ORGROUTER_STATE", None)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, env=env, timeout=args.timeout
            )
        except subprocess.TimeoutExpired:
            return {"dimension": dimension, "op": op, "timeout": args.timeout}
    if done.returncode != 0:
        return {"dimension": dimension, "op": op, "error": done.stderr.strip().splitlines()[-1:]}
    row: dict[str, Any] = json.loads(done.stdout)
    return row


def _format(row: dict[str, Any]) -> str:
    head = f"| {row['dimension']} | {row['op']} |"
    if "timeout" in row:
        return f"{head} | > {row['timeout']} s | | | | | **timeout** |"
    if "error" in row:
        return f"{head} | | | | | | error: {' '.join(row['error'])} |"
    times, lengths = row["times"], row["bytes"]
    ratios = [later / earlier for earlier, later in itertools.pairwise(times)]
    # Nesting n deep takes about n²/2 bytes (a headline's stars, a list's indent): the
    # time is compared with the input's size, so the exponent is 1 when linear in bytes.
    grown = (lengths[-1] / lengths[0]) ** (1 / 3)
    exponent = math.log(times[-1] / times[0]) / math.log(lengths[-1] / lengths[0])
    verdict = "linear" if exponent < 1.4 else "**super-linear**"
    if times[0] < 0.002:  # below the noise: the input costs nothing next to the call
        verdict = "flat"
    cells = " | ".join(f"{ratio:.2f}" for ratio in ratios)
    return (
        f"{head} {row['n'] * 8} | {times[-1] * 1000:.0f} ms | {grown:.1f} | {cells} | "
        f"{exponent:.2f} {verdict} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", help="Dimensions, comma-separated (default: all).")
    parser.add_argument("--ops", help="Workloads, comma-separated (default: all).")
    parser.add_argument(
        "--target", type=float, default=0.05, help="Seconds the workload takes at n."
    )
    parser.add_argument("--repeat", type=int, default=3, help="Runs per size; the best counts.")
    parser.add_argument(
        "--max-bytes", type=int, default=4_000_000, help="The largest input (at 8n), in bytes."
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="Seconds a row may take.")
    parser.add_argument("--json", action="store_true", help="Print the rows as JSON lines.")
    parser.add_argument("--worker", nargs=2, metavar=("DIMENSION", "OP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.path.insert(0, str(HERE.parent))
        row = measure_row(*args.worker, args.target, args.repeat, args.max_bytes)
        print(json.dumps(row))
        return
    dimensions = args.only.split(",") if args.only else list(DIMENSIONS)
    ops = args.ops.split(",") if args.ops else list(OPS)
    for name in [*dimensions, *ops]:
        if name not in DIMENSIONS and name not in OPS:
            parser.error(f"unknown dimension or workload: {name}")
    if not args.json:
        print(
            "| dimension | workload | 8n | time at 8n (less fixed) | size × "
            "| 2n/n | 4n/2n | 8n/4n | exponent |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for dimension in dimensions:
        for op in ops:
            row = _row_in_child(dimension, op, args)
            print(json.dumps(row) if args.json else _format(row), flush=True)


if __name__ == "__main__":
    main()
