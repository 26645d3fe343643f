"""Answer a search from the notes' text, for a run that reads every note anyway.

The first run over a tree (an empty scan cache, or ``--force``) reads every note to
find its requests. Building the search index in that run cost ten times that reading
(SQLite FTS5 tokenizes every section, one row each), for a handful of queries that
C-speed substring tests answer in about the time of a second read from the page
cache. So such a run answers its searches here and leaves the index to the next run
that searches (``skills/search.py`` decides).

The hits are the index's: the rows of ``searchindex.sections`` (same privacy, results
and requests rules, same section text) that hold every word, a word matching whole
words in any case, accents folded, as FTS5's ``unicode61 remove_diacritics 2``
tokenizer does for plain ASCII words (others are left to the index). A file that
cannot hold every word is never split into sections, and of one that can, only the
sections near a word are. The ranking is FTS5's BM25 formula (titles weighted by
``TITLE_WEIGHT``) with section lengths estimated from blanks instead of counted tokens,
so its order can differ slightly from the index's among close scores.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import re
import unicodedata
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from orgrouter.address import ANY_ADDRESS_RE
from orgrouter.errors import OrgRouterError
from orgrouter.org.headline import parse_headline
from orgrouter.org.todo import DEFAULT_TODO, TodoKeywords
from orgrouter.records import NamedTuple
from orgrouter.searchindex import (
    BODY_CHARS,
    NOT_TEXT,
    SNIPPET_TOKENS,
    TITLE_WEIGHT,
    IndexHit,
    Section,
    file_prelude,
    headline_starts,
    prelude_marks,
    sections,
)

MAX_TOKENS = 16  # of a query answered from the text; more are left to the index
K1 = 1.2  # FTS5's bm25 constants
B = 0.75
_PLAIN = re.compile(r"[a-z0-9]+")
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"[^\W_]+")
_NEWLINE = re.compile(r"\n")
_TAG_CHARS = re.compile(r"[\w@#%:]+")  # Org's tag characters, on ASCII
_STRUCTURE_FIRST = frozenset(" \t:SDC#")
_BATCH_CHARS = 1 << 20


@dataclass(frozen=True, slots=True)
class Answer:
    """A search's hits (best first), how many headlines matched, files it could not read."""

    hits: list[IndexHit]
    total: int
    unreadable: int


# A note's hits, one run of ints each: a section's offset, length, then each token's
# occurrences in its title and in its text (an array: a cold run holds some 30,000,
# and a word in every headline of 200 MB of notes 1.4 million; C ints, since a note
# is at most 64 MiB, halve what 8-byte ints held: 85 MB peak RSS, now 65).
Hits: TypeAlias = "array[int]"


class _Stats:
    """BM25's corpus figures, estimated: headlines, and the mean section length.

    Lengths are in characters (a section's, not its tokens: BM25 uses only their ratio
    to the mean); headlines are counted in one note of every ``SAMPLE`` and scaled by
    size, as counting them everywhere cost a tenth of a pass.
    """

    SAMPLE = 16

    def __init__(self) -> None:
        self.chars = self.seen = self.sampled_chars = self.sampled_heads = 0

    def add(self, folded: str) -> None:
        """Count one note (its size always, its headlines if sampled)."""
        if self.seen % self.SAMPLE == 0:
            self.sampled_chars += len(folded)
            # "\n*" lines overcount ("*bold*" starting a line): it is an estimate.
            self.sampled_heads += folded.count("\n*") + folded.startswith("*")
        self.seen += 1
        self.chars += len(folded)

    def rows(self) -> int:
        """Return the estimated number of headlines (BM25's N)."""
        if not self.sampled_chars:
            return 1
        return max(1, round(self.chars * self.sampled_heads / self.sampled_chars))

    def mean(self) -> float:
        """Return the estimated mean section length, in characters."""
        return self.sampled_chars / self.sampled_heads if self.sampled_heads else 1.0


def plain_tokens(words: Sequence[str]) -> list[str] | None:
    """Return the query's tokens as FTS5 reads them; None if one is not plain ASCII, or too many."""
    tokens = [token.lower() for word in words for token in _WORD.findall(word)]
    if not tokens or not all(_PLAIN.fullmatch(token) for token in tokens):
        return None
    unique = list(dict.fromkeys(tokens))
    # A pass looks for every token in every note: a 2,500-word request cost 5 s per
    # 1,000 notes. The index answers such a query in the same time as a short one.
    return unique if len(unique) <= MAX_TOKENS else None


def fold(text: str) -> str:
    """Return ``text`` lower-cased with accents removed (newlines kept where they are)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def scan_search(
    files: Sequence[str],
    read: Callable[[str], str],
    tokens: Sequence[str],
    privacy_tags: Collection[str],
    *,
    limit: int = 25,
) -> Answer:
    """Return the headlines of ``files`` holding every token (see ``plain_tokens``)."""
    text_pass = TextPass(files, read, privacy_tags)
    text_pass.learn(tokens)
    for path in files:
        text_pass.offer(_text_of(read, path))
    return text_pass.answer(tokens, limit)


def _text_of(read: Callable[[str], str], path: str) -> str | None:
    """Return the text ``read`` gives of ``path``, None if it cannot be read."""
    try:
        return read(path)
    except (OSError, OrgRouterError):
        return None


class _Query(NamedTuple):
    patterns: list[re.Pattern[str]]
    holding: list[int]  # occurrences of each token: BM25's document counts, nearly
    found: list[tuple[str, str, Hits]]  # each note's hits; the best are read again


class _Batch(list[tuple[str, str]]):
    """Plain ASCII notes, searched as one string, and their size."""

    size = 0


class TextPass:
    """Queries answered from the text of ``files``, given note by note in their order.

    A run whose scan reads every note gives each note's text (``offer``) as it reads it,
    so its searches read no note again but those given before the query was learned
    (``offered``: passed over before the pass began). The answers are ``scan_search``'s.
    """

    def __init__(
        self,
        files: Sequence[str],
        read: Callable[[str], str],
        privacy_tags: Collection[str],
        *,
        offered: int = 0,
    ) -> None:
        self.files, self.read, self.tags, self.offered = files, read, privacy_tags, offered
        self.marks, self.stats, self.unreadable = prelude_marks(privacy_tags), _Stats(), 0
        self.queries: dict[tuple[str, ...], _Query] = {}
        self.batch = _Batch()

    def learn(self, tokens: Sequence[str]) -> None:
        """Search for ``tokens`` too: in the notes given so far (read again) and those to come."""
        if tuple(tokens) in self.queries:
            return
        self._search(self.batch, self.queries.values())  # all given before this query
        # The word first, its boundaries after: a literal start is found at memchr speed.
        patterns = [
            re.compile(rf"{re.escape(t)}(?<![^\W_]{re.escape(t)})(?![^\W_])") for t in tokens
        ]
        query = _Query(patterns, [0] * len(tokens), [])
        first, self.queries[tuple(tokens)] = not self.queries, query
        batch = _Batch()
        for path in self.files[: self.offered]:  # BM25's statistics: once, in order
            self._take(path, _text_of(self.read, path), [query], batch, first)
        self._search(batch, [query])

    def offer(self, text: str | None) -> None:
        """Search the next note of ``files``, whose text is ``text`` (None: unreadable)."""
        self.offered += 1
        if self.queries:
            path = self.files[self.offered - 1]
            self._take(path, text, [*self.queries.values()], self.batch, True)

    def _take(
        self, path: str, text: str | None, queries: list[_Query], batch: _Batch, count: bool
    ) -> None:
        """Search one note for ``queries`` (ASCII: in ``batch``); ``count`` it in the stats."""
        if text is None:
            self.unreadable += count
            return
        folded = text if text.isascii() else fold(text)
        if count:
            self.stats.add(folded)
        if text.isascii():  # most notes: folding is lower-casing, offsets stay put
            batch.append((path, text))
            batch.size += len(text)
            if batch.size >= _BATCH_CHARS:
                self._search(batch, queries)
        else:
            for query in queries:
                hits = _by_rows(text, folded, path, query.patterns, self.tags, query.holding)
                query.found.extend([(path, str(path), hits)] if hits else [])

    def _search(self, batch: _Batch, queries: Iterable[_Query]) -> None:
        """Search the notes of ``batch`` for each of ``queries``, and empty it."""
        for query in queries:
            query.found.extend(
                _batch_hits(batch, query.patterns, self.tags, self.marks, query.holding)
            )
        batch.clear()
        batch.size = 0

    def answer(self, tokens: Sequence[str], limit: int = 25) -> Answer:
        """Return the answer to a learned query, once every note of ``files`` was given."""
        self._search(self.batch, self.queries.values())
        query = self.queries[tuple(tokens)]
        best = heapq.nsmallest(limit, _scored(query.found, self.stats, query.holding))
        shown = []
        for _score, _key, start, path in best:
            try:  # the index's row of the headline at ``start`` (None: gone since)
                rows = sections(self.read(path), self.tags, path, near=[start])
            except (OSError, OrgRouterError):
                continue
            row = next((row for row in rows if row.start == start), None)
            if row is not None:
                snippet = _snippet(row.body, query.patterns)
                shown.append(IndexHit(Path(path), row.line, row.title, snippet))
        total = sum(len(hits) for _path, _key, hits in query.found) // (2 + 2 * len(tokens))
        return Answer(shown, total - (len(best) - len(shown)), self.unreadable)


def _scored(
    found: list[tuple[str, str, Hits]], stats: _Stats, holding: list[int]
) -> Iterator[tuple[float, str, int, str]]:
    """Yield (minus FTS5's bm25 score, path, offset, path) for every hit: best first sorts."""
    rows = stats.rows()
    idfs = []
    for held in holding:
        ratio = (rows - held + 0.5) / (held + 0.5)  # occurrences may outnumber the rows
        idfs.append(math.log(ratio) if ratio > 1 else 1e-6)
    base, slope = K1 * (1 - B), K1 * B / stats.mean()
    stride = 2 + 2 * len(idfs)
    for path, key, hits in found:
        for at in range(0, len(hits), stride):
            damp = base + slope * hits[at + 1]
            score = 0.0
            for n, idf in enumerate(idfs):
                weight = TITLE_WEIGHT * hits[at + 2 + 2 * n] + hits[at + 3 + 2 * n]
                score += idf * weight * (K1 + 1) / (weight + damp)
            yield -score, key, hits[at], path


def _batch_hits(
    batch: list[tuple[str, str]],
    patterns: list[re.Pattern[str]],
    privacy_tags: Collection[str],
    marks: tuple[re.Pattern[str], tuple[str, ...]],
    holding: list[int],
) -> list[tuple[str, str, Hits]]:
    """Return (path, key, hits) of each ASCII note of ``batch`` that holds a hit.

    The notes are joined by newlines, so each regex runs once over the batch: the words
    (counted in ``holding``), the headlines, ``marks``. A note with no mark is plain
    (default TODO keywords, no privacy tag, no result): its sections go by the words'
    offsets. Others, and sections longer than the index keeps, go by the index's rows.
    """
    if not batch:
        return []
    big = "\n" + "\n".join(text for _path, text in batch) + "\n"
    bounds = list(itertools.accumulate((len(text) + 1 for _path, text in batch), initial=1))
    folded = big.lower()
    hits: dict[int, Hits] = {}
    todo_of: dict[int, TodoKeywords | None] = {}  # of the marked notes; None: by the rows
    for j in _marked(folded, bounds, *marks):
        path, text = batch[j]
        ftext = folded[bounds[j] : bounds[j + 1] - 1]
        prelude = file_prelude(text, privacy_tags, path, ftext)
        todo_of[j] = None if prelude is None or prelude[1] or prelude[2] else prelude[0]
        if prelude is not None and todo_of[j] is None:
            hits[j] = _by_rows(text, ftext, path, patterns, privacy_tags)
    heads = [*headline_starts(big), len(big)]  # and the end: each start has a next
    width = len(patterns)
    # Per section: [its end, where its headline line ends, its note, then for each token
    # its occurrences in that line and in the section's text].
    held: dict[int, list[int]] = {}
    for n, pattern in enumerate(patterns):
        line_end, is_text = -1, False  # the line of the last word in a body, and its kind
        for match in pattern.finditer(folded):
            holding[n] += 1
            at = match.start()
            index = bisect.bisect_right(heads, at) - 1
            if index < 0:
                continue
            entry = held.get(index)
            if entry is None:
                start = heads[index]
                j = bisect.bisect_right(bounds, start) - 1
                end = min(heads[index + 1], bounds[j + 1] - 1)
                entry = held[index] = [end, big.find("\n", start), j] + [0] * 2 * width
            if at >= entry[0]:
                continue  # before the first headline of its note: in no section
            if at < entry[1]:
                entry[3 + 2 * n] += 1
                continue
            # A drawer, planning or keyword line is not text to the index (its
            # NOT_TEXT); only a line starting with a blank or one of ":SDC#" can be.
            # Each line is looked at once, not once per word: a megabyte line holding
            # the word a hundred thousand times would be quadratic.
            if at > line_end:
                line = big.rfind("\n", 0, at)
                line_end = big.find("\n", at)
                is_text = big[line + 1] not in _STRUCTURE_FIRST or not NOT_TEXT.match(big, line)
            if is_text:
                entry[4 + 2 * n] += 1
    long: dict[int, list[int]] = {}
    for index, entry in held.items():
        end, head_end, j = entry[:3]
        todo = todo_of.get(j, DEFAULT_TODO)
        in_head, in_body = entry[3::2], entry[4::2]
        if todo is None or not all(map(max, in_head, in_body)):
            continue
        start = heads[index]
        if end - head_end > BODY_CHARS:
            long.setdefault(j, []).append(start - bounds[j])  # the index keeps its first
            continue  # BODY_CHARS: cut as it cuts
        # The title is parsed out only where it decides: an address in it (a request,
        # never indexed), or a word found in no other place of the section. Elsewhere a
        # word in the line ranks as a title word, in a tag too.
        in_title = in_head
        head = big[start:head_end].rstrip("\r")  # a CRLF note's CR is no part of it
        maybe_request = "@" in head and ANY_ADDRESS_RE.search(head, 0, _title_end(head, todo))
        if maybe_request or not all(in_body):
            title = parse_headline(head, todo).raw
            if maybe_request and ANY_ADDRESS_RE.search(title):
                continue
            in_title = [len(pattern.findall(title.lower())) for pattern in patterns]
            if not all(map(max, in_title, in_body)):
                continue
        found = hits.setdefault(j, array("i"))
        found.extend((start - bounds[j], end - start))
        found.extend(itertools.chain.from_iterable(zip(in_title, in_body, strict=True)))
    for j, near in long.items():
        path, text = batch[j]
        rows = _row_hits(text, text, path, near, patterns, privacy_tags)
        hits.setdefault(j, array("i")).extend(itertools.chain.from_iterable(rows))
    return [(batch[j][0], str(batch[j][0]), found) for j, found in hits.items() if found]


def _marked(
    folded: str, bounds: list[int], pattern: re.Pattern[str], words: Sequence[str]
) -> list[int]:
    """Return the notes (indices into ``bounds``) holding ``pattern`` or one of ``words``."""
    starts = [m.start() for m in pattern.finditer(folded)]
    for word in words:  # str.find: the regex engine stops at every ":" of one like ":x:"
        at = folded.find(word)
        while at >= 0:
            starts.append(at)
            at = folded.find(word, at + 1)
    return sorted({bisect.bisect_right(bounds, at) - 1 for at in starts})


def _by_rows(
    text: str,
    folded: str,
    path: str,
    patterns: list[re.Pattern[str]],
    privacy_tags: Collection[str],
    holding: list[int] | None = None,
) -> Hits:
    """Return the hits among the index's rows of one note (counting its words in ``holding``)."""
    offsets = [[m.start() for m in pattern.finditer(folded)] for pattern in patterns]
    if holding is not None:
        holding[:] = [held + len(found_at) for held, found_at in zip(holding, offsets, strict=True)]
    if not all(offsets):
        return array("i")
    rows = _row_hits(text, folded, path, min(offsets, key=len), patterns, privacy_tags)
    return array("i", itertools.chain.from_iterable(rows))


def _title_end(head: str, todo: TodoKeywords) -> int:
    """Return where a headline line's title surely ends: before tags Org surely reads.

    Tags are surely tags when a word that is no TODO keyword, priority cookie or COMMENT
    comes before them (else Org may read them as the title); otherwise the line's end.
    """
    stripped = head.rstrip(" \t")
    if not stripped.endswith(":"):
        return len(head)
    first = max(stripped.rfind(" "), stripped.rfind("\t")) + 1
    group = stripped[first:]
    if len(group) < 3 or not group.startswith(":") or not _TAG_CHARS.fullmatch(group):
        return len(head)
    before = stripped[:first]
    words = before.lstrip("*").split()
    if any(w not in todo.keywords and not w.startswith(("[#", "COMMENT")) for w in words):
        return len(before.rstrip(" \t"))
    return len(head)


def _row_hits(
    text: str,
    folded: str,
    path: str,
    near: list[int],
    patterns: list[re.Pattern[str]],
    privacy_tags: Collection[str],
) -> Iterator[tuple[int, ...]]:
    """Yield the hits among the index's rows of one note, near the offsets ``near``."""
    if not text.isascii():  # folding may have moved the offsets: go by lines instead
        starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        folded_starts = [0, *(match.end() for match in _NEWLINE.finditer(folded))]
        near = [starts[bisect.bisect_right(folded_starts, at) - 1] for at in near]
    for row in sections(text, privacy_tags, path, near=near):
        counts = _counts(row, patterns)
        if counts is not None:  # the length as the mean counts it
            yield row.start, len(row.head) + len(row.body), *itertools.chain(*counts)


def _counts(row: Section, patterns: list[re.Pattern[str]]) -> list[tuple[int, int]] | None:
    """Return each token's (title, body) occurrences in ``row``, None if one has none."""
    body = fold(row.body)
    head = fold(row.head)
    counts = []
    for pattern in patterns:
        in_body = len(pattern.findall(body))
        # Only a headline line holding the word needs its title parsed out.
        in_title = len(pattern.findall(fold(row.title))) if pattern.search(head) else 0
        if not in_title and not in_body:
            return None
        counts.append((in_title, in_body))
    return counts


def _snippet(body: str, patterns: list[re.Pattern[str]]) -> str:
    """Return about ``SNIPPET_TOKENS`` words of ``body`` around its first matched word."""
    words = list(_TOKEN.finditer(body))
    if not words:
        return ""
    folded = [fold(w.group(0)) for w in words]
    first = next(
        (i for i, w in enumerate(folded) if any(p.fullmatch(w) for p in patterns)), 0
    )
    start = max(0, min(first - SNIPPET_TOKENS // 4, len(words) - SNIPPET_TOKENS))
    stop = min(len(words), start + SNIPPET_TOKENS)
    # As FTS5's snippet: a window reaching either end of the text takes what is there.
    begin = 0 if start == 0 else words[start].start()
    end = len(body) if stop == len(words) else words[stop - 1].end()
    text = " ".join(body[begin:end].split())
    return ("…" if start > 0 else "") + text + ("…" if stop < len(words) else "")
