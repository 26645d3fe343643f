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
    NEXT_HEADLINE,
    NOT_TEXT,
    RESULT_MARK,
    SNIPPET_TOKENS,
    TITLE_WEIGHT,
    IndexHit,
    Section,
    file_prelude,
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
    found: list[_Found]  # each batch's hits; the best are read again


class _Found(NamedTuple):
    """The hits of a batch of notes: offsets are the batch's, as ``bounds`` joins the notes."""

    paths: list[str]
    bounds: list[int]  # where each note starts (and the end): its offsets, less that
    hits: Hits


class _Batch:
    """Plain ASCII notes, searched as one string, and their size."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.texts: list[str] = []
        self.size = 0


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
            self._take(path, text, self.queries.values(), self.batch, True)

    def _take(
        self, path: str, text: str | None, queries: Iterable[_Query], batch: _Batch, count: bool
    ) -> None:
        """Search one note for ``queries`` (ASCII: in ``batch``); ``count`` it in the stats."""
        if text is None:
            self.unreadable += count
            return
        if text.isascii():  # most notes: folding is lower-casing, offsets stay put
            if count:
                self.stats.add(text)
            batch.paths.append(path)
            batch.texts.append(text)
            batch.size += len(text)
            if batch.size >= _BATCH_CHARS:
                self._search(batch, queries)
            return
        folded = fold(text)
        if count:
            self.stats.add(folded)
        for query in queries:
            hits = _by_rows(text, folded, path, query.patterns, self.tags, query.holding)
            query.found.extend([_Found([path], [0, len(text)], hits)] if hits else [])

    def _search(self, batch: _Batch, queries: Iterable[_Query]) -> None:
        """Search the notes of ``batch`` for each of ``queries``, and empty it."""
        for query in queries:
            found = _batch_hits(batch, query.patterns, self.tags, self.marks, query.holding)
            query.found.extend([found] if found.hits else [])
        batch.paths, batch.texts, batch.size = [], [], 0

    def answer(self, tokens: Sequence[str], limit: int = 25) -> Answer:
        """Return the answer to a learned query, once every note of ``files`` was given."""
        self._search(self.batch, self.queries.values())
        query = self.queries[tuple(tokens)]
        best = _best(query.found, self.stats, query.holding, limit)
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
        total = sum(len(found.hits) for found in query.found) // (2 + 2 * len(tokens))
        return Answer(shown, total - (len(best) - len(shown)), self.unreadable)


def _best(
    found: list[_Found], stats: _Stats, holding: list[int], limit: int
) -> list[tuple[float, str, int, str]]:
    """Return the ``limit`` best hits as (minus FTS5's bm25 score, path, offset, path), best first.

    Each batch's hits are scored a column of its array at a time; only those scoring at
    least its ``limit``-th best are given their path and offset, to break ties. Scores
    are held for one batch at a time: a word in 1.3 million headlines is as many floats.
    """
    rows = stats.rows()
    idfs = []
    for held in holding:
        ratio = (rows - held + 0.5) / (held + 0.5)  # occurrences may outnumber the rows
        idfs.append(math.log(ratio) if ratio > 1 else 1e-6)
    base, slope = K1 * (1 - B), K1 * B / stats.mean()
    stride = 2 + 2 * len(idfs)
    best: list[tuple[float, str, int, str]] = []
    for batch in found if limit > 0 else []:
        hits = batch.hits
        damps = [base + slope * length for length in hits[1::stride]]
        score = [0.0] * len(damps)
        for n, idf in enumerate(idfs):
            titles, texts = hits[2 + 2 * n :: stride], hits[3 + 2 * n :: stride]
            weights = [TITLE_WEIGHT * t + b for t, b in zip(titles, texts, strict=True)]
            # As FTS5 sums a term's share: idf * weight * (k1 + 1) / (weight + damp).
            score = [
                s + idf * w * (K1 + 1) / (w + d)
                for s, w, d in zip(score, weights, damps, strict=True)
            ]
        score = [-s for s in score]
        worst = heapq.nsmallest(limit, score)[-1]
        for at, s in enumerate(score):
            if s <= worst:
                start = hits[at * stride]
                note = bisect.bisect_right(batch.bounds, start) - 1
                path = batch.paths[note]
                best.append((s, str(path), start - batch.bounds[note], path))
        best = heapq.nsmallest(limit, best)
    return best


# The stars and blank of a headline line, after its newline.
_STARS = re.compile(r"\*+ ")
_RESULT = RESULT_MARK.lower()


def _batch_hits(
    batch: _Batch,
    patterns: list[re.Pattern[str]],
    privacy_tags: Collection[str],
    marks: tuple[re.Pattern[str], tuple[str, ...]],
    holding: list[int],
) -> _Found:
    """Return the hits of the ASCII notes of ``batch``.

    The notes are joined by newlines, so each word's regex runs once over the batch
    (its matches counted in ``holding``). Only the sections holding the rarest word are
    looked at (``_around``), and only their notes for a mark (``prelude_marks``): a note
    holding one is read with its TODO keywords, or by the index's rows when a privacy
    tag may be written in it; so are sections longer than the index keeps.
    """
    texts, paths, hits = batch.texts, batch.paths, array("i")
    if not texts:
        return _Found(paths, [], hits)
    big = "\n" + "\n".join(texts) + "\n"
    bounds = list(itertools.accumulate([len(text) + 1 for text in texts], initial=1))
    folded = big.lower()
    found_at = []
    for n, pattern in enumerate(patterns):
        found_at.append([match.start() for match in pattern.finditer(folded)])
        holding[n] += len(found_at[-1])
    if not all(found_at):
        return _Found(paths, bounds, hits)
    width = len(patterns)
    rare = min(range(width), key=lambda n: len(found_at[n]))
    held, *counted = _around(big, folded, bounds, found_at[rare])
    columns: list[list[int]] = []  # each word's occurrences in the headline line, in the text
    for n in range(width):
        if n == rare:
            columns += counted
        else:
            columns += [[0] * len(held), [0] * len(held)]
            _count_in(big, folded, found_at[n], held, *columns[-2:])
    in_lines = [map(max, columns[n], columns[n + 1]) for n in range(0, 2 * width, 2)]
    every = in_lines[0] if width == 1 else map(min, *in_lines)  # each word somewhere
    in_texts = columns[1] if width == 1 else map(min, *columns[1::2])  # each in the text
    setting, words = marks
    long: dict[int, list[int]] = {}
    last, todo = -1, None
    for (start, end, head_end, note), counts, in_all, in_text in zip(
        held, zip(*columns, strict=True), every, in_texts, strict=True
    ):
        if not in_all:
            continue
        if note != last:  # a note holding a mark (most hold none) is read for its prelude
            last, at = note, bounds[note]
            stop = at + len(texts[note])
            todo, marked = DEFAULT_TODO, setting.search(folded, at, stop) is not None
            for word in words:
                marked = marked or folded.find(word, at, stop) >= 0
            if marked:
                text, path = texts[note], paths[note]
                todo = _note_todo(text, folded, at, path, privacy_tags, patterns, hits)
        if todo is None:
            continue
        if end - head_end > BODY_CHARS:
            long.setdefault(note, []).append(start - bounds[note])  # the index keeps its
            continue  # first BODY_CHARS: cut as it cuts
        if _RESULT in folded[head_end:end]:
            continue  # orgrouter's own result: never indexed
        head = big[start:head_end]
        if not in_text or ("@" in head and ANY_ADDRESS_RE.search(head)):  # the title decides
            titled = _titled(head, todo, patterns, counts, bool(in_text))
            if titled is None:
                continue
            counts = titled
        hits.extend((start, end - start))
        hits.extend(counts)
    for note, near in long.items():
        text, at = texts[note], bounds[note]
        for row in _row_hits(text, text, paths[note], near, patterns, privacy_tags):
            hits.extend((row[0] + at, *row[1:]))
    return _Found(paths, bounds, hits)


_Held: TypeAlias = "list[tuple[int, int, int, int]]"


def _around(
    big: str, folded: str, bounds: list[int], found_at: list[int]
) -> tuple[_Held, list[int], list[int]]:
    """Return the sections holding the matches ``found_at`` of a word in a batch.

    Each as (its start, its end, where its headline line ends, its note), and the
    word's occurrences in that line and in the section's text. A match before its
    note's first headline is in no section. Each section is found from its first
    match: back to the headline before it, on to the next.
    """
    held: _Held = []
    in_head: list[int] = []
    in_text: list[int] = []
    note = note_start = note_end = sec_end = head_end = last = -1
    is_text = False
    for at in found_at:
        if at < sec_end:  # in the section of the last match
            if last < 0:
                continue
            if at < head_end:
                in_head[-1] += 1
                continue
            if folded.find("\n", last, at) >= 0:  # another line than the last match's
                is_text = _is_text(big, folded.rfind("\n", last, at))
            last = at
            in_text[-1] += is_text
            continue
        if at >= note_end:
            note = bisect.bisect_right(bounds, at) - 1
            note_start, note_end = bounds[note] - 1, bounds[note + 1] - 1  # their newlines
        # The headline before the match, in its note ("\n*" may start a line of bold).
        line = folded.rfind("\n*", note_start, at)
        while line >= 0 and not _STARS.match(folded, line + 1):
            line = folded.rfind("\n*", note_start, line)
        after = NEXT_HEADLINE.search(folded, at, note_end)
        sec_end = note_end if after is None else after.start() + 1
        if line < 0:  # before the note's first headline
            last = -1
            continue
        last, head_end = at, folded.find("\n", line + 1)
        held.append((line + 1, sec_end, head_end, note))
        if at < head_end:
            in_head.append(1)
            in_text.append(0)
            continue
        is_text = _is_text(big, folded.rfind("\n", head_end, at))
        in_head.append(0)
        in_text.append(is_text)
    return held, in_head, in_text


def _count_in(
    big: str,
    folded: str,
    found_at: list[int],
    held: _Held,
    in_head: list[int],
    in_text: list[int],
) -> None:
    """Count a word's matches ``found_at`` in the sections ``held``, headline or text."""
    starts = [start for start, _end, _head_end, _note in held]
    last, is_text = 0, False  # the last match in a section's text, and its line's kind
    for at in found_at:
        i = bisect.bisect_right(starts, at) - 1
        if i < 0 or at >= held[i][1]:
            continue
        if at < held[i][2]:
            in_head[i] += 1
            continue
        if folded.find("\n", last, at) >= 0:  # another line than the last match's
            is_text = _is_text(big, folded.rfind("\n", last, at))
        last = at
        in_text[i] += is_text


def _is_text(big: str, line: int) -> bool:
    """Return whether the line after the newline at ``line`` is a section's text to the index.

    A drawer, planning or keyword line is not (``NOT_TEXT``); only a line starting with
    a blank or one of ":SDC#" can be one. Each line is looked at once, not once per
    word (from the last match on): a megabyte line holding the word a hundred thousand
    times would be quadratic.
    """
    return big[line + 1] not in _STRUCTURE_FIRST or not NOT_TEXT.match(big, line)


def _titled(
    head: str,
    todo: TodoKeywords,
    patterns: list[re.Pattern[str]],
    counts: tuple[int, ...],
    in_text: bool,
) -> tuple[int, ...] | None:
    """Return a section's counts with its title parsed out of its headline line ``head``.

    The title is parsed out only where it decides: an address in it (a request, never
    indexed: None), or a word found in the line but not in the text. Elsewhere a word
    in the line ranks as a title word, in a tag too. None: a word is in neither.
    """
    head = head.rstrip("\r")  # a CRLF note's CR is no part of it
    end = _title_end(head, todo)
    maybe_request = "@" in head and ANY_ADDRESS_RE.search(head, 0, end)
    if not maybe_request and in_text:
        return counts
    if not maybe_request and _ends_title(head, end, todo, patterns):
        title = head[:end]  # the words past its stars are the title's
    else:
        title = parse_headline(head, todo).raw
        if maybe_request and ANY_ADDRESS_RE.search(title):
            return None
    folded_title = title.lower()
    titled: list[int] = []
    for n, pattern in enumerate(patterns):
        in_title = len(pattern.findall(folded_title))
        if not in_title and not counts[2 * n + 1]:
            return None
        titled += (in_title, counts[2 * n + 1])
    return tuple(titled)


def _ends_title(head: str, end: int, todo: TodoKeywords, patterns: list[re.Pattern[str]]) -> bool:
    """Return whether the words ``patterns`` match in ``head[:end]`` are all in its title.

    So they are where no priority cookie or COMMENT comes first, ``end`` is where the
    title ends (``_title_end``: before tags, or no tag group ends the line), and no word
    is part of a TODO keyword: then parsing the title out (7 us) would count the same.
    """
    if "[#" in head or "COMMENT" in head:
        return False
    if end == len(head) and head.rstrip(" \t").endswith(":"):
        return False  # a tag group Org may read as the title
    keywords = " ".join(todo.keywords).lower()
    return not any(pattern.search(keywords) for pattern in patterns)


def _note_todo(
    text: str,
    folded: str,
    start: int,
    path: str,
    privacy_tags: Collection[str],
    patterns: list[re.Pattern[str]],
    hits: Hits,
) -> TodoKeywords | None:
    """Return the TODO keywords of a marked note's sections, ``text`` at ``start`` of a batch.

    None: its sections are not taken one by one, the note being private whole, or
    maybe holding a privacy tag: then its hits, by the index's rows, go to ``hits``.
    """
    ftext = folded[start : start + len(text)]
    prelude = file_prelude(text, privacy_tags, path, ftext)
    if prelude is not None and not prelude[1]:
        return prelude[0]
    if prelude is not None:
        found = _by_rows(text, ftext, path, patterns, privacy_tags)
        for at in range(0, len(found), 2 + 2 * len(patterns)):
            found[at] += start
        hits.extend(found)
    return None


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
    if stripped[-1:] != ":":
        return len(head)
    first = max(stripped.rfind(" "), stripped.rfind("\t")) + 1
    if len(stripped) - first < 3 or stripped[first] != ":":
        return len(head)
    if not _TAG_CHARS.fullmatch(stripped, first):
        return len(head)
    before = stripped[:first].rstrip(" \t")
    for word in before.lstrip("*").split():
        if word not in todo.keywords and not word.startswith(("[#", "COMMENT")):
            return len(before)
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
