"""The AST node: shaped like org-element's ``(TYPE PROPERTIES CONTENTS)``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(slots=True)
class Node:
    """One element: its type, byte span, 1-based line, properties and children."""

    type: str  # org-element's type name: "headline", "src-block", "paragraph"...
    begin: int  # byte offset of the first byte (affiliated keywords included)
    end: int  # byte offset past the element and the blank lines after it
    line: int  # 1-based line of ``begin``
    properties: dict[str, object] = field(default_factory=dict)
    contents: list[Node] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        """Yield this node and every descendant in document order (no recursion)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.contents))
