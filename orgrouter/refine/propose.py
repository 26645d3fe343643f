"""``refine gate --propose``: write candidates from a run's findings.

The offline proposer teaches the decomposer verbs: for a failing golden case whose
expected intent went to the wrong skill because its verb is unknown, it adds that verb
to the expected skill's ``verbs`` list in ``verbs.toml``. It never moves a verb from
one skill to another (that could break the cases relying on it) and never writes a
case's whole text into a rule. The model panel (``panel.py``) may propose anything;
the gate judges both the same way.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from orgrouter.errors import RefusedError
from orgrouter.refine.candidate import Candidate, Edit
from orgrouter.refine.gate import require_completed, require_write_mode
from orgrouter.refine.panel import model_candidates
from orgrouter.refine.replay import actual_intents
from orgrouter.refine.store import Run
from orgrouter.refine.validate import MAX_EDITS, anchor_section
from orgrouter.refine.workspace import Workspace

if TYPE_CHECKING:
    from orgrouter.route.golden import Case

VERBS_FILE = "verbs.toml"
FALLBACK_SKILL = "ask"  # where the decomposer sends a verb it does not know
_VERBS_KEY = re.compile(rb"(?m)^verbs\s*=\s*\[")


def propose_candidates(ws: Workspace, run_id: int) -> list[Candidate]:
    """Return the panel's candidates for run ``run_id`` (offline first, then models)."""
    # Both refusals come before any proposal: a model call costs money (seed 002).
    require_write_mode(ws)
    run = ws.store.get(run_id)
    require_completed(ws, run)
    candidates: list[Candidate] = []
    offline = offline_candidate(ws, run)
    if offline is not None:
        candidates.append(offline)
    models, notes = model_candidates(ws, run.findings, _context(ws, run))
    candidates.extend(models)
    if not candidates:
        why = "; ".join(f"{note.member}: {note.outcome}" for note in notes)
        raise RefusedError(
            f"nothing to propose for run {run_id}: no finding the offline proposer can "
            "answer (an unknown verb for a failing golden case)"
            + (f", and the model panel gave none ({why})" if why else "")
        )
    return candidates


def unknown_verbs(ws: Workspace, run: Run) -> dict[str, dict[str, list[str]]]:
    """Return skill -> verb -> the failing case ids that want the verb taught."""
    from orgrouter.route.rules import load_rules, phrase

    cases = _failing_cases(ws, run)
    if not cases:
        return {}
    rules = load_rules(ws.tree.live, ws.targets)
    known = {*rules.verbs, *rules.generic}
    wanted: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for case in cases:
        if not case.intents:
            continue
        actual = actual_intents(case, rules)
        for index, want in enumerate(case.intents):
            skill, verb = want.get("skill"), want.get("verb")
            got = actual[index].skill if index < len(actual) else None
            if not isinstance(skill, str) or not isinstance(verb, str) or not verb:
                continue
            # Unknown verbs already go to the fallback skill: teaching it one says nothing.
            if got == skill or skill == FALLBACK_SKILL or phrase(verb) in known:
                continue
            wanted[skill][verb.lower()].append(case.id)
    return wanted


def offline_candidate(ws: Workspace, run: Run) -> Candidate | None:
    """Return a candidate teaching the unknown verbs of failing cases, or None."""
    wanted = unknown_verbs(ws, run)
    content = ws.tree.read(VERBS_FILE)
    if not wanted or content is None:
        return None
    # The skills wanted by the most cases first; the gate takes at most MAX_EDITS.
    ranked = sorted(wanted, key=lambda s: (-sum(map(len, wanted[s].values())), s))
    edits: list[Edit] = []
    for skill in ranked[:MAX_EDITS]:
        anchor = f"[skills.{skill}]"
        section = anchor_section(content, anchor.encode())
        found = None if isinstance(section, str) else _VERBS_KEY.search(content[slice(*section)])
        if found is None:
            continue
        before = found.group(0).decode()
        verbs = sorted(wanted[skill])
        added = "".join(f"{json.dumps(verb, ensure_ascii=False)}, " for verb in verbs)
        cases = sorted({case for verb in verbs for case in wanted[skill][verb]})
        edits.append(Edit(VERBS_FILE, "replace", before, before + added, anchor, tuple(cases)))
    if not edits:
        return None
    taught = ", ".join(f"{e.anchor}: {e.after[len(e.before) :].rstrip(', ')}" for e in edits)
    return Candidate(
        tuple(edits), proposer="offline", rationale=f"teach the decomposer verbs ({taught})"
    )


def _failing_cases(ws: Workspace, run: Run) -> list[Case]:
    """Return the golden cases that failed in ``run``, in the golden set's order."""
    from orgrouter.route.golden import load_cases

    failing = {f["case"] for f in run.findings if f["kind"] == "golden"}
    return [case for case in load_cases(ws.golden_dir) if case.id in failing] if failing else []


def _context(ws: Workspace, run: Run) -> str:
    """Return the failing cases' text and expectations for the model panel."""
    lines = ["Failing golden cases (request text -> expected gate fields and intents):"]
    lines.extend(
        f"- {case.id}: {case.text!r} items={list(case.items)} -> gate={dict(case.gate)} "
        f"intents={[dict(i) for i in case.intents or ()]}"
        for case in _failing_cases(ws, run)
    )
    return "\n".join(lines)
