"""The sensor gate's decisions: the JSON contract, spawn scoring, guardian, bypass."""

from __future__ import annotations

from pathlib import Path

import pytest

import orgrouter.route.gate as gate_module
from orgrouter.config import SensorGateConfig
from orgrouter.route.decompose import Decomposition
from orgrouter.route.gate import classify, is_simple, pick_personas, spawn_score
from orgrouter.route.rules import default_rules, load_rules

RULES = default_rules()


def test_contract_json_exactly_in_the_seed_order() -> None:
    result = classify("summarize this section, then create todos for the action items", RULES)
    assert result.to_json() == {
        "intent": "multi_step",
        "domain_tags": ["notes", "planning"],
        "risk_level": "low",
        "confidence": 0.85,
        "complexity": "medium",
        "primary_skill": "summarize",
        "support_skills": ["todo"],
        "chain": ["summarize", "todo"],
        "guardian_decision": "APPROVED",
        "guardian_risk": "low",
        "mode": "STANDARD",
        "personas": [
            {"name": "The Planner", "role": "Tasks and Scheduling",
             "domains": ["planning", "calendar", "travel"], "skills": ["todo", "schedule"]},
            {"name": "The Librarian", "role": "Finding and Linking Notes",
             "domains": ["notes", "research"], "skills": ["search", "tag", "summarize"]},
        ],
        "spawn": {
            "count": 2, "wanted": 2, "score": 3,
            "factors": [{"factor": "domains", "weight": 1}, {"factor": "chain", "weight": 2}],
            "skip": None,
        },
        "bypass": None,
        "reason": None,
        "clarify": False,
        "understood": ["summarize: summarize this section [0.90]",
                       "todo: create todos for the action items [0.85]"],
    }
    assert list(result.to_json())[:12] == [
        "intent", "domain_tags", "risk_level", "confidence", "complexity", "primary_skill",
        "support_skills", "chain", "guardian_decision", "guardian_risk", "mode", "personas",
    ]
    assert result.runs and result.held == []


def test_spawn_factors_follow_the_seed_table() -> None:
    code = "explain\n#+begin_src python\nx = 1\n#+end_src\n" + "and why it matters " * 10
    assert len(code) > 200
    assert spawn_score(code, ["a", "b", "c"], "high", ["explain", "search", "draft"],
                       "DREAM_INNOVATION", RULES) == [
        ("domains", 3), ("high_risk", 2), ("chain", 3), ("innovation", 2), ("code_long", 1)
    ]
    assert spawn_score("short ```code```", ["a", "b"], "medium", ["draft", "tag"], "STANDARD",
                       RULES) == [("domains", 1), ("chain", 2)]
    inline = "explain ~x = 1~ " + "and why it matters " * 12  # inline code is no block
    assert spawn_score(inline, [], "low", ["explain"], "STANDARD", RULES) == []
    # "always" skills do not make a chain longer.
    assert spawn_score("x", [], "low", ["ask", "greet", "draft"], "STANDARD", RULES) == []


def test_spawn_count_is_ceil_half_the_score_capped_by_max_personas() -> None:
    text = ("brainstorm ideas for the python api, draft a blog post on it and schedule a "
            "meeting on friday")
    assert classify(text, RULES).spawn.to_json()["score"] == 7
    assert classify(text, RULES).spawn.count == 4
    capped = classify(text, RULES, config=SensorGateConfig(max_personas=2))
    assert (capped.spawn.wanted, capped.spawn.count, len(capped.personas)) == (2, 2, 2)


def test_spawns_never_exceed_the_personas_defined(tmp_path: Path) -> None:
    (tmp_path / "personas.toml").write_text(
        '[[persona]]\nname = "Solo"\nrole = "Everything"\ndomains = ["code"]\n', "utf-8"
    )
    text = ("brainstorm ideas for the python api, draft a blog post on it and schedule a "
            "meeting on friday")
    result = classify(text, load_rules(tmp_path), config=SensorGateConfig(max_personas=9))
    assert (result.spawn.score, result.spawn.count, [p.name for p in result.personas]) == (
        7, 1, ["Solo"]
    )


def test_simplicity_words_skip_spawning() -> None:
    assert is_simple("Fix: the typo", RULES) and is_simple("update it", RULES)
    assert not is_simple("fixate on it", RULES) and not is_simple("", RULES)
    result = classify("add tags to these and summarize the section", RULES)
    assert (result.spawn.score, result.spawn.count, result.spawn.skip) == (2, 0, "simplicity")


def test_personas_best_fit_first_ties_in_file_order() -> None:
    names = [p.name for p in pick_personas(3, ["code"], ["rewrite"], "STANDARD", RULES)]
    assert names == ["The Artisan", "The Detective", "The Editor"]
    assert pick_personas(0, ["code"], [], "STANDARD", RULES) == []


def test_below_min_confidence_nothing_runs_and_what_was_understood_is_given() -> None:
    result = classify("frobnicate the widgets", RULES)
    assert (result.clarify, result.guardian_decision, result.intent, result.runs) == (
        True, "HUMAN_REQUIRED", "unclear", False
    )
    assert result.reason == (
        "confidence 0.30 is below min_confidence 0.50: asking what was meant"
    )
    assert result.understood() == ["ask: frobnicate the widgets [0.30]"]
    strict = classify("sumarize this", RULES, config=SensorGateConfig(min_confidence=0.8))
    assert strict.clarify and strict.confidence == 0.7
    assert not classify("sumarize this", RULES).clarify


def test_risky_intents_are_held_and_safe_ones_still_run() -> None:
    result = classify("summarize this and then delete the old drafts", RULES)
    assert (result.guardian_decision, result.risk_level, result.guardian_risk) == (
        "HUMAN_REQUIRED", "high", "low"
    )
    assert result.held == [2] and result.runs
    assert result.reason == (
        "approval needed: intent 2 'delete the old drafts': 'delete' is a risky verb (high risk)"
    )
    assert result.spawn.skip == "approval"


def test_failure_to_classify_is_refused_never_approved(monkeypatch: pytest.MonkeyPatch) -> None:
    empty = classify("   ", RULES)
    assert (empty.guardian_decision, empty.reason, empty.primary_skill, empty.chain) == (
        "REJECTED", "cannot classify: no instruction found", None, []
    )

    def broken(text: str, rules: object, **kwargs: object) -> Decomposition:
        raise RuntimeError("table exploded")

    monkeypatch.setattr(gate_module, "decompose", broken)
    refused = classify("summarize this", RULES)
    assert (refused.guardian_decision, refused.reason, refused.runs) == (
        "REJECTED", "cannot classify: RuntimeError: table exploded", False
    )


@pytest.mark.parametrize(
    ("text", "origin", "bypass", "skill"),
    [
        ("hello!", "user", "greeting", "greet"),
        ("/compact", "user", "compact", "compact"),
        ("summarize this", "delegation", "delegation", "summarize"),
        ("** Summary\nthe result", "result", "result", None),
    ],
)
def test_bypass(text: str, origin: str, bypass: str, skill: str | None) -> None:
    result = classify(text, RULES, origin=origin)  # type: ignore[arg-type]
    assert (result.bypass, result.primary_skill, result.spawn.count, result.clarify) == (
        bypass, skill, 0, False
    )
    assert result.guardian_decision == "APPROVED"


def test_disabled_gate_still_guards_but_spawns_nothing() -> None:
    off = SensorGateConfig(enabled=False)
    result = classify("brainstorm ideas then delete the drafts", RULES, config=off)
    assert (result.bypass, result.spawn.count, result.guardian_decision) == (
        "disabled", 0, "HUMAN_REQUIRED"
    )
    assert not classify("xyzzy plugh", RULES, config=off).clarify


def test_items_are_classified_as_one_request() -> None:
    result = classify("", RULES, items=["call the plumber", "summarize the lease"])
    assert (result.intent, result.chain) == ("multi_step", ["todo", "summarize"])
    assert [i.item for i in result.decomposition.intents] == [0, 1]


def test_mode_and_complexity() -> None:
    assert classify("tag it", RULES).mode == "TRIVIAL"
    assert classify("imagine a better name", RULES).mode == "DREAM_INNOVATION"
    assert classify("tag it and summarize it", RULES).mode == "STANDARD"
    long = "summarize it; tag it; schedule it; translate it"
    assert classify(long, RULES).complexity == "high"
