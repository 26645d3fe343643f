"""The run report: exit codes and a summary that is silent when nothing happened."""

from __future__ import annotations

from orgrouter.errors import InputError
from orgrouter.report import Report


def test_nothing_happened_is_silent_and_zero() -> None:
    lines: list[str] = []
    report = Report(emit=lines.append)
    for _ in range(3):
        report.file_scanned(cached=True)
    report.file_unchanged("a.org")
    assert report.exit_code == 0
    assert report.summary() == ""
    assert lines == []


def test_a_skipped_file_is_named_by_default_but_not_with_quiet() -> None:
    lines: list[str] = []
    report = Report(emit=lines.append)
    report.skip("b.org", "open in Emacs with unsaved changes")
    report.skip("p.org", "not a regular file", retry=False)
    assert lines == [
        "skipped b.org: open in Emacs with unsaved changes; will retry",
        "skipped p.org: not a regular file",
    ]
    assert report.exit_code == 0
    quiet: list[str] = []
    report = Report(quiet=True, emit=quiet.append)
    report.skip("b.org", "open in Emacs with unsaved changes")
    assert quiet == [] and report.skipped == [("b.org", "open in Emacs with unsaved changes")]


def test_routed_summary_and_lines() -> None:
    lines: list[str] = []
    report = Report(emit=lines.append)
    for cached in (True, True, False, False):
        report.file_scanned(cached=cached)
    report.done("notes/a.org", requests=2, results=3)
    report.done("notes/b.org", requests=0, results=0)
    report.skip("notes/c.org", "locked by Emacs")
    report.skip("notes/d.org", "locked by Emacs")
    report.skip("notes/e.org", "changed while being read")
    assert lines == [
        "routed notes/a.org: 2 requests, 3 results",
        "skipped notes/c.org: locked by Emacs; will retry",
        "skipped notes/d.org: locked by Emacs; will retry",
        "skipped notes/e.org: changed while being read; will retry",
    ]
    assert report.exit_code == 0
    assert report.summary() == (
        "4 files scanned (2 unchanged since the last run), 2 requests routed, "
        "3 results written, 1 file changed, 1 unchanged, "
        "3 skipped (1 changed while being read, 2 locked by Emacs)."
    )
    assert report.as_counts() == {
        "scanned": 4,
        "cached": 2,
        "requests_routed": 2,
        "results_written": 3,
        "changed": 1,
        "unchanged": 1,
        "skipped": 3,
        "failed": 0,
    }


def test_failure_is_exit_3_and_emitted_even_when_quiet() -> None:
    lines: list[str] = []
    report = Report(quiet=True, emit=lines.append)
    report.file_scanned()
    report.done("a.org", requests=1, results=1)
    report.fail(InputError("invalid UTF-8", path="b.org", line=3, column=1))
    report.fail("c.org", "disk full")
    assert lines == [
        "orgrouter: error: b.org:3:1: invalid UTF-8",
        "orgrouter: error: c.org: disk full",
    ]
    assert report.exit_code == 3
    assert report.failed == [("b.org", "b.org:3:1: invalid UTF-8"), ("c.org", "c.org: disk full")]
    assert report.summary() == (
        "1 file scanned, 1 request routed, 1 result written, 1 file changed, 2 files failed."
    )


def test_check_found_work_is_exit_1() -> None:
    lines: list[str] = []
    report = Report(check=True, emit=lines.append)
    report.file_scanned()
    assert report.exit_code == 0
    report.done("a.org", requests=1, results=2)
    assert report.exit_code == 1
    assert lines == ["would route a.org: 1 request, 2 results"]
    assert report.summary() == (
        "1 file scanned, 1 request would be routed, 2 results would be written, "
        "1 file would change."
    )


def test_verbose_shows_everything() -> None:
    lines: list[str] = []
    report = Report(verbose=True, emit=lines.append)
    report.file_scanned()
    report.file_unchanged("a.org")
    report.skip("b.org", "locked by Emacs")
    assert lines == ["unchanged a.org", "skipped b.org: locked by Emacs; will retry"]
    assert report.summary() == (
        "1 file scanned, 0 requests routed, 0 results written, 1 unchanged, "
        "1 skipped (1 locked by Emacs)."
    )
