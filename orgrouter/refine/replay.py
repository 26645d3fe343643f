"""The golden set as refine sees it: scores per replay, and what a case got.

The gate engineer's ``orgrouter.route.golden`` owns the case format and the replay
(``load_cases(dir)``, ``replay(cases, rules)``: a result per case); this module only turns
them into refine's ``Scores``, so the gate compares two replays case by case.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.refine.score import CaseOutcome, Scores

if TYPE_CHECKING:
    from orgrouter.route.decompose import Intent
    from orgrouter.route.golden import Case
    from orgrouter.route.rules import Rules


def replay_golden(
    golden_dir: Path, rules_dir: Path | None, targets: Collection[str] | None = None
) -> Scores:
    """Replay the golden set with the rules in ``rules_dir`` (over the package's).

    ``targets``: the skills a table may name (``registry.targets``, with the user's).
    """
    from orgrouter.route.golden import load_cases, replay
    from orgrouter.route.rules import load_rules

    results = replay(load_cases(golden_dir), load_rules(rules_dir, targets))
    outcomes = (CaseOutcome(r.case_id, r.passed, r.mismatched) for r in results)
    return Scores({outcome.case_id: outcome for outcome in outcomes})


def actual_intents(case: Case, rules: Rules) -> Sequence[Intent]:
    """Return the intents the gate gives ``case`` today, exactly as the replay sees them."""
    from orgrouter.config import SensorGateConfig
    from orgrouter.route.gate import classify

    result = classify(
        case.text,
        rules,
        config=SensorGateConfig(),
        origin=case.origin,  # type: ignore[arg-type]
        items=case.items or None,
    )
    return result.decomposition.intents
