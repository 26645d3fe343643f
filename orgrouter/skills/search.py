"""The ``search`` skill: find headlines across the notes root and link to them.

A hit is a headline whose title or section text holds every word of the query
(case-insensitive, accents folded), best first (BM25, titles weighted above text);
each becomes an Org link ``[[file:REL::*Heading][Heading]]``, REL relative to the
file holding the request, which ``org-open-at-point`` follows to that heading, with
a short snippet of the text around the words. The words are looked up in the search
index (``orgrouter.searchindex``), brought up to date once per run; without a state
database or without FTS5 in this SQLite, the notes' text is scanned for them instead
(``orgrouter.searchscan``: the same hits, ranking and snippets).
When no headline holds every word ("dig up my curry recipes"), the words no headline
holds are dropped and the result says so. Results orgrouter wrote, requests themselves
and private headlines are never hits: ``orgrouter.neuro.privacy`` decides (a privacy
tag on the headline, an ancestor, or the file by ``#+FILETAGS`` or a setup file), for
the scan, and again for every hit the index returns, so an index built before a tag or
a setup file changed cannot leak.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from orgrouter.discover import RUN_DISCOVERY, Discovery, discover
from orgrouter.errors import InputError
from orgrouter.io.text import read_org_file, read_org_text
from orgrouter.neuro.privacy import private_headlines
from orgrouter.records import record
from orgrouter.skills.base import (
    Action,
    BaseSkill,
    Context,
    Emit,
    Result,
    clarify,
    proposal_stimulus,
)
from orgrouter.skills.wording import stem

if TYPE_CHECKING:
    from orgrouter.config import Config
    from orgrouter.searchindex import IndexHit
    from orgrouter.searchscan import Answer, TextPass
    from orgrouter.state import StateDB

MAX_HITS = 25
_VERB = re.compile(
    r"^(?:please\s+)?(?:search|find|look\s+up|look\s+for|locate|grep|show\s+me|dig\s+up|"
    r"pull\s+up|bring\s+up|fetch|where\s+are|where\s+is)"
    r"(?:\s+(?:for|my|the|all|notes?|headlines?|headings?|about|on|with|mentioning))*\s+",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|“([^”]+)”")
_NOISE = frozenset({"notes", "note", "about", "all", "my", "the", "in", "for", "on", "of"})
_WORD = re.compile(r"[^\W_]+")


@record(frozen=True)
class Hit:
    """One matching headline."""

    path: Path
    line: int
    title: str
    snippet: str = ""


class SearchSkill(BaseSkill):
    """Search headlines and their text under the notes root."""

    name = "search"
    priority = 50

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return a result listing links to the matching headlines."""
        stimulus = proposal_stimulus(proposal)
        query = query_words(str(stimulus.payload.get("object") or "") or stimulus.text)
        if not query or ctx.notes_root is None:
            return clarify(
                "Clarification needed: search for what?",
                f"I understood {stimulus.text!r} as a search but found no "
                'words to look for. Write =@agent find notes about "kubernetes"=.',
            )
        found = find(ctx.notes_root, query, ctx)
        here = ctx.request.path.parent if ctx.request and ctx.request.path else ctx.notes_root
        shown = " ".join(query)
        if not found.hits:
            body = f"No headline under the notes root mentions {shown!r}."
        else:
            body = "\n".join(_item(hit, here) for hit in found.hits[:MAX_HITS])
            if found.total > MAX_HITS:
                body += f"\n- … and {found.total - MAX_HITS} more"
        if found.unreadable:
            files = "file" if found.unreadable == 1 else "files"
            body += f"\n\n{found.unreadable} {files} could not be read and were not searched."
        if found.note:
            body += f"\n\n{found.note}"
        return Emit((Result(title=f"Search: {shown}", body=body),))


def query_words(text: str) -> list[str]:
    """Return the words to look for: a quoted phrase's, else the text after the verb."""
    quoted = _QUOTED.search(text)
    if quoted:
        text = next(group for group in quoted.groups() if group)
    else:
        text = _VERB.sub("", text.strip(), count=1)
    words = [w.strip(".,;:!?") for w in text.split()]
    return [w for w in words if w and (quoted or w.lower() not in _NOISE)]


@record(frozen=True)
class Found:
    """A search's answer: the best hits, how many matched, files it could not read."""

    hits: list[Hit]
    total: int
    unreadable: int
    note: str = ""


def find(root: Path, query: list[str], ctx: Context) -> Found:
    """Return the headlines under ``root`` that hold every query word, best first."""
    from orgrouter.state import StateDB

    state = ctx.state if isinstance(ctx.state, StateDB) else None
    lookup = lookup_for(state, root, ctx.config) if state is not None else None
    source = lookup if lookup is not None else Scan(root, ctx.config)
    best, total = source.query(query, MAX_HITS)
    notes = []
    if state is not None and lookup is None:
        notes.append("(This SQLite has no FTS5, so the notes were scanned instead of the index.)")
    if not total and len(query) > 1:
        held = _held_words(source, query)
        if held and held != query:  # else each word is held, never all together
            best, total = source.query(held, MAX_HITS)
            dropped = [word for word in query if word not in held]
            notes.append(f"(No headline mentions {' '.join(dropped)!r}; these mention the rest.)")
    memo = state.run_memo.setdefault("search_private", {}) if state is not None else {}
    assert isinstance(memo, dict)
    hits = _public([Hit(h.path, h.line, h.title, h.snippet) for h in best], ctx, memo)
    return Found(hits, total - (len(best) - len(hits)), source.unreadable, "\n\n".join(notes))


def lookup_for(state: StateDB, root: Path, config: Config) -> Lookup | None:
    """Return the run's searches under ``root`` (made once), None if SQLite lacks FTS5."""
    from orgrouter import searchindex

    fts5 = state.run_memo.get("fts5")
    if not isinstance(fts5, bool):
        fts5 = state.run_memo["fts5"] = searchindex.available(state.conn)
    if not fts5:
        return None
    lookup = state.run_memo.get(f"search:{root}")
    if not isinstance(lookup, Lookup):
        lookup = state.run_memo[f"search:{root}"] = Lookup(state, root, config)
    return lookup


class Lookup:
    """One run's searches under one root: from the index, or from the notes' text.

    A run whose scan reads every note anyway (``READS_EVERY_NOTE``: the first over a
    tree, or ``--force``) and finds no index of it answers from the text
    (``orgrouter.searchscan``): one pass per distinct query, far cheaper than indexing
    the tree. The runner tells it, as it scans, the queries its requests will ask
    (``learn``) and each note's text (``offer``), so those passes need no second read.
    Past ``MAX_SCANS`` distinct queries, or for words the text pass leaves to the
    index, the index is built after all. Any other run brings the index up to date
    (only changed files read) and asks it.
    """

    MAX_SCANS = 4  # a text pass costs about a tenth of building the index

    def __init__(self, state: StateDB, root: Path, config: Config) -> None:
        from orgrouter.scancache import READS_EVERY_NOTE
        from orgrouter.searchindex import SearchIndex

        self.root = root
        self.tags = config.privacy.tags
        self.index = SearchIndex(state, self.tags)
        found = state.run_memo.get(RUN_DISCOVERY)
        # The run's own walk, when it walked exactly this root (absolute, as given).
        if not isinstance(found, Discovery) or found.walked != [root]:
            found = discover([root], config.scan)
        self.found = found
        self.unreadable = len(self.found.errors)
        self.scanned: dict[tuple[str, ...], tuple[list[IndexHit], int]] = {}
        self.asked: dict[tuple[str, ...], tuple[list[IndexHit], int]] = {}
        self.refreshed = False
        first = state.run_memo.get(READS_EVERY_NOTE) is True
        self.by_text = first and not self.index.holds_under(root)
        self.ahead: TextPass | None = None  # the passes learned during the scan
        self.ready: dict[tuple[str, ...], Answer] = {}  # their answers, once it ended

    def learns_from(self, found: Discovery, offered: int) -> bool:
        """Return whether the scan of ``found`` may teach this run's queries, from its next note.

        Only a scan of the very files a text pass would read, ``offered`` of them done.
        """
        if self.by_text and self.found is found and self.ahead is None and not self.ready:
            from orgrouter.searchscan import TextPass

            self.ahead = TextPass(found.files, read_org_text, self.tags, offered=offered)
        return self.ahead is not None

    def learn(self, words: list[str]) -> None:
        """Search the scan's text for ``words``: a request the run routes will ask them."""
        from orgrouter.searchscan import plain_tokens

        tokens = plain_tokens(words)
        if self.ahead is not None and tokens and len(self.ahead.queries) < self.MAX_SCANS:
            self.ahead.learn(tokens)

    def offer(self, text: str | None) -> None:
        """Take the scan's text of its next note (None: it could not be read)."""
        if self.ahead is not None:
            self.ahead.offer(text)

    def scanned_all(self) -> None:
        """Answer the learned queries, now the scan gave every note (before any is written)."""
        if self.ahead is not None:
            ahead, self.ahead = self.ahead, None
            self.ready = {key: ahead.answer(key, MAX_HITS) for key in ahead.queries}

    def notes_moved(self) -> None:
        """Drop the answers learned from the scan: a move of this run changed the notes."""
        self.ready.clear()  # a later search reads the notes as they are now

    def query(self, words: list[str], limit: int) -> tuple[list[IndexHit], int]:
        """Return up to ``limit`` best headlines holding every word, and how many do."""
        from orgrouter.searchscan import plain_tokens, scan_search

        tokens = plain_tokens(words) if self.by_text else None
        if tokens is not None:
            key = tuple(tokens)
            if key not in self.scanned and len(self.scanned) < self.MAX_SCANS:
                shown = max(limit, MAX_HITS)  # a count-only ask (limit 1) shares the pass
                answer = self.ready.get(key) if shown == MAX_HITS else None
                if answer is None:
                    answer = scan_search(
                        self.found.files, read_org_text, tokens, self.tags, limit=shown
                    )
                self.unreadable = len(self.found.errors) + answer.unreadable
                self.scanned[key] = (answer.hits, answer.total)
            if key in self.scanned:
                hits, total = self.scanned[key]
                return hits[:limit], total
        if not self.refreshed:
            done = self.index.refresh(self.found.files, read_org_text, under=self.root)
            self.unreadable = len(self.found.errors) + done.unreadable
            self.refreshed = True
        # The index does not change within the run: the same words get the same answer.
        key = (*words, f"\0{limit}")
        if key not in self.asked:
            self.asked[key] = self.index.query(words, under=self.root, limit=limit)
        return self.asked[key]


class Scan:
    """Searches under ``root`` without the index (no state database, or no FTS5 in it).

    Each query is a text pass over the notes (``orgrouter.searchscan``): the index's
    hits, ranking and snippets, for any words (folded as the notes are).
    """

    def __init__(self, root: Path, config: Config) -> None:
        self.found = discover([root], config.scan)
        self.tags = config.privacy.tags
        self.unreadable = len(self.found.errors)

    def query(self, words: list[str], limit: int) -> tuple[list[IndexHit], int]:
        """Return up to ``limit`` best headlines holding every word, and how many do."""
        from orgrouter.searchscan import fold, scan_search

        tokens = list(dict.fromkeys(t for word in words for t in _WORD.findall(fold(word))))
        if not tokens:
            return [], 0
        answer = scan_search(self.found.files, read_org_text, tokens, self.tags, limit=limit)
        self.unreadable = len(self.found.errors) + answer.unreadable
        return answer.hits, answer.total


def _held_words(lookup: Lookup | Scan, query: list[str]) -> list[str]:
    """Return the query words some headline holds (a plural as its singular, if need be)."""
    held: list[str] = []
    for word in query:
        for form in dict.fromkeys((word, stem(word))):
            if lookup.query([form], 1)[1]:
                held.append(form)
                break
    return held


def _public(
    hits: list[Hit], ctx: Context, memo: dict[object, set[int]] | None = None
) -> list[Hit]:
    """Return the hits that are not private now (each file read once per run and version).

    ``memo`` (the run's) keeps each file's private headlines under its path, size and
    mtime, so sixteen searches of one run that hit the same notes read each once.
    """
    hidden: dict[object, set[int]] = {} if memo is None else memo
    kept = []
    for hit in hits:
        try:
            st = os.stat(hit.path)
            key: object = (hit.path, st.st_size, st.st_mtime_ns)
        except OSError:
            continue  # gone now: nothing to vouch for it
        if key not in hidden:
            try:
                data = read_org_file(hit.path).data  # as route reads it: size limit, no NUL
            except (OSError, InputError):
                hidden[key] = {hit.line}  # unreadable now: nothing to vouch for it
            else:
                hidden[key] = private_headlines(data, hit.path, ctx.config.privacy.tags)
        if hit.line not in hidden[key]:
            kept.append(hit)
    return kept


def _item(hit: Hit, here: Path) -> str:
    """Return the list item for one hit: its link, then its snippet."""
    snippet = _quote(hit.snippet) if hit.snippet else ""
    return f"- {org_link(hit, here)}" + (f" — {snippet}" if snippet else "")


def _quote(text: str) -> str:
    """Return snippet text safe on one list line (no Org structure, bounded)."""
    text = " ".join(text.split())[:200]
    return text.replace("[[", "[ [").replace("]]", "] ]")


def org_link(hit: Hit, here: Path) -> str:
    """Return ``[[file:REL::*Heading][Heading]]`` for ``hit``, relative to ``here``."""
    folder, name = os.path.split(hit.path)
    relative = _relative_dir(folder or os.curdir, os.fspath(here)) + name
    target = f"file:{relative.replace(os.sep, '/')}::*{hit.title}"
    if "[" in target or "]" in target:  # Org 9.3+ link syntax: escape them, and \ before them
        target = re.sub(r"(\\*)([][])", lambda m: m.group(1) * 2 + "\\" + m.group(2), target)
    description = hit.title.replace("[", "(").replace("]", ")")
    return f"[[{target}][{description}]]"


@functools.lru_cache(maxsize=4096)  # a run's searches link the same folders from each other
def _relative_dir(folder: str, here: str) -> str:
    """Return ``folder`` relative to ``here``, a separator after ('' for ``here``).

    ``os.path.relpath``'s answer from each folder's parts, split once: relpath normalises
    both paths on every call (15-30 us), and a search shows 25 links.
    """
    start, path = _parts(here), _parts(folder)
    common = len(os.path.commonprefix([start, path]))  # noqa: RUF071 (of parts, as relpath)
    relative = [os.pardir] * (len(start) - common) + list(path[common:])
    return os.path.join(*relative) + os.sep if relative else ""


@functools.lru_cache(maxsize=4096)  # for the process: a run does not change directory
def _parts(folder: str) -> tuple[str, ...]:
    """Return the parts of ``folder`` made absolute, as ``os.path.relpath`` splits it."""
    return tuple(part for part in os.path.abspath(folder).split(os.sep) if part)


SKILL = SearchSkill()
