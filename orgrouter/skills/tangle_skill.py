"""The ``tangle`` skill: ``* @agent tangle this`` tangles the note the request is in.

Tangling writes the note's targets (never the note itself) through the same safe
writer as ``orgrouter tangle``: targets inside the notes root (or ``tangle.allow``)
are written; a target outside them is held for the user's approval by the guardian's
WAITING headline, and written only after the user approves it. Under ``--diff``,
``--check`` and ``--dry-run`` (``Context.dry_run``) nothing is written: the result says
what a real run would write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the tangler is imported only when a tangle intent runs
    from orgrouter.babel.run import TangleReport

from orgrouter.route.guardian import APPROVED_FLAG, approval_result
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Sensor,
    Stimulus,
    proposal_stimulus,
)


class TangleSkill(BaseSkill):
    """Tangle the request's note into its :tangle targets."""

    name = "tangle"
    priority = 60

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` asks to tangle (by skill name, verb or text)."""
        if stimulus.sensor != Sensor.DELEGATION:
            return False
        verb = str(stimulus.payload.get("verb", "")).lower()
        return (
            self.delegated_to(stimulus)
            or verb == "tangle"
            or stimulus.text.strip().lower().startswith("tangle")
        )

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Tangle the note, or hold targets outside the root for approval."""
        stimulus = proposal_stimulus(proposal)
        request = ctx.request
        if request is None or request.path is None:
            return Emit((Result(
                title="Clarification needed: which note?",
                body="Tangling needs a note file; run it from a note, not from stdin.",
                kind="clarification",
            ),))  # fmt: skip
        from orgrouter.babel.record import TargetRecord
        from orgrouter.babel.run import Tangler, WriteMode

        note = request.path
        roots = allowed_roots(ctx, note)
        record = TargetRecord(ctx.state) if ctx.state is not None else None
        preview = Tangler(roots, WriteMode.DRY_RUN, record=record).run([note])
        outside = [t for t in preview.targets if t.action == "refused"]
        if outside and not stimulus.payload.get(APPROVED_FLAG):
            names = ", ".join(t.reason.split(": ", 1)[0] for t in outside)
            reason = f"it writes outside the notes root: {names}"
            payload = {**stimulus.payload, "risk_reason": reason}
            return Emit((approval_result(payload, ctx.config.agent),))
        if outside:
            base = note.parent
            for target in outside:
                name = target.reason.split(": ", 1)[0]
                roots.append(Path(os.path.normpath(base / os.path.expanduser(name))).parent)
        mode = WriteMode.DRY_RUN if ctx.dry_run else WriteMode.WRITE
        report = Tangler(roots, mode, record=record, display_base=base_of(ctx, note))
        return Emit((summary(report.run([note]), dry_run=ctx.dry_run),))


def allowed_roots(ctx: Context, note: Path) -> list[Path]:
    """Return the notes root and the configured extra directories."""
    root = ctx.notes_root or note.parent
    # Relative entries are relative to the notes root (where orgrouter.toml sits).
    return [root] + [(root / Path(p).expanduser()).resolve() for p in ctx.config.tangle.allow]


def base_of(ctx: Context, note: Path) -> Path:
    """Return the directory paths in the summary are shown relative to."""
    return ctx.notes_root or note.parent


def summary(report: TangleReport, *, dry_run: bool = False) -> Result:
    """Return the result headline describing what tangling did (or would do)."""
    lines = [f"- {t.action}: ={t.target}=" + (f" ({t.reason})" if t.reason else "")
             for t in report.targets]  # fmt: skip
    lines += [f"- skipped block at line {s.line} ({s.reason}): {s.detail}"
              for _, s in report.skipped]  # fmt: skip
    lines += [f"- error: {message}" for message in report.failed]
    written = report.count("written")
    problems = sum(report.count(a) for a in ("conflict", "refused", "failed")) + len(report.failed)
    title = f"Tangled: {written} written, {report.count('unchanged')} unchanged"
    if dry_run:
        would = report.count("would-write")
        title = f"Would tangle: {would} to write, {report.count('unchanged')} unchanged"
    if problems:
        title += f", {problems} not written"
    return Result(title=title, body="\n".join(lines) or "No block in this note tangles.")


SKILL = TangleSkill()
