"""``route`` over the server equals ``route --stdin`` byte for byte, on generated notes.

Notes are put together from headlines (requests and not, with TODO keywords, tags and
non-BMP characters), bodies, drawers and src blocks, joined by any line end (LF, CRLF,
CR alone, mixed), with or without a BOM and a final newline. The server's ``text``
must equal the CLI's stdout, and its ``edits`` applied in characters must give it too.
"""

from __future__ import annotations

import sys
import tempfile
from contextlib import chdir
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_helpers import apply_edits, call, make_server
from test_serve_route import NOW, stdin_route

REQUESTS = [
    "@agent create a todo to buy milk",
    "@agent remind me tomorrow to call 🎉 Ann",
    "@agent summarize this",
    "@agent delete everything",
    "@agent move this under Website",
    "@agent tangle this",
    "@agent hello",
]
WORDS = st.sampled_from(["notes", "😀 emoji", "𝔘𝔫𝔦", "café", "tab\there", "a:b:", "[[link]]"])
HEADLINE = st.builds(
    lambda stars, todo, words, tags: "*" * stars + " " + todo + words + tags,
    st.integers(1, 4),
    st.sampled_from(["", "TODO ", "WAITING ", "DONE "]),
    st.one_of(st.sampled_from(REQUESTS), WORDS),
    st.sampled_from(["", " :work:", " :a:😀:"]),
)
BODY = st.one_of(
    WORDS,
    st.just(":PROPERTIES:\n:ID: x\n:END:"),
    st.just("#+begin_src sh :tangle out.sh\necho 🎉\n#+end_src"),
    st.just("#+STARTUP: overview"),
    st.just(""),
)
LINES = st.lists(st.one_of(HEADLINE, BODY), min_size=1, max_size=8)


def join(lines: list[str], ends: list[str], final: bool) -> str:
    """Return ``lines`` (which may hold LF) joined with ``ends`` in turn."""
    flat = [part for line in lines for part in line.split("\n")]
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(flat[:-1]))
    return text + flat[-1] + (ends[0] if final else "")


@settings(max_examples=60, deadline=None)
@given(
    lines=LINES,
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
    bom=st.booleans(),
    final=st.booleans(),
)
def test_generated_notes_over_the_server_equal_stdin(
    lines: list[str], ends: list[str], bom: bool, final: bool
) -> None:
    text = ("\ufeff" if bom else "") + join(lines, ends, final)
    with tempfile.TemporaryDirectory() as name:
        # Each side in a tree of its own: a tangle one writes must not be there for the other.
        cli_dir, server_dir = Path(name) / "cli", Path(name) / "server"
        cli_dir.mkdir()
        server_dir.mkdir()
        args = ["--now", NOW, "--file-name", "n.org", "--state", str(cli_dir / "s.db")]
        with chdir(cli_dir):
            expected = stdin_route(args, text.encode(), cli_dir)
        server = make_server(server_dir, state_path=str(server_dir / "s.db"))
        with chdir(server_dir):
            result = call(server, "route", {"text": text, "path": "n.org", "now": NOW})
        assert result["text"].encode() == expected
        assert result["changed"] is (expected != text.encode())
        assert apply_edits(text, result["edits"]) == result["text"]
        assert sorted(p.name for p in cli_dir.iterdir()) == sorted(
            p.name for p in server_dir.iterdir()
        )  # the same files written
