"""The ``tangle`` skill: ``* @agent tangle this`` tangles the note the request is in.

It tangles the note's text as routed (under ``route --stdin`` the buffer, not the file
on disk) into its targets (never the note itself). The write policy
(``orgrouter.io.policy``) writes, refuses or holds each target; a held one waits for a
``WAITING`` approval bound to exactly the targets and bytes it showed
(``orgrouter.route.binding``). Under ``--diff``, ``--check`` and ``--dry-run``
(``Context.dry_run``) nothing is written: the result says what a real run would write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the tangler is imported only when a tangle intent runs
    from orgrouter.babel.record import TargetRecord
    from orgrouter.babel.run import Tangler, TangleReport, TargetResult
    from orgrouter.io.policy import WritePolicy
    from orgrouter.writemode import WriteMode

from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    Sensor,
    Stimulus,
    before_write,
    proposal_stimulus,
)


class TangleSkill(BaseSkill):
    """Tangle the request's note into its :tangle targets."""

    name = "tangle"
    priority = 60
    binds_approvals = True  # the guardian leaves its risky intents to it (see symbolic)

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
        """Tangle the note, or hold it for an approval bound to the targets it would write."""
        stimulus = proposal_stimulus(proposal)
        request = ctx.request
        if request is None or request.path is None:
            return Emit((Result(
                title="Clarification needed: which note?",
                body="Tangling needs a note file; run it from a note, not from stdin.",
                kind="clarification",
            ),))  # fmt: skip
        from orgrouter.io.text import read_stable
        from orgrouter.route.binding import Effect, require_approval
        from orgrouter.skills.writes import record_for
        from orgrouter.writemode import WriteMode

        note = request.path
        data = ctx.note_bytes if ctx.note_bytes is not None else read_stable(note)[0]
        record = record_for(ctx)
        policy = write_policy(ctx, note, record)
        preview = _tangler(ctx, note, policy, record, WriteMode.DRY_RUN).tangle_bytes(note, data)
        held = [t for t in preview.targets if t.action == "held"]
        approved: dict[str, str] = {}
        if held or stimulus.payload.get("needs_approval"):
            shown = os.path.relpath(note, base_of(ctx, note))
            effect = Effect(f"tangle {shown}", tuple(sorted((t.target, t.sha256) for t in held)))
            ask = require_approval(stimulus.payload, ctx, effect, _reason(preview, held))
            if ask is not None:
                return Emit((ask,))
            approved = {t.path: t.sha256 for t in held}
        mode = WriteMode.DRY_RUN if ctx.dry_run else WriteMode.WRITE
        if mode is WriteMode.DRY_RUN and not approved:
            return Emit((summary(preview, dry_run=True),))  # the preview is that very run
        if mode is WriteMode.WRITE and (preview.count("would-write") or approved):
            before_write(ctx)  # route --stdin: the notes root's lock, or exit 75
        tangler = _tangler(ctx, note, policy, record, mode, approved)
        return Emit((summary(tangler.tangle_bytes(note, data), dry_run=ctx.dry_run),))


def _tangler(
    ctx: Context,
    note: Path,
    policy: WritePolicy,
    record: TargetRecord | None,
    mode: WriteMode,
    approved: Mapping[str, str] | None = None,
) -> Tangler:
    """Return the tangler of a routed request: the write policy decides every target."""
    from orgrouter.babel.run import Tangler

    return Tangler([policy.root], mode, record=record, display_base=base_of(ctx, note),
                   policy=policy, approved=approved or {})  # fmt: skip


def _reason(preview: TangleReport, held: list[TargetResult]) -> str:
    """Return why tangling waits: each held target, and those never written."""
    reason = "it writes " + "; ".join(f"={t.target}= ({t.reason.rsplit(': ', 1)[-1]})"
                                      for t in held)  # fmt: skip
    if not held:
        reason = "the request was marked as needing approval"
    free = [t.target for t in preview.targets if t.action == "would-write"]
    if free:
        reason += "; with it, written as they need no approval: " + ", ".join(free)
    refused = [t.target for t in preview.targets if t.action == "refused"]
    if refused:
        reason += "; never written, approved or not: " + ", ".join(refused)
    return reason


def write_policy(ctx: Context, note: Path, record: TargetRecord | None) -> WritePolicy:
    """Return the write policy for a request in ``note``, with ``tangle.allow``."""
    from orgrouter.babel.safety import allowed_dirs
    from orgrouter.skills.writes import policy_for

    allow = allowed_dirs(ctx.config.tangle.allow, ctx.notes_root or note.parent)
    return policy_for(ctx, note, allow=allow, record=record)


def base_of(ctx: Context, note: Path) -> Path:
    """Return the directory paths in the summary are shown relative to."""
    return ctx.notes_root or note.parent


def summary(report: TangleReport, *, dry_run: bool = False) -> Result:
    """Return the result headline describing what tangling did (or would do)."""
    lines = [f"- {t.action}: ={t.target}=" + (f" ({t.reason})" if t.reason else "")
             for t in report.targets]  # fmt: skip
    lines += [f"- skipped block at line {s.line} ({s.reason}): {s.detail}"
              for _, s in report.blocks_skipped]  # fmt: skip
    lines += [f"- warning at line {w.line}: {w.detail}" for _, w in report.warnings]
    lines += [f"- error: {message}" for _path, message in report.failed]
    written = report.count("written")
    bad = ("conflict", "refused", "failed", "held")
    problems = sum(report.count(a) for a in bad) + len(report.failed)
    title = f"Tangled: {written} written, {report.count('unchanged')} unchanged"
    if dry_run:
        would = report.count("would-write")
        title = f"Would tangle: {would} to write, {report.count('unchanged')} unchanged"
    if problems:
        title += f", {problems} not written"
    return Result(title=title, body="\n".join(lines) or "No block in this note tangles.")


SKILL = TangleSkill()
