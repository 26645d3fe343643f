"""A candidate change to the routing rules: its shape, and reading it from JSON.

A candidate is ``{proposer?, rationale?, edits: [{file, op, anchor?, before, after,
addresses?}]}`` (seed 002). ``op`` is ``replace`` (the one occurrence of ``before``
becomes ``after``) or ``append`` (``after`` is inserted right after the one
occurrence of ``before``; an empty ``before`` appends at the end of the file). An
``anchor``, when given, must itself occur once, and ``before`` is looked for only in
its section (from the anchor to the next line starting a TOML ``[table]`` or an Org
headline), so a proposer can say "the verbs list under ``[skills.todo]``"; an append
with an anchor and an empty ``before`` goes at the end of that section.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from orgrouter.errors import InputError
from orgrouter.tomlwhere import line_of

Op = Literal["replace", "append"]
OPS: tuple[Op, ...] = ("replace", "append")
_EDIT_KEYS = ("file", "op", "anchor", "before", "after", "addresses")
_CANDIDATE_KEYS = ("proposer", "rationale", "edits")


@dataclass(frozen=True)
class Edit:
    """One text edit to one rules file."""

    file: str
    op: Op
    before: str
    after: str
    anchor: str | None = None
    addresses: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the edit as the JSON object it was read from."""
        data: dict[str, Any] = {"file": self.file, "op": self.op, "anchor": self.anchor}
        data |= {"before": self.before, "after": self.after, "addresses": list(self.addresses)}
        return {key: value for key, value in data.items() if value not in (None, [])}


@dataclass(frozen=True)
class Candidate:
    """A proposed set of edits, with who proposed it and why."""

    edits: tuple[Edit, ...]
    proposer: str | None = None
    rationale: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the candidate as a JSON-ready dict."""
        data = {"proposer": self.proposer, "rationale": self.rationale}
        given = {key: value for key, value in data.items() if value is not None}
        return {**given, "edits": [edit.to_json() for edit in self.edits]}


def read_candidate(path: Path) -> Candidate:
    """Read and check a candidate JSON file; errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise InputError("candidate file not found", path=path) from error
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the candidate: {error}", path=path) from error
    return parse_candidate(text, source=str(path))


def parse_candidate(text: str, *, source: str = "<candidate>") -> Candidate:
    """Parse candidate JSON text; ``source`` names it in errors."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"not valid JSON: {error.msg}", path=source, line=error.lineno, column=error.colno
        ) from error
    return candidate_from_json(data, source=source, text=text)


def candidate_from_json(data: object, *, source: str, text: str = "") -> Candidate:
    """Check a decoded candidate object and build the Candidate."""
    if not isinstance(data, dict):
        raise InputError("a candidate must be a JSON object with an `edits` list", path=source)
    _refuse_unknown(data, _CANDIDATE_KEYS, "unknown candidate key", source, text)
    proposer = _optional_str(data, "proposer", source, text)
    rationale = _optional_str(data, "rationale", source, text)
    edits_data = data.get("edits")
    if not isinstance(edits_data, list) or not edits_data:
        raise InputError(
            "a candidate needs a non-empty `edits` list",
            path=source,
            line=line_of(text, '"edits"'),
        )
    edits = tuple(
        _edit_from_json(item, index, source, text) for index, item in enumerate(edits_data)
    )
    return Candidate(edits=edits, proposer=proposer, rationale=rationale)


def _edit_from_json(item: object, index: int, source: str, text: str) -> Edit:
    """Check one edit object; errors say which edit (1-based) is wrong."""
    where = f"edit {index + 1}"
    if not isinstance(item, dict):
        raise InputError(f"{where}: must be a JSON object", path=source)
    item = cast(dict[str, Any], item)
    _refuse_unknown(item, _EDIT_KEYS, f"{where}: unknown key", source, text)
    for key in ("file", "op", "before", "after"):
        if not isinstance(item.get(key), str):
            raise InputError(f"{where}: `{key}` must be a string", path=source)
    op = item["op"]
    if op not in OPS:
        raise InputError(f"{where}: `op` must be replace or append, not {op!r}", path=source)
    if op == "replace" and item["before"] == "":
        raise InputError(f"{where}: a replace needs a non-empty `before`", path=source)
    anchor = item.get("anchor")
    if anchor is not None and (not isinstance(anchor, str) or anchor == ""):
        raise InputError(f"{where}: `anchor` must be a non-empty string", path=source)
    addresses = item.get("addresses", [])
    if not isinstance(addresses, list) or not all(isinstance(a, str) for a in addresses):
        raise InputError(f"{where}: `addresses` must be a list of strings", path=source)
    return Edit(item["file"], cast(Op, op), item["before"], item["after"], anchor, tuple(addresses))


def _refuse_unknown(
    data: dict[str, Any], known: tuple[str, ...], what: str, source: str, text: str
) -> None:
    """Raise naming the first key of ``data`` not in ``known`` (and its line), if any."""
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise InputError(
            f"{what} {unknown[0]!r} (expected {', '.join(known)})",
            path=source,
            line=line_of(text, f'"{unknown[0]}"'),
        )


def _optional_str(data: dict[str, Any], key: str, source: str, text: str) -> str | None:
    """Return ``data[key]`` if it is a string or absent; else raise naming the key."""
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"`{key}` must be a string", path=source, line=line_of(text, f'"{key}"'))
