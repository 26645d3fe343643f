"""What one run did, file by file, and the exit code and summary that follow from it.

Modelled on black's ``Report``: the pipeline tells the report what happened to each
file; the report decides the exit code (0 done, 1 ``--check`` found work, 3 a file
failed) and renders the closing summary. It never prints: per-file lines go to the
``emit`` callable the command passes in (stderr in the CLI), and ``summary()``
returns text, empty when nothing happened, so a cron run with nothing to do is silent.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable

from orgrouter.errors import EXIT_CHECK_FOUND_WORK, EXIT_FAILED, EXIT_OK, OrgRouterError
from orgrouter.records import field, record


def plural(count: int, word: str) -> str:
    """Return ``'1 file'`` / ``'2 files'`` (every count in a message goes through here)."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def _discard(_line: str) -> None:
    """Drop a line (the default sink)."""


@record
class Report:
    """Counts and messages for one run; ``exit_code`` and ``summary()`` come from them."""

    check: bool = False  # --check: work found is exit 1
    dry_run: bool = False  # --dry-run / --diff: nothing was written
    quiet: bool = False  # -q: only failures are emitted
    verbose: bool = False  # -v: every file is emitted, and the summary always
    emit: Callable[[str], None] = _discard
    scanned: int = 0  # files looked at (from the cache or read)
    cached: int = 0  # of which passed over from stat alone
    requests_routed: int = 0
    results_written: int = 0
    changed: int = 0  # files rewritten (or that would be)
    unchanged: int = 0  # files read that needed no change
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, message)

    def file_scanned(self, *, cached: bool = False) -> None:
        """Count one file looked at; ``cached`` when stat alone decided it."""
        self.scanned += 1
        self.cached += cached

    def done(self, path: str | os.PathLike[str], *, requests: int, results: int) -> None:
        """Record a file whose requests were routed and whose results were (or would be) written."""
        self.requests_routed += requests
        self.results_written += results
        if results or requests:
            self.changed += 1
            verb = "would route" if self.dry_run or self.check else "routed"
            if not self.quiet:
                self.emit(
                    f"{verb} {os.fspath(path)}: {plural(requests, 'request')}, "
                    f"{plural(results, 'result')}"
                )
        else:
            self.file_unchanged(path)

    def file_unchanged(self, path: str | os.PathLike[str]) -> None:
        """Record a file that was read and needed nothing."""
        self.unchanged += 1
        if self.verbose:
            self.emit(f"unchanged {os.fspath(path)}")

    def skip(self, path: str | os.PathLike[str], reason: str, *, retry: bool = True) -> None:
        """Record a file passed over (locked by Emacs, changed under us, not a file).

        It is named on stderr unless -q (a file open in Emacs is no error, but the user
        should know why it was not routed); ``retry`` says a later run picks it up.
        """
        self.skipped.append((os.fspath(path), reason))
        if not self.quiet:
            self.emit(f"skipped {os.fspath(path)}: {reason}" + ("; will retry" if retry else ""))

    def fail(self, where: str | os.PathLike[str] | OrgRouterError, message: str = "") -> None:
        """Record a failed file: an OrgRouterError (it names file and line) or path + message."""
        if isinstance(where, OrgRouterError):
            path = where.path or "-"
            text = str(where)
        else:
            path = os.fspath(where)
            text = f"{path}: {message}" if message else path
        self.failed.append((path, text))
        # Failures are emitted even with -q: cron mails them, which is the point.
        self.emit(f"orgrouter: error: {text}")

    @property
    def exit_code(self) -> int:
        """Return 3 if a file failed, 1 if --check found work, else 0."""
        if self.failed:
            return EXIT_FAILED
        if self.check and self.changed:  # work found
            return EXIT_CHECK_FOUND_WORK
        return EXIT_OK

    def summary(self) -> str:
        """Return the closing summary, or '' when nothing happened (quiet for cron)."""
        if not self.failed and (self.quiet or not (self.verbose or self.changed)):
            return ""
        would = self.dry_run or self.check
        parts = [
            f"{plural(self.scanned, 'file')} scanned"
            + (f" ({self.cached} unchanged since the last run)" if self.cached else ""),
            f"{plural(self.requests_routed, 'request')} {'would be ' if would else ''}routed",
            f"{plural(self.results_written, 'result')} {'would be ' if would else ''}written",
        ]
        if self.changed:
            verb = "would change" if would else "changed"
            parts.append(f"{plural(self.changed, 'file')} {verb}")
        if self.unchanged:
            parts.append(f"{self.unchanged} unchanged")
        if self.skipped:
            counts = Counter(reason for _path, reason in self.skipped)
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(counts.items()))
            parts.append(f"{len(self.skipped)} skipped ({reasons})")
        if self.failed:
            parts.append(f"{plural(len(self.failed), 'file')} failed")
        return ", ".join(parts) + "."

    def as_counts(self) -> dict[str, int]:
        """Return the counts as a flat dict (for the event log; no paths, no content)."""
        names = ("scanned", "cached", "requests_routed", "results_written", "changed", "unchanged")
        counts: dict[str, int] = {name: getattr(self, name) for name in names}
        return {**counts, "skipped": len(self.skipped), "failed": len(self.failed)}
