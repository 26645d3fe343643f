"""The progress bar: drawn only on a TTY, erased at the end."""

from __future__ import annotations

import io

from orgrouter.progress import MIN_FILES, Progress, progress_for


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_not_a_tty_or_quiet_or_few_files() -> None:
    pipe = io.StringIO()
    with Progress(1000, stream=pipe) as bar:
        bar.advance(1000)
    assert pipe.getvalue() == ""
    tty = FakeTTY()
    with progress_for(1000, quiet=True, stream=tty) as bar:
        bar.advance(1000)
    with progress_for(MIN_FILES - 1, quiet=False, stream=tty) as bar:
        bar.advance(MIN_FILES - 1)
    assert tty.getvalue() == ""


def test_bar_on_a_tty_is_drawn_and_erased() -> None:
    tty = FakeTTY()
    with progress_for(MIN_FILES, quiet=False, stream=tty) as bar:
        assert bar.enabled
        bar.advance(MIN_FILES)
    out = tty.getvalue()
    assert out.startswith("\r[")
    assert f" {MIN_FILES}/{MIN_FILES} scanning" in out
    assert out.endswith("\r\x1b[K")


def test_render_widths() -> None:
    bar = Progress(4, enabled=False)
    bar.advance(1)
    assert bar.render(30) == "[###------------] 1/4 scanning"
    assert len(bar.render(30)) == 30
    assert bar.render(5) == "[] 1/"


def test_a_restarted_bar_counts_the_next_phase() -> None:
    tty = FakeTTY()
    with progress_for(MIN_FILES, quiet=False, stream=tty) as bar:
        bar.advance(MIN_FILES)
        bar.restart(3, "routing")
        bar.advance()
        assert bar.render(30).endswith(" 1/3 routing")
    assert tty.getvalue().endswith("\r\x1b[K")
