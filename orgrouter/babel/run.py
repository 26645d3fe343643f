"""Tangle Org files: plan each, check safety and conflicts, then write (or report).

Beyond Org: targets stay inside the allowed roots; a target edited by hand since we
last wrote it is a conflict unless forced; an unchanged target is not rewritten (Org
9.6), a changed one is replaced in place through its symlink (Org 9.7); tangling a
file into itself is refused (Org 9.7). One bad file never stops the run. A file that
existed and that orgrouter had not written is written (Emacs does) but reported as
``overwrote``.

A routed tangle (the ``tangle`` skill) gives a ``WritePolicy`` instead of roots: a
target it forbids is ``refused``, one that needs approval is ``held`` unless the
``approved`` map names its real path with the sha256 of exactly these bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from orgrouter import records
from orgrouter.babel.document import Document
from orgrouter.babel.plan import FilePlan, Skipped, TargetPlan, lisp_forms, plan_document
from orgrouter.babel.record import TargetRecord, digest
from orgrouter.babel.safety import refusal
from orgrouter.errors import EXIT_FAILED, OrgRouterError
from orgrouter.io.policy import Forbidden, NeedsApproval, WritePolicy
from orgrouter.io.text import read_stable
from orgrouter.io.transaction import Status, Transaction
from orgrouter.report import Report
from orgrouter.writemode import WriteMode, unified_diff

_BEGIN_SRC = re.compile(rb"#\+begin_src", re.IGNORECASE)


@dataclass
class TargetResult:
    """What happened to one target."""

    source: str
    target: str
    action: str  # written | unchanged | would-write | held | conflict | refused | failed
    reason: str = ""
    diff: str = ""
    mode: str = ""
    overwrote: str = ""  # why a pre-existing file orgrouter had not written was replaced
    # A routed tangle's only (never in --json): the real path and the new bytes' sha256,
    # which its approval binds to.
    path: str = field(default="", repr=False)
    sha256: str = field(default="", repr=False)


_FAILED_ACTIONS = ("conflict", "refused", "failed", "held")


@records.record  # as its base is: a dataclass would not see Report's fields
class TangleReport(Report):
    """Route's ``Report`` (file failures, counts, exit code) with each target and skipped block.

    A target that failed (conflicted, refused, held) makes the run fail as a file does.
    """

    targets: list[TargetResult] = records.field(default_factory=list)
    blocks_skipped: list[tuple[str, Skipped]] = records.field(default_factory=list)
    not_evaluated: list[tuple[str, Skipped]] = records.field(default_factory=list)
    # Blocks tangled, though not as Org 9.5 does.
    warnings: list[tuple[str, Skipped]] = records.field(default_factory=list)

    @classmethod
    def for_mode(cls, mode: WriteMode) -> TangleReport:
        """Return an empty report for a run in ``mode`` (--check: pending work is exit 1)."""
        return cls(check=mode is WriteMode.CHECK, dry_run=not mode.writes)

    def add(self, result: TargetResult) -> None:
        """Record what happened to one target."""
        self.targets.append(result)
        if result.action in ("written", "would-write"):
            self.changed += 1
        elif result.action == "unchanged":
            self.unchanged += 1

    def count(self, action: str) -> int:
        """Return how many targets ended with ``action``."""
        return sum(1 for result in self.targets if result.action == action)

    @property
    def exit_code(self) -> int:
        """Return 3 if a file or target failed, 1 if --check found work, else 0."""
        if any(result.action in _FAILED_ACTIONS for result in self.targets):
            return EXIT_FAILED
        return super().exit_code

    def to_json(self) -> dict[str, object]:
        """Return the report as ``orgrouter tangle --json`` prints it."""

        def noted(blocks: list[tuple[str, Skipped]]) -> list[dict[str, object]]:
            return [{"source": s, "line": b.line, "detail": b.detail} for s, b in blocks]

        return {
            "targets": [
                {k: v for k, v in vars(t).items() if v != "" and k not in ("path", "sha256")}
                for t in self.targets
            ],
            "skipped": [{"source": s, **asdict(b)} for s, b in self.blocks_skipped],
            "not_evaluated": noted(self.not_evaluated),
            "warnings": noted(self.warnings),
            "failed": [message for _path, message in self.failed],
        }


# Mode bits a routed tangle never sets: setuid, setgid, sticky and write for others.
_RISKY_MODE = 0o7002


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _commit(
    path: Path, old: bytes | None, data: bytes, mode: int | None, mkdirp: bool
) -> tuple[str, str] | None:
    """Write ``data`` to ``path`` through the transaction; return (action, reason) on failure.

    ``old`` is what the file held when planned (None: it must not exist yet), so a
    change made meanwhile is a conflict. ``mode`` is applied after the write.
    """
    transaction = Transaction()
    if old is None:
        transaction.create(path, data, mode=mode, mkdirp=mkdirp)
    else:
        transaction.replace(path, data, expect_sha256=digest(old))
    (outcome,) = transaction.commit()
    if not outcome.ok:
        reason = outcome.error.message if outcome.error is not None else outcome.status.value
        return ("conflict" if outcome.status is Status.CONFLICT else "failed"), reason
    if mode is not None and os.stat(path).st_mode & 0o7777 != mode:
        try:
            os.chmod(path, mode)
        except OSError as error:
            return "failed", f"cannot set mode {mode:04o}: {error.strerror}"
    return None


@dataclass
class Tangler:
    """Tangle files under ``roots`` (the notes root first) with one write mode."""

    roots: Sequence[Path]
    mode: WriteMode = WriteMode.WRITE
    force: bool = False
    record: TargetRecord | None = None
    display_base: Path | None = None
    policy: WritePolicy | None = None  # a routed tangle: the write policy decides
    approved: Mapping[str, str] = field(default_factory=dict)  # real path -> approved sha256

    def run(self, files: Iterable[Path], report: TangleReport | None = None) -> TangleReport:
        """Tangle each Org file of ``files`` (as discovered) into ``report``; return it."""
        report = report if report is not None else TangleReport.for_mode(self.mode)
        for org in files:
            try:
                data, _st = read_stable(org)
            except OrgRouterError as error:
                report.fail(error)
                continue
            self.tangle_bytes(org, data, report)
        return report

    def tangle_bytes(
        self, org: Path, data: bytes, report: TangleReport | None = None
    ) -> TangleReport:
        """Tangle ``data`` as the contents of Org file ``org`` (an editor's buffer)."""
        report = report if report is not None else TangleReport.for_mode(self.mode)
        if not _BEGIN_SRC.search(data):
            return report  # no src block: nothing to tangle, no need to parse
        try:
            doc = Document.from_bytes(org.absolute(), data)
        except OrgRouterError as error:
            report.fail(error)
            return report
        plan = plan_document(doc)
        self._apply(plan, report)
        tangled, shown = {s.line for s in plan.skipped}, self._show(org)
        report.blocks_skipped += [(shown, s) for s in plan.skipped]
        report.warnings += [(shown, w) for w in plan.warnings]
        report.not_evaluated += [(shown, s) for s in lisp_forms(doc) if s.line not in tangled]
        return report

    def _show(self, path: Path) -> str:
        base = self.display_base or Path.cwd()
        try:
            return os.path.relpath(path, base)
        except ValueError:
            return str(path)

    def _apply(self, plan: FilePlan, report: TangleReport) -> None:
        # Two spellings of one path (a.el, ./a.el): Org writes both, the last wins.
        written = {os.path.normpath(target.path): target for target in plan.targets}
        for target in written.values():
            report.add(self._apply_target(plan.source, target))

    def _apply_target(self, source: Path, target: TargetPlan) -> TargetResult:
        shown = self._show(target.path)
        result = TargetResult(self._show(source), shown, "unchanged")
        real = Path(os.path.realpath(target.path))
        if self.policy is not None:  # a routed tangle binds its approval to these
            result.path, result.sha256 = str(real), digest(target.content)
        why, held = self._check(source, target.path)
        if why is not None:
            result.action, result.reason = "refused", f"{target.name}: {why}"
            return result
        try:
            old = real.read_bytes() if real.exists() else None
            old_mode = os.stat(real).st_mode & 0o7777 if old is not None else None
        except OSError as error:
            result.action, result.reason = "failed", f"cannot read: {error.strerror}"
            return result
        mode = target.mode
        if mode is None:
            mode = old_mode if old_mode is not None else 0o666 & ~_umask()
        result.mode = f"{mode:04o}"
        if self.policy is not None and target.mode is not None and target.mode & _RISKY_MODE:
            result.action = "refused"  # a note from elsewhere must not make a setuid program
            result.reason = (f"{target.name}: never written by a routed request: mode "
                             f"{target.mode:04o} is setuid, setgid, sticky or world-writable "
                             "(tangle it by hand with orgrouter tangle)")  # fmt: skip
            return result
        if old == target.content and old_mode == mode:
            return result
        if held is not None and self.approved.get(result.path) != result.sha256:
            result.action, result.reason = "held", f"{target.name}: {held}"
            return result
        if old is not None and old != target.content:
            owner = self.record.owner(str(real)) if self.record is not None else None
            last = None if owner is None else owner[0]
            if self.policy is None and last != digest(old):
                result.overwrote = "it existed and orgrouter had not written these bytes"
            if last not in (None, digest(old)) and not self.force and held is None:
                result.action = "conflict"
                result.reason = "edited since orgrouter last wrote it; --force overwrites"
                return result
        if self.mode is not WriteMode.WRITE:
            result.action = "would-write"
            if self.mode is WriteMode.DIFF:
                result.diff = unified_diff(old, target.content, shown)
            return result
        if not real.parent.is_dir() and not target.mkdirp:
            result.action = "failed"
            result.reason = f"no directory {real.parent} (add :mkdirp yes to create it)"
            return result
        problem = _commit(real, old, target.content, target.mode if old is not None else mode,
                          target.mkdirp)  # fmt: skip
        if problem is not None:
            result.action, result.reason = problem
            return result
        if self.record is not None:
            self.record.remember(str(real), target.content, str(source))
        result.action = "written"
        return result

    def _check(self, source: Path, path: Path) -> tuple[str | None, str | None]:
        """Return (why the target is refused, why it needs approval); None where it is not."""
        if self.policy is not None:
            verdict = self.policy.check(source, path)
            if isinstance(verdict, Forbidden):
                return f"never written by a routed request: {verdict.reason}", None
            return None, verdict.reason if isinstance(verdict, NeedsApproval) else None
        why = refusal(path, self.roots)
        if why is None and os.path.realpath(path) == os.path.realpath(source):
            why = "the target is the Org file itself"
        return why, None
