"""Read a buffer's in-buffer settings (``#+TODO``, ``#+STARTUP``, ``#+PROPERTY``...).

Mirrors Org 9.5's `org-collect-keywords' and `org-set-regexps-and-options': a keyword
line counts only where Org's parser sees a keyword element, so lines inside src,
example, export, comment and verse blocks or LaTeX environments do not, and
``#+SETUPFILE`` pulls in a local file's keywords at the line that names it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

from orgrouter.io.text import CR, LF, detect_newline
from orgrouter.org.blockspans import parsed_block_spans
from orgrouter.org.headline import split_tags
from orgrouter.org.todo import DEFAULT_TODO, TodoKeywords, parse_sequence
from orgrouter.records import NamedTuple, field, record

MAX_SETUP_BYTES = 16 * 1024 * 1024  # far beyond any real setup file
MAX_SETUP_DEPTH = 32  # setup files including setup files; keeps recursion shallow
SETTING_KEYS = ("TODO", "SEQ_TODO", "TYP_TODO", "STARTUP", "FILETAGS", "PROPERTY", "SETUPFILE")

# A cheap first pass: most files have none of these lines at all.
_CANDIDATE_RE = re.compile(
    r"^[ \t]*#\+(?:" + "|".join(SETTING_KEYS) + r"):", re.IGNORECASE | re.MULTILINE
)
# `ffap-url-regexp', which `org-url-p' uses unanchored.
_URL_RE = re.compile(r"(news(post)?:|mailto:|file:|(ftp|https?|telnet|gopher|www|wais)://)")
_TRIM = " \t\n\r"
# `split-string' with its default separators (narrower than Python's str.split).
_BLANKS_RE = re.compile(r"[ \f\t\n\r\v]+")


class SettingKeyword(NamedTuple):
    """One in-buffer setting line Org honours: its key, value and where it is."""

    key: str  # upper case, e.g. "TODO"
    value: str  # trimmed, as Org's keyword element holds it
    path: Path | None  # the file it came from (a setup file, or the buffer's own)
    line: int  # 1-based


@record(frozen=True)
class InBufferSettings:
    """What a buffer's in-buffer keywords set: TODO keywords, startup, tags, properties."""

    todo: TodoKeywords = DEFAULT_TODO
    odd_levels: bool = False  # #+STARTUP: odd
    startup: tuple[str, ...] = ()
    filetags: tuple[str, ...] = ()
    # #+PROPERTY values by name (as first written), "+" appends already applied.
    properties: Mapping[str, str] = field(default_factory=dict)
    keywords: tuple[SettingKeyword, ...] = ()
    setupfiles: tuple[Path, ...] = ()  # local setup files that were read
    warnings: tuple[str, ...] = ()  # setup files that could not be read, etc.

    def property(self, name: str) -> str | None:
        """Return the ``#+PROPERTY`` value for ``name`` (case-insensitive), or None."""
        folded = name.casefold()
        return next((v for k, v in self.properties.items() if k.casefold() == folded), None)


def _opaque_spans(text: str) -> list[tuple[int, int]]:
    """Return the (begin, end) offsets of blocks whose lines are not elements."""
    return [(b.begin, b.end) for b in parsed_block_spans(text, latex=True) if b.lesser]


def first_keyword(text: str, key: str) -> str | None:
    """Return the value of the first ``#+KEY:`` line Org sees as a keyword, or None.

    For keywords `org-collect-keywords' takes as unique (ARCHIVE, CATEGORY): the first
    one counts, empty or not; lines inside src or example blocks are not keywords.
    """
    pattern = re.compile(r"^[ \t]*#\+" + re.escape(key) + r":(.*)$", re.IGNORECASE | re.MULTILINE)
    spans: list[tuple[int, int]] | None = None
    for match in pattern.finditer(text):
        spans = _opaque_spans(text) if spans is None else spans
        if not any(begin <= match.start() < end for begin, end in spans):
            return match.group(1).strip(_TRIM)
    return None


def _keyword_lines(text: str, path: Path | None) -> Iterator[SettingKeyword]:
    """Yield the setting keywords of ``text`` that Org's parser sees as keywords."""
    from orgrouter.org.syntax import KEYWORD_RE  # only a note with settings needs it

    candidates = list(_CANDIDATE_RE.finditer(text))
    if not candidates:
        return
    spans = _opaque_spans(text)
    span_index = 0
    line = 1
    counted_to = 0
    for match in candidates:
        begin = match.start()
        while span_index < len(spans) and spans[span_index][1] <= begin:
            span_index += 1
        if span_index < len(spans) and spans[span_index][0] <= begin:
            continue
        line += text.count("\n", counted_to, begin)
        counted_to = begin
        eol = text.find("\n", begin)
        whole = text[begin : len(text) if eol < 0 else eol]
        keyword = KEYWORD_RE.match(whole)  # the key runs to the first word's last colon
        assert keyword is not None  # the candidate pattern guarantees a match
        key = keyword.group(1).upper()
        if key in SETTING_KEYS:
            yield SettingKeyword(key, whole[keyword.end() :].strip(_TRIM), path, line)


def _words(value: str) -> list[str]:
    return [word for word in _BLANKS_RE.split(value) if word]


def _strip_quotes(value: str) -> str:
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def setting_keywords(
    text: str, path: Path | None, *, _seen: tuple[Path, ...] = ()
) -> tuple[list[SettingKeyword], list[Path], list[str]]:
    """Return the setting keywords of ``text``, setup files spliced in where named."""
    # Emacs drops a BOM when it visits a file, so a first-line #+FILETAGS still counts.
    text = text.removeprefix("\ufeff")
    seen = _seen if path is None else (*_seen, path.resolve())
    found: list[SettingKeyword] = []
    read: list[Path] = []
    warnings: list[str] = []
    base = Path.cwd() if path is None else path.parent
    for keyword in _keyword_lines(text, path):
        if keyword.key != "SETUPFILE":
            found.append(keyword)
            continue
        target = _strip_quotes(keyword.value)
        where = f"{keyword.path or '<buffer>'}:{keyword.line}"
        if not target:
            continue
        if _URL_RE.search(target):
            warnings.append(f"{where}: remote setup file not read: {target}")
            continue
        try:
            setup = (base / os.path.expanduser(target)).resolve()
        except (OSError, ValueError, RuntimeError) as error:  # NUL in the name, loops
            warnings.append(f"{where}: setup file not read: {error}")
            continue
        if setup in seen:
            continue  # Org reads each setup file once per chain: no loops
        if len(seen) > MAX_SETUP_DEPTH:
            warnings.append(f"{where}: setup file not read: more than {MAX_SETUP_DEPTH} nested")
            continue
        try:
            # Only regular files of sane size: a FIFO or /dev/zero must not hang a run.
            info = setup.stat()
            if not stat.S_ISREG(info.st_mode):
                warnings.append(f"{where}: setup file not read: not a regular file: {target}")
                continue
            if info.st_size > MAX_SETUP_BYTES:
                warnings.append(f"{where}: setup file not read: larger than {MAX_SETUP_BYTES}")
                continue
            data = setup.read_bytes()
            if detect_newline(data) == CR:
                data = data.replace(CR, LF)  # read by its lines, as Emacs visits it (mac EOL)
        except OSError as error:
            warnings.append(f"{where}: setup file not read: {error.strerror or error}")
            continue
        more, more_read, more_warnings = setting_keywords(
            data.decode("utf-8", errors="replace"), setup, _seen=seen
        )
        read.append(setup)
        found.extend(more)
        read.extend(more_read)
        warnings.extend(more_warnings)
    return found, read, warnings


def _todo_from(keywords: list[SettingKeyword]) -> TodoKeywords:
    # Org takes all TYP_TODO lines, then all TODO lines, then all SEQ_TODO lines.
    typed = [parse_sequence("type", _words(k.value)) for k in keywords if k.key == "TYP_TODO"]
    sequences = [
        parse_sequence("sequence", _words(k.value))
        for key in ("TODO", "SEQ_TODO")
        for k in keywords
        if k.key == key
    ]
    if not typed and not sequences:
        return DEFAULT_TODO
    return TodoKeywords((*typed, *sequences))


def _properties_from(keywords: list[SettingKeyword]) -> dict[str, str]:
    properties: dict[str, str] = {}
    folded: dict[str, str] = {}  # casefolded name -> name as first written
    for keyword in keywords:
        if keyword.key != "PROPERTY":
            continue
        match = re.match(r"(\S+)[ \t]+(.*)", keyword.value, re.DOTALL)
        if match is None:
            continue  # Org ignores a property line without a value
        name, value = match.groups()
        appending, name = name.endswith("+"), name.removesuffix("+")
        known = folded.get(name.casefold())
        if known is None:
            folded[name.casefold()] = name
            properties[name] = value
        else:
            properties[known] = f"{properties[known]} {value}" if appending else value
    return properties


def read_settings(text: str, path: Path | None = None) -> InBufferSettings:
    """Return the in-buffer settings of ``text`` (the file at ``path``, if known)."""
    keywords, read, warnings = setting_keywords(text, path)
    if not keywords:
        return InBufferSettings(setupfiles=tuple(read), warnings=tuple(warnings))
    startup = tuple(word for k in keywords if k.key == "STARTUP" for word in _words(k.value))
    # `org-startup-options' are matched case-insensitively; the last one wins.
    odd = [w.lower() for w in startup if w.lower() in ("odd", "oddeven")][-1:] == ["odd"]
    words = [word for k in keywords if k.key == "FILETAGS" for word in _words(k.value)]
    filetags = tuple(tag for word in words for tag in split_tags(word))
    return InBufferSettings(
        todo=_todo_from(keywords),
        odd_levels=odd,
        startup=startup,
        filetags=filetags,
        properties=_properties_from(keywords),
        keywords=tuple(keywords),
        setupfiles=tuple(read),
        warnings=tuple(warnings),
    )
