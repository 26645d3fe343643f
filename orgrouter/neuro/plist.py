"""Read the Lisp plist a model replies with into Python values (lark, lazily)."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from orgrouter.errors import ModelError
from orgrouter.sexp import Keyword, Symbol

if TYPE_CHECKING:
    from lark import Lark

_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)```", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


@cache
def _parser() -> Lark:
    from lark import Lark  # lark only when a model reply needs reading

    return Lark.open("plist.lark", rel_to=__file__, parser="lalr")


def _unescape(literal: str) -> str:
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)


def _convert(tree: Any) -> object:
    from lark import Token, Tree

    if isinstance(tree, Token):
        raise ModelError(f"unexpected token {tree!s}")
    assert isinstance(tree, Tree)
    kind = tree.data
    if kind == "start":
        return _convert(tree.children[0])
    if kind == "list":
        return [_convert(child) for child in tree.children]
    if kind == "quoted":
        return _convert(tree.children[1])
    token = str(tree.children[0])
    if kind == "keyword":
        return Keyword(token[1:])
    if kind == "string":
        return _unescape(token)
    if kind == "number":
        return float(token) if any(c in token for c in ".eE") else int(token)
    if token.lower() == "nil":
        return None
    if token.lower() == "t":
        return True
    return Symbol(token)


def extract_form(reply: str) -> str:
    """Return the Lisp form inside ``reply``: a fenced block, else the outermost parens."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start, end = text.find("("), text.rfind(")")
    if start < 0 or end < start:
        raise ModelError("the reply holds no Lisp form (no parentheses)")
    return text[start : end + 1]


def loads(text: str) -> object:
    """Return the Lisp datum ``text`` as Python: lists, Keyword, str, int, float, Symbol."""
    from lark.exceptions import LarkError

    try:
        tree = _parser().parse(text)
    except LarkError as error:
        where = getattr(error, "line", None)
        detail = str(error).strip().splitlines()[0]
        raise ModelError(f"cannot read the reply as a Lisp plist: {detail}", line=where) from None
    return _convert(tree)


def as_dict(value: object) -> dict[str, object]:
    """Return a plist (``[Keyword, value, ...]``) as a dict with lower-case keys."""
    if not isinstance(value, list) or len(value) % 2:
        raise ModelError("expected a plist (:key value ...)")
    out: dict[str, object] = {}
    for key, item in zip(value[::2], value[1::2], strict=True):
        if not isinstance(key, Keyword):
            raise ModelError(f"expected a keyword in the plist, found {key!r}")
        out[key.name.lower()] = item
    return out
