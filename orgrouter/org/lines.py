"""Split Org text into lines as Emacs does and map character offsets to bytes and lines.

Only LF ends a line (``\\x0c`` and ``\\u2028`` are text, unlike ``str.splitlines``). In a
CRLF file the CR before each LF is part of the line end, as when Emacs visits it.
``Offsets`` is the one place that turns character offsets into UTF-8 byte offsets and
back; everything else asks it.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class Offsets:
    """Convert between character offsets of ``text`` and byte offsets of its UTF-8.

    ``char0`` in the text is byte ``byte0`` in the file. ASCII text converts for free;
    otherwise each call counts only the stretch from the last offset asked for, so
    offsets asked in order (as parsers and scanners ask) cost one pass over the text.
    Lone surrogates (bytes that were not UTF-8, decoded with ``surrogateescape`` or
    ``surrogatepass``) count as the three bytes ``surrogatepass`` writes.
    """

    def __init__(
        self, text: str, char0: int = 0, byte0: int = 0, *, data: bytes | None = None
    ) -> None:
        """Index ``text``; ``data`` is the UTF-8 of ``text[char0:]`` when at hand."""
        self.text = text
        self.ascii = text.isascii()
        self.char0, self.byte0 = char0, byte0
        self._char, self._byte = char0, byte0  # the last pair counted
        self._data = data

    def byte(self, char: int) -> int:
        """Return the byte offset of character offset ``char``."""
        if self.ascii:
            return self.byte0 + char - self.char0
        if char >= self._char:
            self._byte += _utf8_length(self.text[self._char : char])
        else:
            self._byte -= _utf8_length(self.text[char : self._char])
        self._char = char
        return self._byte

    def char(self, byte: int) -> int:
        """Return the character offset of byte offset ``byte`` (a character boundary)."""
        if self.ascii:
            return self.char0 + byte - self.byte0
        if self._data is None:
            self._data = self.text[self.char0 :].encode("utf-8", "surrogatepass")
        low, high = sorted((self._byte - self.byte0, byte - self.byte0))
        count = len(self._data[low:high].decode("utf-8", "surrogatepass"))
        self._char += count if byte >= self._byte else -count
        self._byte = byte
        return self._char


def _utf8_length(text: str) -> int:
    """Return how many bytes ``text`` takes in UTF-8 (a lone surrogate counts three)."""
    return len(text.encode("utf-8", "surrogatepass"))


class Lines:
    """The lines of ``text[begin:end]`` with their byte offsets and line numbers."""

    def __init__(
        self,
        text: str,
        *,
        begin: int = 0,
        end: int | None = None,
        byte_begin: int = 0,
        first_line: int = 1,
        crlf: bool = False,
    ) -> None:
        """Index ``text[begin:end]``, whose first byte is ``byte_begin`` in the file."""
        self.text = text
        self.crlf = crlf
        self.begin = begin
        self.end = len(text) if end is None else end
        self.first_line = first_line
        self.offsets = Offsets(text, begin, byte_begin)
        contents = text[begin : self.end].split("\n")
        ended = contents[-1] == ""
        if ended:
            contents.pop()  # a final LF ends the last line and starts none
        self.starts = [*accumulate((len(line) + 1 for line in contents), initial=begin)][:-1]
        if crlf:  # the CR before a LF is part of the line end (a last line without one keeps it)
            with_lf = len(contents) if ended else len(contents) - 1
            contents = [c.removesuffix("\r") if i < with_lf else c for i, c in enumerate(contents)]
        self.contents = contents
        self.byte_starts = [self.offsets.byte(start) for start in self.starts]
        self.byte_end = self.offsets.byte(self.end)

    def slice(self, begin: int, end: int) -> str:
        """Return the text between two character offsets, CRLF line ends read as LF."""
        text = self.text[begin:end]
        return text.replace("\r\n", "\n") if self.crlf else text

    def __len__(self) -> int:
        return len(self.starts)

    def start(self, index: int) -> int:
        """Return the character offset where line ``index`` starts (or the end)."""
        return self.starts[index] if index < len(self.starts) else self.end

    def index_of(self, offset: int) -> int:
        """Return the index of the line holding character ``offset``."""
        return max(bisect_right(self.starts, offset) - 1, 0)

    def index_of_byte(self, byte_offset: int) -> int:
        """Return the index of the line holding file byte ``byte_offset``."""
        return max(bisect_right(self.byte_starts, byte_offset) - 1, 0)

    def byte_at(self, index: int) -> int:
        """Return the file byte offset where line ``index`` starts (or the end)."""
        return self.byte_starts[index] if index < len(self.byte_starts) else self.byte_end

    def line_at(self, index: int) -> int:
        """Return the 1-based file line number of line ``index``."""
        return self.first_line + index

    def byte(self, offset: int) -> int:
        """Return the file byte offset of character ``offset``."""
        if offset >= self.end:
            return self.byte_end
        # From the start of its line, not from the last offset asked: nodes ask for
        # their begin and end in turn, which would step back and forth over the text.
        index = self.index_of(offset)
        if self.offsets.ascii:
            return self.byte_starts[index] + offset - self.starts[index]
        return self.byte_starts[index] + _utf8_length(self.text[self.starts[index] : offset])

    def line(self, offset: int) -> int:
        """Return the 1-based file line number of character ``offset``."""
        if offset < self.end:
            return self.first_line + self.index_of(offset)
        # At the end: on a new line after a final LF, else on the last line.
        ends_with_newline = self.end > self.begin and self.text[self.end - 1] == "\n"
        count = len(self.starts)
        return self.first_line + (count if ends_with_newline or count == 0 else count - 1)
