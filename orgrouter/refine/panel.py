"""The model panel: each configured model writes one candidate, within a token budget.

Seed 002 phase D: N models write N candidates and the gate scores each; the best
survivor is the one proposal a human is shown. The panel is the default model plus
any per-agent model (``[agents.NAME.neuro]``) that is not the offline ``rules``; the
whole panel shares ``refine.budget_tokens`` (else ``neuro.budget_tokens``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from orgrouter.config import NeuroConfig
from orgrouter.errors import InputError, ModelError
from orgrouter.refine.candidate import Candidate, candidate_from_json
from orgrouter.refine.validate import MAX_EDIT_BYTES, MAX_EDITS
from orgrouter.refine.workspace import Workspace

SYSTEM = f"""You improve the routing rules of orgrouter, a tool that routes @agent requests
in Emacs Org notes. The rules are TOML tables; a golden set of cases checks them.
Given failing cases and the rules files you may edit, propose a small, general change
(never a rule that only matches one case's exact text).
Reply with ONE JSON object and nothing else:
{{"rationale": "...", "edits": [{{"file": "...", "op": "replace" or "append",
"anchor": "[table] header (optional)", "before": "exact text", "after": "new text",
"addresses": ["case ids"]}}]}}
Limits: at most {MAX_EDITS} edits, at most {MAX_EDIT_BYTES} bytes each, a file may grow by
at most 15%. `before` must be copied exactly and occur exactly once in the file (or
once in the anchor's section); for "append", `after` goes right after `before`."""


@dataclass(frozen=True)
class PanelNote:
    """What one panel member did (for the report): its name and outcome."""

    member: str
    outcome: str  # "proposed" | "failed: ..." | "budget reached"


def panel_members(ws: Workspace) -> list[tuple[str, NeuroConfig]]:
    """Return the configured models (name, settings), without duplicates."""
    members: list[tuple[str, NeuroConfig]] = []
    seen: set[tuple[str | None, str | None]] = set()
    configs = [("default", ws.config.neuro), *sorted(ws.config.agents.items())]
    for name, neuro in configs:
        key = (neuro.endpoint, neuro.model)
        if neuro.backend == "rules" or key in seen:
            continue
        seen.add(key)
        members.append((name, neuro))
    return members


def model_candidates(
    ws: Workspace, findings: list[dict[str, Any]], context: str
) -> tuple[list[Candidate], list[PanelNote]]:
    """Ask each panel member for a candidate answering ``findings``."""
    from orgrouter.neuro.backend import Message
    from orgrouter.neuro.budget import BudgetReached, TokenBudget
    from orgrouter.neuro.factory import make_backend

    members = panel_members(ws)
    if not members:
        return [], []
    limit = ws.refine.budget_tokens
    # One budget for the whole panel: refine's own, else the default model's per run.
    budget = TokenBudget(ws.config.neuro.budget_tokens if limit is None else limit)
    files = "\n\n".join(
        f"--- {rel} ---\n{data.decode('utf-8', 'replace')}"
        for rel in ws.refine.files
        if (data := ws.tree.read(rel)) is not None
    )
    prompt = (
        f"Failing cases:\n{json.dumps(findings, indent=1)}\n\n{context}\n\n"
        f"Files you may edit:\n{files}"
    )
    candidates: list[Candidate] = []
    notes: list[PanelNote] = []
    for name, neuro in members:
        backend = make_backend(neuro, budget=budget)
        assert backend is not None
        try:
            reply = backend.complete(
                [Message("system", SYSTEM), Message("user", prompt)], purpose="refine"
            )
            candidate = parse_reply(reply.text, f"model {name}")
        except BudgetReached:
            notes.append(PanelNote(name, "budget reached"))
            break
        except (ModelError, InputError) as error:
            notes.append(PanelNote(name, f"failed: {error}"))
            continue
        candidates.append(candidate)
        notes.append(PanelNote(name, "proposed"))
    return candidates, notes


def parse_reply(text: str, source: str) -> Candidate:
    """Read a model's reply as a candidate (the outermost JSON object in it)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise InputError("the reply holds no JSON object", path=source)
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as error:
        raise InputError(f"the reply is not valid JSON: {error.msg}", path=source) from error
    if isinstance(data, dict):
        data.setdefault("proposer", source)
    return candidate_from_json(data, source=source)
