"""Resolve a src block's effective header arguments the way Org 9.5 Babel does.

Precedence, later wins key by key (org-babel-get-src-block-info): Babel's defaults;
the ``header-args`` property, then ``header-args:LANG``, each read with inheritance
(`org-entry-get-with-inheritance`: the nearest drawer value replaces the inherited
one, ``header-args+`` appends); the ``#+begin_src`` line; the ``#+HEADER:`` lines,
which Org applies bottom-up, so the topmost one wins. Nothing is evaluated: a value
Org would evaluate as Lisp is reported instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from orgrouter.org.blocks import SrcBlock, parse_header_args, read_value

# org-babel-default-header-args (ob-core.el, 9.5) plus ob-tangle's :padline/:comments
# defaults, which Babel reads as "absent means yes/no".
DEFAULTS: tuple[tuple[str, str], ...] = (
    (":session", "none"),
    (":results", "replace"),
    (":exports", "code"),
    (":cache", "no"),
    (":noweb", "no"),
    (":hlines", "no"),
    (":tangle", "no"),
)
# Org 9.5 evaluates a value starting with one of these (org-babel-read).
_LISP_START = ("(", "'", "`", "[")
# The usual 9.5 :tangle-mode spelling; we read it as data, never as code.
_IDENTITY_MODE_RE = re.compile(r"^\(identity #o([0-7]+)\)$")
_OCTAL_MODE_RE = re.compile(r"^#?o([0-7]+)$")
_INTEGER_RE = re.compile(r"^[-+]?[0-9]+$")  # org-babel--string-to-number gives an integer
_MOST_POSITIVE_FIXNUM = 2**61 - 1  # Emacs 28 on 64-bit hosts
_OCTAL_DIGITS_RE = re.compile(r"^\+?[0-7]{3,4}$")


@dataclass
class Params:
    """A block's merged header arguments: ``:key`` -> raw value (None = given bare)."""

    values: dict[str, str | None] = field(default_factory=dict)
    vars: list[str] = field(default_factory=list)  # :var assignments, in merge order
    lisp: list[str] = field(default_factory=list)  # ":key value" Org would evaluate

    def get(self, key: str) -> str | None:
        """Return the value of ``key`` as org-babel-read gives it (quotes resolved)."""
        value = self.values.get(key)
        return None if value is None else read_value(value)


def is_lisp_value(value: str | None) -> bool:
    """Return True when Org 9.5 would evaluate ``value`` as an Emacs Lisp form."""
    if value is None:
        return False
    stripped = value.strip()
    if _IDENTITY_MODE_RE.match(stripped):
        return False
    return stripped.startswith(_LISP_START) or stripped == "*this*"


def parse_mode(value: str) -> tuple[int | None, str]:
    """Return the mode a ``:tangle-mode`` value names as Org 9.5 reads it, and a warning.

    9.5 gives ``set-file-modes`` what ``org-babel-read`` makes of it: an integer is
    decimal (448 is #o700); 9.6's ``o600`` stays a string it fails on (README).
    """
    value = value.strip()
    match = _IDENTITY_MODE_RE.match(value)
    if match is not None:
        return int(match.group(1), 8), ""
    if _INTEGER_RE.match(value) and abs(int(value)) <= _MOST_POSITIVE_FIXNUM:
        number = int(value)  # a bignum is no fixnum: set-file-modes fails, as below
        mode = number & 0o7777
        if 0 <= number <= 0o777:
            return mode, ""
        meant = f"; for #o{value.lstrip('+')} write (identity #o{value.lstrip('+')})"
        return mode, (
            f":tangle-mode {value} is the decimal number {number}, so the mode is "
            f"#o{mode:o}" + (meant if _OCTAL_DIGITS_RE.match(value) else "")
        )
    match = _OCTAL_MODE_RE.match(value)
    if match is not None:
        return int(match.group(1), 8), (
            f":tangle-mode {value} is Org 9.6 syntax (Org 9.5 fails on it); "
            f"applied as #o{match.group(1)}"
        )
    return None, f":tangle-mode {value} is no mode Org 9.5 reads; not applied"


def property_chain_value(
    levels: Sequence[tuple[str | None, Sequence[str]]], keyword_value: str | None
) -> str | None:
    """Return an inherited property's value from the nearest entry upward.

    ``levels`` holds, nearest first, each entry's (base value, ``+`` values); an entry
    with a base value stops the walk; otherwise the ``#+PROPERTY`` value comes first.
    """
    value: str | None = None
    for base, extra in levels:
        parts = [part for part in (base, *extra) if part is not None]
        if parts:
            joined = " ".join(parts)
            value = f"{joined} {value}" if value else joined
        if base is not None:
            return value
    if keyword_value is None:
        return value
    return f"{keyword_value} {value}" if value else keyword_value


def merge(sources: Iterable[list[tuple[str, str | None]]]) -> Params:
    """Merge header-argument lists, later ones winning key by key (org-babel-merge-params)."""
    params = Params()
    var_names: dict[str, int] = {}
    for pairs in sources:
        for key, value in pairs:
            if is_lisp_value(value):
                params.lisp.append(f"{key} {value}")
            if key == ":var":
                for assignment in _split_vars(value or ""):
                    name = assignment.split("=", 1)[0].strip()
                    if name in var_names:
                        params.vars[var_names[name]] = assignment
                    else:
                        var_names[name] = len(params.vars)
                        params.vars.append(assignment)
                continue
            params.values[key] = value
    return params


def _split_vars(value: str) -> list[str]:
    """Split ``a=1, b=2`` the way org-babel-parse-multiple-vars does (roughly)."""
    pieces: list[str] = []
    depth = 0
    quoted = False
    current: list[str] = []
    for ch in value:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        if ch in ", " and depth == 0 and not quoted:
            if current:
                pieces.append("".join(current))
            current = []
            continue
        current.append(ch)
    if current:
        pieces.append("".join(current))
    # "a = 1" splits into "a", "=", "1": join pieces around '=' back together.
    joined: list[str] = []
    for piece in pieces:
        if joined and (piece.startswith("=") or joined[-1].endswith("=")):
            joined[-1] += piece
        else:
            joined.append(piece)
    return joined


def block_sources(
    block: SrcBlock, header_args: str | None, lang_header_args: str | None
) -> list[list[tuple[str, str | None]]]:
    """Return a block's header-argument sources in Babel's merge order."""
    given = (header_args, lang_header_args, block.parameters)
    # org-element collects #+HEADER values last line first; Babel merges that list
    # in order, so the topmost #+HEADER line has the last word.
    texts = [*(text or "" for text in given), *reversed(block.headers)]
    return [list(DEFAULTS), *(parse_header_args(text) for text in texts)]
