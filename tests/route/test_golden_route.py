"""Golden route cases: ``tests/data/route/NAME.org`` routed must equal ``NAME.expected.org``.

Each case is routed as a file on disk (through discovery, scan, transaction) and
through ``--stdin``; both must give the expected bytes, and routing the result again
must change nothing (same bytes, file not rewritten). ``NAME.toml``, when present, is
the case's configuration. Regenerate after a deliberate change with
``python tests/route/test_golden_route.py`` and review the diff.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from route_cli import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "route"
NOW = "2026-11-30T09:00"  # a Monday
CASES = sorted(p.stem for p in DATA.glob("*.org") if not p.stem.endswith(".expected"))


def _config_args(name: str) -> list[str]:
    config = DATA / f"{name}.toml"
    return ["--config", str(config)] if config.exists() else []


def route_file(name: str, tmp: Path) -> Path:
    """Copy case ``name`` into ``tmp`` and route it in place; return its path."""
    notes = tmp / "notes"
    notes.mkdir(exist_ok=True)
    target = notes / f"{name}.org"
    shutil.copyfile(DATA / f"{name}.org", target)
    args = ["route", "-q", "--now", NOW, "--state", str(tmp / "state.db"), str(target)]
    code, _out, err = run_cli(args + _config_args(name), tmp)
    assert (code, err) == (0, "")
    return target


@pytest.mark.parametrize("name", CASES)
def test_golden_file(name: str, tmp_path: Path) -> None:
    expected = (DATA / f"{name}.expected.org").read_bytes()
    target = route_file(name, tmp_path)
    assert target.read_bytes() == expected
    before = target.stat().st_mtime_ns
    args = ["route", "--check", "--now", "2026-12-24T18:00", "--state", str(tmp_path / "s2.db")]
    code, _out, _err = run_cli([*args, *_config_args(name), str(target)], tmp_path)
    assert code == 0  # nothing left to do, even on another day with a cold cache
    args = ["route", "-q", "--now", "2026-12-24T18:00", "--state", str(tmp_path / "s2.db")]
    code, _out, _err = run_cli([*args, *_config_args(name), str(target)], tmp_path)
    assert code == 0
    assert target.read_bytes() == expected
    assert target.stat().st_mtime_ns == before


@pytest.mark.parametrize("name", CASES)
def test_golden_stdin(name: str, tmp_path: Path) -> None:
    expected = (DATA / f"{name}.expected.org").read_bytes()
    file_name = str(tmp_path / f"{name}.org")
    args = ["route", "--stdin", "--now", NOW, "--file-name", file_name, *_config_args(name)]
    args += ["--state", str(tmp_path / "state.db")]
    code, out, _err = run_cli(args, tmp_path, stdin=(DATA / f"{name}.org").read_bytes())
    assert (code, out) == (0, expected)
    code, out, err = run_cli(args, tmp_path, stdin=expected)
    assert (code, out, err) == (0, expected, "")


def regenerate() -> None:
    """Rewrite every ``NAME.expected.org`` from the current code (review the diff!)."""
    import tempfile

    for name in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            target = route_file(name, Path(tmp))
            shutil.copyfile(target, DATA / f"{name}.expected.org")
            print(f"wrote {name}.expected.org")


if __name__ == "__main__":
    regenerate()
    sys.exit(0)
