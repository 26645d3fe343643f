"""Error types: each carries the exit code the CLI returns for it."""

from __future__ import annotations

import os
from typing import Any

EXIT_OK = 0
EXIT_CHECK_FOUND_WORK = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_LOCKED = 75


class OrgRouterError(Exception):
    """Base of every error orgrouter reports to a user."""

    exit_code = EXIT_FAILED

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.column = column

    def location(self) -> str:
        """Return ``path:line:col`` for the parts that are known, or ''."""
        if self.path is None:
            return ""
        known = [] if self.line is None else [self.line, self.column]
        return ":".join([self.path, *(str(n) for n in known if n is not None)])

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message


class UsageError(OrgRouterError):
    """The command line was wrong."""

    exit_code = EXIT_USAGE


class ConfigError(OrgRouterError):
    """A configuration file, variable or option is invalid."""

    exit_code = EXIT_USAGE


class InputError(OrgRouterError):
    """A file cannot be read as an Org document (encoding, NUL bytes, size, type)."""


class ConflictError(OrgRouterError):
    """A file changed, or is locked by Emacs, between reading and writing it.

    ``reason`` is the short form a run's report names the skipped file with
    ("open in Emacs with unsaved changes"); it defaults to the message.
    """

    def __init__(self, message: str, *, reason: str | None = None, **where: Any) -> None:
        """Take OrgRouterError's ``path``, ``line`` and ``column`` in ``where``."""
        super().__init__(message, **where)
        self.reason = reason or message


class WriteError(OrgRouterError):
    """A file could not be written (disk full, permissions); the original is intact."""


class StateError(OrgRouterError):
    """The state database is corrupt, locked or not writable."""


class LockedError(OrgRouterError):
    """Another orgrouter run holds the lock for this notes root."""

    exit_code = EXIT_LOCKED


class RefusedError(OrgRouterError):
    """Refine refused to act: not enabled, wrong run state, stale, or nothing to gate (exit 3)."""


class ModelError(OrgRouterError):
    """A model backend failed, timed out, or returned something unusable."""
