"""``orgrouter classify`` and ``orgrouter decompose`` from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ENV_KEYS = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME")


def _run(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")}
    env.update({key: str(cwd / key.lower()) for key in ENV_KEYS})
    return subprocess.run(
        [sys.executable, "-m", "orgrouter", *args], cwd=cwd, env=env, input=stdin,
        capture_output=True, text=True, check=False,
    )


@pytest.fixture
def here(tmp_path: Path) -> Path:
    return tmp_path


def test_classify_prints_the_contract(here: Path) -> None:
    done = _run(["classify", "--state", str(here / "s.db"), "tag this :x:"], here)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data)[:3] == ["intent", "domain_tags", "risk_level"]
    assert (data["primary_skill"], data["guardian_decision"], data["bypass"]) == (
        "tag", "APPROVED", None
    )


def test_classify_reads_stdin_and_shares_the_rate_limit_across_runs(here: Path) -> None:
    text = "summarize this section, then create todos for the action items"
    state = here / "s.db"
    args = ["classify", "--state", str(state), "--now", "2026-11-30T09:00:00Z"]
    # A query changes nothing: seven asks, the same answer, and no database made.
    for _ in range(7):
        assert json.loads(_run([*args, "-"], here, text).stdout)["spawn"]["count"] == 2
    assert not state.exists()
    recorded = [*args, "--record", "-"]
    counts = [json.loads(_run(recorded, here, text).stdout)["spawn"]["count"] for _ in range(3)]
    assert counts == [2, 2, 0]
    # The window --record filled is read (not written) by a plain query.
    size = state.stat().st_size
    assert json.loads(_run([*args, "-"], here, text).stdout)["spawn"]["count"] == 0
    assert state.stat().st_size == size
    other = _run([*args, "--record", "--session", "other.org", "-"], here, text)
    assert json.loads(other.stdout)["spawn"]["count"] == 2
    assert _run([*args, "--record", "--no-rate-limit", "-"], here, text).returncode == 2
    free = _run(["classify", "--no-rate-limit", text], here)
    assert json.loads(free.stdout)["spawn"]["count"] == 2
    assert not (here / "xdg_state_home").exists()  # --no-rate-limit stores nothing


def test_classify_uses_config_for_min_confidence_and_rules_dir(here: Path) -> None:
    rules = here / "rules"
    rules.mkdir()
    (rules / "chains.toml").write_text("always = []\n[support]\n", "utf-8")
    (here / "orgrouter.toml").write_text(
        '[sensor_gate]\nmin_confidence = 0.95\n[rules]\ndir = "rules"\n', "utf-8"
    )
    data = json.loads(_run(["classify", "--no-rate-limit", "explain this"], here).stdout)
    assert (data["clarify"], data["chain"]) == (True, ["explain"])


def test_classify_body_items(here: Path) -> None:
    done = _run(["classify", "--no-rate-limit", "--item", "call bob", "--item", "tag it"], here)
    data = json.loads(done.stdout)
    assert (data["chain"], data["understood"]) == (
        ["todo", "tag"], ["todo: call bob [0.90]", "tag: tag it [0.90]"]
    )
    assert _run(["classify"], here).returncode == 2


def test_classify_bad_clock_and_bad_rules_exit_2(here: Path) -> None:
    bad_now = _run(["classify", "--now", "yesterday", "x"], here)
    assert bad_now.returncode == 2
    assert "'yesterday' is not an ISO 8601 time" in bad_now.stderr
    (here / "r").mkdir()
    (here / "r" / "risk.toml").write_text(
        "[verbs]\ndelete = 'severe'\n[words]\n[outside]\nverbs = ['save']\npaths = ['^/']\n",
        "utf-8",
    )
    bad_rules = _run(["classify", "--no-rate-limit", "--rules", "r", "x"], here)
    assert bad_rules.returncode == 2
    assert bad_rules.stderr == (
        f"orgrouter: error: {here / 'r' / 'risk.toml'}:2: routing table risk.toml: "
        "verbs.delete = 'severe' must be one of low, medium, high\n"
    )


def test_decompose_sexp_and_json(here: Path) -> None:
    sexp = _run(["decompose", "--sexp", "tag it then summarize it"], here)
    assert sexp.stdout.startswith("(:type :MULTI-DELEGATION :intents ((:order 1 :skill :tag ")
    failed = _run(["decompose", "--sexp", "  "], here)
    assert failed.stdout == '(:type :LOG :payload (:text "Router failed to classify."))\n'
    data = json.loads(_run(["decompose", "--json", "ask @coder to refactor this"], here).stdout)
    assert [(i["agent"], i["verb"], i["text"]) for i in data["intents"]] == [
        ("coder", "refactor", "refactor this")
    ]
    items = json.loads(_run(["decompose", "--item", "call bob", "--item", "tag it"], here).stdout)
    assert [(i["item"], i["skill"]) for i in items["intents"]] == [(0, "todo"), (1, "tag")]


def test_decompose_usage_errors_exit_2(here: Path) -> None:
    both = _run(["decompose", "--json", "--sexp", "x"], here)
    assert (both.returncode, both.stderr) == (
        2, "orgrouter: error: --json and --sexp are exclusive: choose one output\n"
    )
    assert _run(["decompose"], here).returncode == 2
