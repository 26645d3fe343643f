"""One deadline per model call, one model-time budget per run: a stuck model never holds a run.

The model is a real HTTP server on 127.0.0.1. A dripping one sends its reply a byte a
second (each read returns at once, so a per-read timeout never fires); at that pace a
reply takes minutes, and the CLI's subprocess limit (120 s) is what a run that is not
cut off would hit. No test asserts a time: each asserts what was cut and what was left.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter, serve

from orgrouter.config import NeuroConfig
from orgrouter.errors import ModelError
from orgrouter.neuro.backend import Message
from orgrouter.neuro.budget import TokenBudget
from orgrouter.neuro.factory import make_backend

NOW = ("--now", "2026-11-30T09:00:00")
ANSWER = "An answer that takes minutes to arrive at one byte a second."


def _model(root: Path, url: str, extra: str = "") -> None:
    (root / "orgrouter.toml").write_text(
        f'[neuro]\nbackend = "openai"\nendpoint = "{url}"\nmodel = "m"\n{extra}'
    )


def test_a_dripping_model_is_cut_off_by_the_calls_deadline(tmp_path: Path) -> None:
    note = tmp_path / "plan.org"
    note.write_text("* Launch\nWe ship on Friday.\n** @agent explain this plan\n")
    with serve() as server:
        server.always(ANSWER, drip_s=1.0)
        _model(tmp_path, server.url, "timeout_s = 2\nmax_retries = 2\n")
        done = run_orgrouter(tmp_path, "route", ".", *NOW)
        calls = len(server.received)
    assert done.returncode == 0, done.stderr
    text = note.read_text()
    assert "*** Model error: explain not done" in text
    assert "model timed out after 2s (neuro.timeout_s)" in text
    assert ANSWER not in text
    assert calls >= 2  # the decomposition and the skill each got their own deadline


def test_the_backend_call_ends_at_its_deadline_whatever_the_server_does() -> None:
    config = NeuroConfig(backend="openai", model="m", timeout_s=1.5, max_retries=3)
    with serve() as server:
        server.always(ANSWER, drip_s=0.5)
        config.endpoint = server.url
        backend = make_backend(config)
        assert backend is not None
        with pytest.raises(ModelError, match=r"timed out after 1.5s"):
            backend.complete([Message("user", "hello")], purpose="ask")
        assert len(server.received) == 1  # a timeout is not retried
        assert backend.budget.seconds > 0  # type: ignore[attr-defined]


def test_when_the_runs_model_time_is_spent_the_rest_is_deferred_not_failed(
    tmp_path: Path,
) -> None:
    notes = {
        "a.org": "* Launch\nWe ship on Friday.\n** @agent explain this plan\n",
        "b.org": "* Budget\nAnna reviews it.\n** @agent explain the budget\n",
    }
    for name, text in notes.items():
        (tmp_path / name).write_text(text)
    with serve() as server:
        server.always(ANSWER, drip_s=0.2)  # every call would outlast the run's time
        _model(tmp_path, server.url, "timeout_s = 30\nmax_retries = 0\nrun_timeout_s = 1\n")
        first = run_orgrouter(tmp_path, "route", ".", "--json", "-v", *NOW)
        asked = len(server.received)
    assert first.returncode == 0, first.stderr
    reports = [json.loads(line) for line in first.stdout.splitlines()]
    assert [r["status"] for r in reports] == ["deferred", "deferred"]
    assert asked == 1  # the second request did not even call: the time was gone
    assert "2 skipped (2 deferred: model time spent)" in first.stderr + first.stdout
    for name, text in notes.items():
        assert (tmp_path / name).read_text() == text  # no error result, no hash: still due
    with serve() as server:
        server.always(ANSWER)
        _model(tmp_path, server.url, "timeout_s = 30\nmax_retries = 0\nrun_timeout_s = 60\n")
        second = run_orgrouter(tmp_path, "route", ".", "--json", *NOW)
    assert second.returncode == 0, second.stderr
    assert [json.loads(line)["status"] for line in second.stdout.splitlines()] == ["done", "done"]
    for name in notes:
        assert ANSWER in (tmp_path / name).read_text()


def test_run_time_budget_counts_every_call() -> None:
    from orgrouter.neuro.budget import RunTimeSpent

    budget = TokenBudget(None, 2.0)
    budget.check(10)
    budget.charge_time(1.5)
    assert budget.time_left() == 0.5
    budget.charge_time(0.7)
    with pytest.raises(RunTimeSpent, match=r"neuro.run_timeout_s"):
        budget.check(10)


def test_run_timeout_s_is_validated(tmp_path: Path) -> None:
    (tmp_path / "n.org").write_text("* a\n")
    _model(tmp_path, "http://127.0.0.1:9/v1", "run_timeout_s = 0\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 2
    assert "neuro.run_timeout_s must be positive, not 0" in done.stderr
