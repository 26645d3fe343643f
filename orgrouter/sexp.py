"""Write Python values as Lisp plists, the form the seed's Lisp skills read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Keyword:
    """A Lisp keyword symbol such as ``:HEADLINE``; ``name`` has no colon."""

    name: str


@dataclass(frozen=True)
class Symbol:
    """A bare Lisp symbol such as ``nil`` or ``t``."""

    name: str


def dumps(value: object) -> str:
    """Return ``value`` as Lisp: mappings become plists with ``:key`` keys."""
    if value is None or value is False:
        return "nil"
    if value is True:
        return "t"
    if isinstance(value, Keyword):
        return ":" + value.name
    if isinstance(value, Symbol):
        return value.name
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Mapping):
        return "(" + " ".join(f":{key} {dumps(item)}" for key, item in value.items()) + ")"
    if isinstance(value, Sequence):
        return "(" + " ".join(dumps(item) for item in value) + ")"
    raise TypeError(f"cannot write {type(value).__name__} as Lisp")
