"""Run Python code in a fresh process under a generous guard: a hang becomes a failure.

For the linear-time tests: an input the old, quadratic code could not get through in
minutes, checked without asserting any timing (the guard only stops a hang).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

GUARD_S = 60


def finishes(code: str, tmp: Path, guard: float = GUARD_S) -> str:
    """Run ``code`` in a new interpreter, fail the test if it hangs or fails; return stdout."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ORGROUTER_")},
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"),
        "XDG_STATE_HOME": str(tmp / "xdg-state"),
    }
    command = [sys.executable, "-c", textwrap.dedent(code)]
    try:
        done = subprocess.run(
            command, env=env, cwd=tmp, capture_output=True, text=True, timeout=guard
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish within {guard} s:\n{textwrap.dedent(code)}")
    assert done.returncode == 0, done.stderr
    return done.stdout
