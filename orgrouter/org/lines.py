"""Split Org text into lines as Emacs does and map character offsets to bytes and lines.

Only LF ends a line (``\\x0c`` and ``\\u2028`` are text, unlike ``str.splitlines``). In a
CRLF file the CR before each LF is part of the line end, as when Emacs visits it.
"""

from __future__ import annotations

from bisect import bisect_right


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
        self.ascii = text.isascii()
        starts: list[int] = []
        contents: list[str] = []
        byte_starts: list[int] = []
        pos = begin
        byte_pos = byte_begin
        while pos < self.end:
            newline = text.find("\n", pos, self.end)
            stop = self.end if newline < 0 else newline
            following = self.end if newline < 0 else newline + 1
            content = text[pos:stop]
            if crlf and content.endswith("\r") and newline >= 0:
                content = content[:-1]
            starts.append(pos)
            contents.append(content)
            byte_starts.append(byte_pos)
            chunk = text[pos:following]
            byte_pos += len(chunk) if self.ascii else len(chunk.encode("utf-8", "surrogatepass"))
            pos = following
        self.starts = starts
        self.contents = contents
        self.byte_starts = byte_starts
        self.byte_end = byte_pos

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
        index = self.index_of(offset)
        if self.ascii:
            return self.byte_starts[index] + offset - self.starts[index]
        head = self.text[self.starts[index] : offset]
        return self.byte_starts[index] + len(head.encode("utf-8", "surrogatepass"))

    def line(self, offset: int) -> int:
        """Return the 1-based file line number of character ``offset``."""
        if offset < self.end:
            return self.first_line + self.index_of(offset)
        # At the end: on a new line after a final LF, else on the last line.
        ends_with_newline = self.end > self.begin and self.text[self.end - 1] == "\n"
        count = len(self.starts)
        return self.first_line + (count if ends_with_newline or count == 0 else count - 1)
