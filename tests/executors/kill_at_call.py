"""Run orgrouter, SIGKILLing itself at the Nth file-system or state-database step.

``python kill_at_call.py ARGS...`` runs ``orgrouter ARGS...``; with ``KILL_AT=N`` it
kills itself just before or just after the Nth call of ``os.replace``, ``os.rename``,
``os.link``, ``os.unlink``, ``os.write``, ``os.fsync`` or a state database transaction
(each call is two steps). ``COUNT_OUT=FILE`` writes how many steps a whole run took.
The named crash points (``ORGROUTER_TEST_CRASH_AT``) are three; this is every one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

KILL_AT = int(os.environ.get("KILL_AT", "0"))
_steps = [0]


def _step() -> None:
    _steps[0] += 1
    if _steps[0] == KILL_AT:
        os.kill(os.getpid(), signal.SIGKILL)


def _wrap(call: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        _step()
        result = call(*args, **kwargs)
        _step()
        return result

    return counted


def main() -> None:
    """Count (and maybe kill at) every step, then run the CLI."""
    for name in ("replace", "rename", "link", "unlink", "write", "fsync"):
        setattr(os, name, _wrap(getattr(os, name)))
    from orgrouter import state

    plain = state.StateDB.transaction

    @contextlib.contextmanager
    def transaction(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        _step()
        with plain(self, *args, **kwargs) as conn:
            yield conn
        _step()

    state.StateDB.transaction = transaction  # type: ignore[method-assign]
    out = os.environ.get("COUNT_OUT")
    if out:
        from pathlib import Path

        atexit.register(lambda: Path(out).write_text(str(_steps[0])))
    from orgrouter.cli import main as cli

    sys.argv = ["orgrouter", *sys.argv[1:]]
    cli()


if __name__ == "__main__":
    main()
