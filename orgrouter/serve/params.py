"""A call's params, read with checks: a wrong one is the caller's error, named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn


class InvalidParams(Exception):
    """The params of a call are missing, of the wrong type, or unknown (-32602)."""


class Params:
    """The params object of one call; each key is read once, and ``done`` refuses the rest."""

    def __init__(self, method: str, values: Mapping[str, Any]) -> None:
        self.method = method
        self._values = dict(values)
        self._read: set[str] = set()

    def invalid(self, message: str) -> NoReturn:
        """Raise InvalidParams for this method."""
        raise InvalidParams(f"{self.method}: {message}")

    def _get(self, key: str) -> Any:
        self._read.add(key)
        return self._values.get(key)

    def optional_str(self, key: str) -> str | None:
        """Return a string param, or None when absent or null."""
        value = self._get(key)
        if value is not None and not isinstance(value, str):
            self.invalid(f"{key} must be a string")
        return value

    def required_str(self, key: str) -> str:
        """Return a string param that must be there."""
        value = self.optional_str(key)
        if value is None:
            self.invalid(f"{key} is required")
        return value

    def encoded(self, key: str, value: str) -> bytes:
        """Return ``value`` as UTF-8 (a lone surrogate is the caller's error)."""
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError as error:
            self.invalid(f"{key} is not valid Unicode at character {error.start}")

    def flag(self, key: str, *, default: bool = False) -> bool:
        """Return a boolean param."""
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.invalid(f"{key} must be true or false")
        return value

    def choice(self, key: str, choices: Sequence[str], *, default: str) -> str:
        """Return a string param that must be one of ``choices``."""
        value = self.optional_str(key)
        if value is None:
            return default
        if value not in choices:
            self.invalid(f"{key} must be one of {', '.join(choices)}, not {value!r}")
        return value

    def str_list(self, key: str) -> list[str]:
        """Return a list-of-strings param (empty when absent)."""
        value = self._get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.invalid(f"{key} must be a list of strings")
        return list(value)

    def char_range(self, key: str) -> tuple[int, int] | None:
        """Return a ``[begin, end]`` param of two character offsets, begin <= end."""
        value = self._get(key)
        if value is None:
            return None
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
            or value[0] > value[1]
        ):
            self.invalid(f"{key} must be [begin, end], character offsets with begin <= end")
        return value[0], value[1]

    def done(self) -> None:
        """Refuse params the method does not know (a typo must not pass silently)."""
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            self.invalid(f"unknown param(s): {', '.join(unknown)}")
