"""TODO keyword sets, as Org builds them from ``#+TODO`` lines or its default."""

from __future__ import annotations

import re
from collections.abc import Sequence

from orgrouter.records import field, record

# Org's `org-set-regexps-and-options': a keyword is the text before an optional
# "(key...)" suffix that closes the word, e.g. "WAIT(w@/!)" is WAIT with key "w".
_KEYWORD_RE = re.compile(r"^(.*?)(?:\(([^!@/])?.*?\))?$", re.DOTALL)


@record(frozen=True)
class TodoSequence:
    """One ``#+TODO``-style line: its keywords, which of them are done, fast keys."""

    kind: str  # "sequence" or "type", as Org names them
    keywords: tuple[str, ...]
    done: tuple[str, ...]
    keys: tuple[tuple[str, str | None], ...]  # (keyword, fast-access key or None)


@record(frozen=True)
class TodoKeywords:
    """The TODO keywords one buffer knows, in Org's order, and which mean done."""

    sequences: tuple[TodoSequence, ...]
    keywords: tuple[str, ...] = field(init=False)  # `org-todo-keywords-1'
    done: tuple[str, ...] = field(init=False)  # `org-done-keywords'

    def __post_init__(self) -> None:
        words = tuple(word for seq in self.sequences for word in seq.keywords)
        done = tuple(word for seq in self.sequences for word in seq.done)
        # Org falls back to the last keyword when no sequence names a done state.
        object.__setattr__(self, "keywords", words)
        object.__setattr__(self, "done", done or words[-1:])

    def is_done(self, keyword: str) -> bool:
        """Return whether ``keyword`` is a done state."""
        return keyword in self.done

    def match(self, line: str, pos: int) -> str | None:
        """Return the keyword that ``line`` has at ``pos`` followed by a space, or None."""
        # Keywords never contain whitespace (Org splits the line on it), so at most
        # one keyword plus " " can be a prefix here, as with Org's `org-todo-regexp'.
        for word in self.keywords:
            if word and line.startswith(word, pos) and line.startswith(" ", pos + len(word)):
                return word
        return None


def parse_sequence(kind: str, words: Sequence[str]) -> TodoSequence:
    """Build one TODO sequence from the words of a ``#+TODO`` line, ``|`` included."""
    keys: list[tuple[str, str | None]] = []
    done_names: list[str] = []
    seen_bar = False
    for word in words:
        if word == "|":
            seen_bar = True
            continue
        match = _KEYWORD_RE.match(word)
        assert match is not None  # the pattern matches every string
        keys.append((match.group(1), match.group(2)))
        if seen_bar:
            done_names.append(match.group(1))
    names = tuple(name for name, _ in keys)
    return TodoSequence(kind, names, tuple(done_names) if seen_bar else names[-1:], tuple(keys))


DEFAULT_TODO = TodoKeywords((parse_sequence("sequence", ["TODO", "DONE"]),))
