"""The whole cycle from the command line, on the project's own golden set:
run -> gate -> approve -> rollback in a temp rules dir, plus the CLI's refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from orgrouter.cli import main
from orgrouter.refine.replay import replay_golden
from orgrouter.refine.tree import package_rules_dir
from orgrouter.route.golden import package_golden_dir

CONFIG = """\
[rules]
dir = "rules"

[refine]
mode = "{mode}"
files = ["verbs.toml"]

[state]
path = "state.sqlite3"
"""


def orgrouter(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rules").mkdir()
    shutil.copy(package_rules_dir() / "verbs.toml", tmp_path / "rules" / "verbs.toml")
    (tmp_path / "orgrouter.toml").write_text(CONFIG.format(mode="propose"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ORGROUTER_CONFIG", raising=False)
    monkeypatch.delenv("ORGROUTER_STATE", raising=False)
    monkeypatch.setenv("ORGROUTER_NOW", "2026-01-02T03:04:05Z")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


def test_whole_cycle_on_the_project_golden_set(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = replay_golden(package_golden_dir(), notes / "rules")
    verbs = notes / "rules" / "verbs.toml"
    original = verbs.read_bytes()

    code, out, _ = orgrouter(capsys, "refine", "run", "--json", "--log", "events.jsonl")
    run = json.loads(out)
    assert (code, run["run"], run["status"]) == (0, 1, "completed")
    assert (run["cases"], run["passed"]) == (expected.total, expected.passed)
    assert run["new_findings"] == expected.total - expected.passed
    assert run["baseline"] == "accepted"

    code, out, _ = orgrouter(capsys, "refine", "run", "--json")
    assert (code, json.loads(out)["new_findings"]) == (0, 0)

    # A verb no golden case uses: the gate must find no regression and no score drop.
    candidate = notes / "candidate.json"
    candidate.write_text(
        json.dumps(
            {
                "proposer": "hand",
                "rationale": "teach 'skim'",
                "edits": [
                    {
                        "file": "verbs.toml",
                        "op": "replace",
                        "anchor": "[skills.summarize]",
                        "before": "verbs = [",
                        "after": 'verbs = ["skim", ',
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    code, out, _ = orgrouter(
        capsys, "refine", "gate", "2", "--candidate", str(candidate), "--log", "events.jsonl"
    )
    assert code == 0
    assert out.startswith("run 2: awaiting_approval; ")
    assert verbs.read_bytes() == original

    code, out, _ = orgrouter(capsys, "refine", "approve", "2", "--log", "events.jsonl")
    assert (code, out) == (
        0,
        "run 2: applied as version 1 (undo with `orgrouter refine rollback 1`)\n",
    )
    assert verbs.read_bytes() == original.replace(
        b"[skills.summarize]\nverbs = [", b'[skills.summarize]\nverbs = ["skim", ', 1
    )

    code, out, _ = orgrouter(capsys, "refine", "status", "--json")
    status = json.loads(out)
    assert [(r["run"], r["status"]) for r in status["runs"]] == [(2, "applied"), (1, "completed")]
    assert status["versions"] == [
        {
            "version": 1,
            "run": 2,
            "created": "2026-01-02T03:04:05Z",
            "status": "applied",
            "files": ["verbs.toml"],
        }
    ]

    code, out, _ = orgrouter(capsys, "refine", "rollback", "--log", "events.jsonl")
    assert (code, out) == (0, "rolled back version 1: restored verbs.toml\n")
    assert verbs.read_bytes() == original

    logged = [json.loads(line) for line in (notes / "events.jsonl").read_text().splitlines()]
    assert [e["event"] for e in logged] == [
        "refinement_run",
        "refinement_gated",
        "refinement_applied",
        "refinement_rolled_back",
    ]
    assert logged[2]["version"] == 1 and logged[2]["run_id"] == 2
    # Ids and counts only: no rule text, no case text.
    assert "skim" not in (notes / "events.jsonl").read_text()


def test_gate_without_a_candidate_is_an_error_not_a_guess(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orgrouter(capsys, "refine", "run")
    code, _, err = orgrouter(capsys, "refine", "gate", "1")
    assert (code, err) == (
        2,
        "orgrouter: error: a candidate is required: --candidate FILE, "
        "or --propose to have one written\n",
    )


def test_report_mode_is_the_default_and_refuses(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (notes / "orgrouter.toml").write_text(
        '[rules]\ndir = "rules"\n[state]\npath = "state.sqlite3"\n', encoding="utf-8"
    )
    code, out, _ = orgrouter(capsys, "refine", "run")
    assert code == 0 and out.startswith("run 1: completed; ")
    code, _, err = orgrouter(capsys, "refine", "gate", "1", "--propose")
    assert code == 3
    assert err.startswith('orgrouter: error: refine.mode is "report" (the default)')


def test_rejected_gate_exits_1(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orgrouter(capsys, "refine", "run")
    candidate = notes / "c.json"
    # "summarize" is every summarize case's verb; giving it to `tag` breaks the table.
    candidate.write_text(
        json.dumps(
            {
                "edits": [
                    {
                        "file": "verbs.toml",
                        "op": "replace",
                        "anchor": "[skills.tag]",
                        "before": "verbs = [",
                        "after": 'verbs = ["summarize", ',
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    code, out, _ = orgrouter(capsys, "refine", "gate", "1", "--candidate", str(candidate))
    assert code == 1
    assert out.startswith("run 1: rejected; ")
    assert "rejected: the edited rules do not load: " in out


def test_bad_candidate_file_names_file_and_line(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orgrouter(capsys, "refine", "run")
    (notes / "c.json").write_text('{"edits": [\n  {"file": 1}\n', encoding="utf-8")
    code, _, err = orgrouter(capsys, "refine", "gate", "1", "--candidate", "c.json")
    assert code == 3
    assert err.startswith("orgrouter: error: c.json:3:1: not valid JSON: ")


def test_unknown_run_is_a_usage_error(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = orgrouter(capsys, "refine", "approve", "9")
    assert (code, err) == (
        2,
        "orgrouter: error: no refinement run 9 (see `orgrouter refine status`)\n",
    )


def test_propose_and_status_of_one_run(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(__file__).resolve().parent.parent / "data" / "refine" / "mini"
    shutil.copytree(data, notes / "golden")
    (notes / "orgrouter.toml").write_text(
        CONFIG.format(mode="auto_apply") + "\n[refine.x]\n", encoding="utf-8"
    )
    code, _, err = orgrouter(capsys, "refine", "run")
    assert code == 2 and "refine" in err  # an unknown key is a config error, named
    (notes / "orgrouter.toml").write_text(
        CONFIG.format(mode="auto_apply").replace("[refine]", '[refine]\ngolden = "golden"'),
        encoding="utf-8",
    )
    code, out, _ = orgrouter(capsys, "refine", "run")
    assert out.splitlines() == [
        "run 1: completed; 3/5 golden cases pass (score 0.6000); 2 new findings; baseline accepted",
        "  routed requests: none recorded in the state database yet",
        "  golden case precis: intents[1].skill",
        "  golden case skim: intents[1].skill",
    ]
    code, out, _ = orgrouter(capsys, "refine", "gate", "1", "--propose", "--json")
    gated = json.loads(out)
    assert (code, gated["status"], gated["version"], gated["proposer"]) == (
        0,
        "applied",
        1,
        "offline",
    )
    assert gated["verdict"]["fixed"] == ["precis", "skim"]
    assert gated["edits"] == [
        {
            "file": "verbs.toml",
            "op": "replace",
            "anchor": "[skills.summarize]",
            "before": "verbs = [",
            "after": 'verbs = ["precis", "skim", ',
            "addresses": ["precis", "skim"],
        }
    ]
    code, out, _ = orgrouter(capsys, "refine", "status", "1")
    assert out.splitlines() == [
        "mode: auto_apply; baseline: 5/5 (score 1.0000) accepted 2026-01-02T03:04:05Z",
        "run 1: applied (created 2026-01-02T03:04:05Z, updated 2026-01-02T03:04:05Z); "
        "3/5 cases pass; 2 findings",
        "  gate: passed; score 1.0000 vs 0.6000; 1 edit, 0 dropped",
        "    replace in verbs.toml: 'verbs = [' -> 'verbs = [\"precis\", \"skim\", '",
        "  version: 1",
    ]


WEATHER_SKILL = """
from orgrouter.skills.base import BaseSkill, Emit, Result

class Weather(BaseSkill):
    name = "weather"
    priority = 40

    def symbolic(self, proposal, ctx):
        return Emit((Result(title="Forecast", body=proposal.text + "\\n"),))

SKILLS = [Weather()]
"""


def test_refine_knows_the_user_skills_a_table_routes_to(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A table may send a verb to a user skill (skills.paths), as route does: refine's
    # replay and proposals load the tables with the same targets instead of refusing it.
    (notes / "skills").mkdir()
    (notes / "skills" / "weather.py").write_text(WEATHER_SKILL, encoding="utf-8")
    config = notes / "orgrouter.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[skills]\npaths = ["skills"]\n', encoding="utf-8"
    )
    verbs = notes / "rules" / "verbs.toml"
    verbs.write_text(
        verbs.read_text(encoding="utf-8")
        + '\n[skills.weather]\nverbs = ["forecast"]\nnouns = ["weather"]\n',
        encoding="utf-8",
    )
    code, out, err = orgrouter(capsys, "refine", "run", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "completed"
