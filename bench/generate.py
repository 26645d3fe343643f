"""Generate the benchmark's synthetic notes: a 2,000-file tree and one 5 MB file.

Deterministic: the same arguments give the same bytes on every machine (one seeded
``random.Random``, no clock, no locale). The notes look like real ones where it
matters to the scan: nested headlines with TODO keywords, tags (``:@home:`` tags and
e-mail addresses put ``@`` on headline lines that are not requests), property
drawers, planning lines, lists, tables and src blocks. Requests follow a mix of
skills (``DEFAULT_MIX`` per ``MIX_FILES`` files, scaled to the tree's size), one in
each chosen file, so every workload a user can call is measured.

    python bench/generate.py DEST [--files 2000] [--mb 30] [--big-mb 5] [--mix search=16,...]
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from pathlib import Path

_TEXT = (
    "the of and to in is it that for on with as was at by this be from or have an "
    "are not but had his they you were her she all which their one there been has "
    "when who will more no if out so said what up its about into than them can only "
    "other new some could time these two may then do first any my now such like our "
    "over man me even most made after also did many before must through back years "
    "where much your way well down should because each just those people how too "
    "little state good very make world still own see men work long get here between "
    "both life being under never day same another know while last might us great old "
    "year off come since against go came right used take three garden project meeting "
    "draft review budget release kernel parser notes agenda invoice travel recipe"
)
WORDS = tuple(_TEXT.split())
TAGS = ("work", "home", "@home", "@phone", "@errand", "project", "idea", "reading", "emacs")
KEYWORDS = ("TODO", "DONE", "NEXT", "WAITING", "")
# One request per offline skill a user can call, as users type them. A request's
# skill decides what a run does with it: `search` reads the other notes, `tangle`
# writes files, the others touch only their own note.
REQUESTS = {
    "summarize": "summarize this section, then create todos for the action items",
    "todo": "create a todo to renew the passport",
    "tag": "tag this with project and review",
    "schedule": "schedule the review for next monday",
    "search": "find notes about budget and link them here",
    "greet": "hi there",
    "compact": "/compact",
    "ask": "what is the capital of Peru?",
    "tangle": "tangle this",
    # The writes that wait for approval: an unattended run only proposes them.
    "archive": "archive this",
    "refile": "refile this to projects.org under Website",
    "delete": "delete this",
}
# Issue 15's mix: 40 requests in 2,000 files, 16 of them searches (37 before archive,
# refile and delete were measured too).
DEFAULT_MIX = {
    "search": 16,
    "summarize": 5,
    "todo": 4,
    "tag": 3,
    "schedule": 3,
    "greet": 2,
    "compact": 1,
    "ask": 2,
    "tangle": 1,
    "archive": 1,
    "refile": 1,
    "delete": 1,
}
MIX_FILES = 2000  # the tree size DEFAULT_MIX is given for; other sizes scale it


@dataclass
class Tree:
    """What was generated: the files, which of them hold a request, and their bytes."""

    files: list[Path] = field(default_factory=list)
    requests: list[Path] = field(default_factory=list)
    total_bytes: int = 0


def sentence(rng: random.Random, low: int = 6, high: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.08:
        words.insert(rng.randrange(len(words)), f"{rng.choice(WORDS)}@example.com")
    return " ".join(words).capitalize() + "."


def headline(rng: random.Random, level: int) -> str:
    keyword = rng.choice(KEYWORDS)
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7))).capitalize()
    if rng.random() < 0.06:
        title += f" with {rng.choice(WORDS)}@example.org"
    parts = ["*" * level, *([keyword] if keyword else []), title]
    line = " ".join(parts)
    if rng.random() < 0.35:
        tags = rng.sample(TAGS, rng.randint(1, 2))
        line = f"{line:<60} :{':'.join(tags)}:"
    return line


def section(rng: random.Random, level: int) -> list[str]:
    lines = [headline(rng, level)]
    if rng.random() < 0.2:
        lines.append(f"SCHEDULED: <2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}>")
    if rng.random() < 0.25:
        lines += [":PROPERTIES:", f":ID: {rng.getrandbits(64):016x}", ":END:"]
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.55:
            lines += [sentence(rng) + " " + sentence(rng), ""]
        elif kind < 0.75:
            lines += [f"- {sentence(rng, 3, 9)}" for _ in range(rng.randint(2, 5))] + [""]
        elif kind < 0.87:
            lines += [
                "#+begin_src python",
                f"def f{rng.randint(0, 99)}(x):",
                "    return x * 2",
                "#+end_src",
                "",
            ]
        else:
            lines += ["| name | count |", "|------+-------|"]
            lines += [f"| {rng.choice(WORDS)} | {rng.randint(0, 999)} |" for _ in range(3)] + [""]
    return lines


def document(rng: random.Random, size: int, request: str | None) -> bytes:
    """Return one Org document of about ``size`` bytes, with ``request`` placed once."""
    lines = [f"#+TITLE: {sentence(rng, 2, 5)[:-1]}", "#+STARTUP: overview", ""]
    length = sum(len(line) + 1 for line in lines)
    level = 1
    sections: list[list[str]] = []
    while length < size:
        level = max(1, min(level + rng.choice((-1, 0, 0, 1)), 4))
        block = section(rng, level)
        sections.append(block)
        length += sum(len(line) + 1 for line in block)
    if request is not None:
        at = rng.randrange(len(sections) + 1)
        block = [f"* @agent {request}", sentence(rng), ""]
        if request == REQUESTS["tangle"]:
            target = f"tangled-{rng.randrange(10**6):06d}.py"
            block[2:2] = [f"#+begin_src python :tangle {target}", "print('hi')", "#+end_src"]
        sections.insert(at, block)
    body = lines + [line for block in sections for line in block]
    return ("\n".join(body) + "\n").encode("utf-8")


def generate_tree(
    dest: Path,
    *,
    files: int = 2000,
    total_mb: float = 30.0,
    mix: dict[str, int] | None = None,
    seed: int = 2026,
) -> Tree:
    """Write ``files`` notes of ``total_mb`` MB in all under ``dest``; return what was made.

    ``mix`` gives how many requests of each skill (``REQUESTS``) a tree of
    ``MIX_FILES`` files holds; a larger or smaller tree holds proportionally as many.
    """
    rng = random.Random(seed)
    wanted = [
        REQUESTS[skill]
        for skill, n in sorted((mix or DEFAULT_MIX).items())
        for _ in range(n)
    ]
    count = min(files, round(len(wanted) * files / MIX_FILES))
    # Spread the skills evenly over the count: every skill of the mix appears once
    # the tree is big enough, and in proportion beyond that.
    requests = [wanted[(i * len(wanted)) // max(count, 1)] for i in range(count)]
    rng.shuffle(requests)
    with_request = dict(zip(sorted(rng.sample(range(files), count)), requests, strict=True))
    average = total_mb * 1_000_000 / max(files, 1)
    tree = Tree()
    for index in range(files):
        folder = dest / f"area-{index % 20:02d}" / f"topic-{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"note-{index:04d}.org"
        # Sizes spread like real notes: many small, a few large (lognormal-ish).
        size = int(average * min(rng.lognormvariate(0, 0.6), 8) / 1.2)
        request = with_request.get(index)
        data = document(rng, max(size, 200), request)
        path.write_bytes(data)
        tree.files.append(path)
        tree.total_bytes += len(data)
        if request is not None:
            tree.requests.append(path)
    return tree


MIX_HELP = (
    "Requests per skill in 2,000 files, e.g. search=16,todo=4 (default: "
    + ",".join(f"{k}={v}" for k, v in DEFAULT_MIX.items())
    + ")"
)


def parse_mix(text: str) -> dict[str, int]:
    """Return the mix ``skill=N,skill=N`` as a dict; unknown skills are an error."""
    mix: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        skill, _, count = part.partition("=")
        if skill not in REQUESTS or not count.isdigit():
            known = ", ".join(REQUESTS)
            raise argparse.ArgumentTypeError(f"{part!r}: want SKILL=N with SKILL one of {known}")
        mix[skill] = int(count)
    return mix


def generate_big(path: Path, *, mb: float = 5.0, seed: int = 2026) -> int:
    """Write one ``mb`` MB note holding one request in its middle; return its size."""
    rng = random.Random(seed + 1)
    data = document(rng, int(mb * 1_000_000), REQUESTS["todo"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--mb", type=float, default=30.0)
    parser.add_argument("--big-mb", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--mix", type=parse_mix, default=None, help=MIX_HELP)
    args = parser.parse_args()
    tree = generate_tree(
        args.dest / "tree", files=args.files, total_mb=args.mb, mix=args.mix, seed=args.seed
    )
    big = generate_big(args.dest / "big.org", mb=args.big_mb, seed=args.seed)
    print(
        f"{len(tree.files)} files, {tree.total_bytes / 1e6:.1f} MB, "
        f"{len(tree.requests)} with a request; big.org {big / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
