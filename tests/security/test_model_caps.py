"""Sizes are bounded: a huge model reply, a huge instruction, both through the real CLI."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter, serve

NOW = ("--now", "2026-11-30T09:00:00")
NOTE = "* Launch\nWe ship on Friday.\n** @agent explain this plan\n"
# One line of the reply: a megabyte of them, each a structure attempt as well.
LINE = "* a line of a runaway reply, with a headline star\n"


def _model(root: Path, url: str, extra: str = "") -> None:
    (root / "orgrouter.toml").write_text(
        f'[neuro]\nbackend = "openai"\nendpoint = "{url}"\nmodel = "m"\n'
        f"timeout_s = 30\nmax_retries = 0\n{extra}"
    )


def _bodies(text: str) -> list[str]:
    """Return the bodies of the result headlines (level 3), after their drawers."""
    parts = text.split("\n*** ")[1:]
    return [part.split(":END:\n", 1)[1] for part in parts]


def test_a_megabyte_reply_is_cut_with_a_visible_line(tmp_path: Path) -> None:
    note = tmp_path / "plan.org"
    note.write_text(NOTE)
    reply = LINE * (1024 * 1024 // len(LINE) + 1)
    with serve() as server:
        server.always(reply)
        _model(tmp_path, server.url)
        done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    text = note.read_text()
    bodies = _bodies(text)
    assert len(bodies) >= 2  # the skill's answer and the specialist's
    for body in bodies:
        assert len(body.encode()) <= 32 * 1024 + 2 * 1024  # a comma a line at most, + the mark
        assert "\n… (truncated)" in body
    assert len(text.encode()) < len(NOTE) + len(bodies) * 36 * 1024


def test_result_bytes_is_configurable_and_validated(tmp_path: Path) -> None:
    note = tmp_path / "plan.org"
    note.write_text(NOTE)
    with serve() as server:
        server.always(LINE * 1000)
        _model(tmp_path, server.url, "[limits]\nresult_bytes = 10\n")
        bad = run_orgrouter(tmp_path, "route", ".", *NOW)
        assert bad.returncode == 2
        assert "limits.result_bytes must be at least 1024, not 10" in bad.stderr
        assert "orgrouter.toml:" in bad.stderr
        assert note.read_text() == NOTE
        _model(tmp_path, server.url, "[limits]\nresult_bytes = 2048\n")
        done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    for body in _bodies(note.read_text()):
        assert len(body.encode()) <= 2048 + 200


def test_a_huge_instruction_grows_the_note_by_a_bounded_amount(tmp_path: Path) -> None:
    """A 1 MB headline (the issue's was 40 MB: the same code path, longer to build)."""
    words = "word " * (1024 * 1024 // 5)
    notes = {
        "search.org": f"* Notes\n** @agent find notes about {words}\n",
        "tag.org": f"* Notes\n** @agent tag this as {words}\n",
        "unknown.org": f"* Notes\n** @agent blorp {words}\n",
    }
    for name, text in notes.items():
        (tmp_path / name).write_text(text)
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    for name, text in notes.items():
        grown = (tmp_path / name).stat().st_size - len(text.encode())
        assert 0 < grown <= 4096, (name, grown)
        assert "limits.instruction_chars" in (tmp_path / name).read_text()


def test_titles_and_intents_echo_at_most_echo_chars(tmp_path: Path) -> None:
    words = "kubernetes " * 1500  # under instruction_chars: routed, and echoed
    note = tmp_path / "n.org"
    note.write_text(f"* Notes\n** @agent find notes about {words}\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    added = note.read_text().split("\n", 2)[2]
    heads = [line for line in added.splitlines() if line.startswith(("*", ":"))]
    assert any(line.startswith("*** Search: kubernetes") for line in heads)
    for line in heads:  # headlines and properties; the body may quote more
        assert len(line) <= 200 + len(":ORGROUTER_INTENT: "), line[:80]


def test_a_reply_larger_than_8_mib_is_refused_not_read_whole() -> None:
    import pytest

    from orgrouter.config import NeuroConfig
    from orgrouter.errors import ModelError
    from orgrouter.neuro.backend import Message
    from orgrouter.neuro.factory import make_backend

    with serve() as server:
        server.always("x" * (9 * 1024 * 1024))
        config = NeuroConfig(backend="openai", endpoint=server.url, model="m", max_retries=0)
        backend = make_backend(config)
        assert backend is not None
        with pytest.raises(ModelError, match=r"larger than 8 MiB"):
            backend.complete([Message("user", "hello")], purpose="ask")


def test_ask_prints_an_answer_within_the_same_limit(tmp_path: Path) -> None:
    with serve() as server:
        server.always(LINE * (1024 * 1024 // len(LINE) + 1))
        _model(tmp_path, server.url)
        done = run_orgrouter(tmp_path, "ask", "explain everything")
    assert done.returncode == 0, done.stderr
    assert "\n… (truncated)" in done.stdout
    assert len(done.stdout.encode()) <= 2 * (32 * 1024 + 2 * 1024)  # answer and specialist
