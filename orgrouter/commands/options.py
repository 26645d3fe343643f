"""Options every command shares: ``-q``/``-v``, and the checks that go with them.

Every command takes ``-q`` (problems and the output asked for only: errors and
warnings, no summaries, per-file lines or progress) and ``-v`` (more detail, and the
traceback of an internal error); giving both is a usage error, as in git and ruff. A
command that loads the configuration then calls :func:`warn_environment`: a misspelt
``ORGROUTER_*`` variable is a warning, with ``-q`` too, as cron must mail a setting
that is silently ignored.
"""

from __future__ import annotations

import errno
import functools
import inspect
import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from orgrouter.commands import warn_environment as warn_environment
from orgrouter.errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])

# The two options most commands share, declared once so their help says the same.
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Read this file instead of searching for orgrouter.toml (also ORGROUTER_CONFIG).",
)
STATE = click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    help="The state database (default: ORGROUTER_STATE, state.path, else XDG per root).",
)


_FLAGS = ("quiet", "verbose")


def verbosity(func: F) -> F:
    """Add ``-q``/``-v`` to a command and reject both together.

    The command receives those of ``quiet`` and ``verbose`` it names (both, with ``**``).
    """
    accepts = inspect.signature(func).parameters
    every = any(p.kind is p.VAR_KEYWORD for p in accepts.values())

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        # `orgrouter -q route` as `orgrouter route -q`: scripts put the flag either side.
        context = click.get_current_context(silent=True)
        given = {} if context is None else context.find_root().params
        flags = {name: bool(kwargs.pop(name, False) or given.get(name)) for name in _FLAGS}
        if flags["quiet"] and flags["verbose"]:
            raise UsageError("-q and -v are opposites: give one of them")
        kwargs.update((name, on) for name, on in flags.items() if every or name in accepts)
        return func(*args, **kwargs)

    checked = click.option(
        "-v", "--verbose", is_flag=True, help="Say more (and show tracebacks of internal errors)."
    )(checked)
    checked = click.option(
        "-q", "--quiet", is_flag=True, help="Print only errors, warnings and the output asked for."
    )(checked)
    return checked  # type: ignore[return-value]


def complete_agents(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Complete ``--agent`` with the names the configuration found from here defines."""
    from pathlib import Path

    from orgrouter.configload import load_config
    from orgrouter.errors import OrgRouterError

    try:
        config = load_config(Path.cwd()).config
    except OrgRouterError:
        return []  # a broken config is reported when the command runs, not on TAB
    names = [config.agent.name or "agent", *config.agent.sub_agents, *config.agents]
    unique = dict.fromkeys(name.lstrip("@") for name in names)
    return [name for name in unique if name.startswith(incomplete)]


class ExistingPath(click.Path):
    """``click.Path(exists=True)`` that names a symlink loop or a broken symlink as such.

    click says "does not exist" of both, which sends a user looking for a file that is
    there (as a link).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Refuse a link that leads nowhere, with why; then check as click.Path does."""
        name = os.fsdecode(value) if isinstance(value, str | bytes | os.PathLike) else value
        if isinstance(name, str) and not (self.allow_dash and name == "-"):
            try:
                os.stat(name)
            except OSError as error:
                if os.path.islink(name):
                    reason = (
                        "is a symlink loop" if error.errno == errno.ELOOP
                        else f"is a broken symlink (to {os.readlink(name)})"
                    )  # fmt: skip
                    self.fail(f"{name!r} {reason}", param, ctx)
        return super().convert(value, param, ctx)
