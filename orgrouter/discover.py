"""Find the Org files under the paths a run was given, deterministically.

Directories are walked in sorted order; hidden directories (``.git`` among them) and
Emacs's backup, autosave and lock files are never notes; ``scan.include`` says which
file names are notes and ``scan.exclude`` prunes files and directories. Symlinks are
followed, but every directory and every file is visited at most once (by device and
inode), so a symlink loop ends the walk of that branch instead of recursing forever
and a note reachable by two paths is routed once. A file named explicitly is always
taken, whatever its name.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from pathlib import Path

from orgrouter.config import ScanConfig
from orgrouter.errors import InputError
from orgrouter.records import field, record

_MAGIC = re.compile(r"[*?\[]")
# The run memo key (``StateDB.run_memo``) of a route run's own discovery, so that a
# skill looking over the same root (search) need not walk it a second time.
RUN_DISCOVERY = "discover:run"


@record
class Discovery:
    """The outcome of a walk: files to scan, paths passed over, and paths that failed.

    Paths are strings spelt as ``Path`` spells them (``route .`` finds ``a/x.org``):
    a ``Path`` per note cost as much as the walk itself.
    """

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # Of those, and directories, what is named like a note but cannot be routed (a FIFO,
    # a symlink loop, a directory named x.org): a run reports each once.
    odd: list[tuple[str, str]] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    # The directory arguments walked whole: only under these may a file that was not
    # found be taken as deleted (a run given one file says nothing about its siblings).
    walked: list[Path] = field(default_factory=list)


def is_emacs_artifact(name: str) -> bool:
    """Return whether ``name`` is an Emacs backup (``x~``), autosave or lock file."""
    return (
        name.endswith("~")
        or (name.startswith("#") and name.endswith("#") and len(name) > 1)
        or name.startswith(".#")
    )


class _Patterns:
    """The include and exclude globs of ``[scan]``, matched the documented way.

    A pattern without ``/`` matches a file or directory name anywhere in the tree; a
    pattern with ``/`` matches the path relative to the root it was found under
    (``*`` crosses ``/``, as in fnmatch; a leading ``**/`` may also match nothing).
    Matching is case-sensitive, as on Linux. Each kind of pattern is one regex (what
    ``fnmatch.fnmatchcase`` compiles, joined), so a name costs one match, not one per glob.
    """

    def __init__(self, scan: ScanConfig) -> None:
        include = _expand_globstar(scan.include)
        exclude = _expand_globstar(scan.exclude)
        self.exclude_names = _globs(p for p in exclude if "/" not in p)
        self.exclude_paths = _globs(p.strip("/") for p in exclude if "/" in p)
        self.include_paths = _globs(p.strip("/") for p in include if "/" in p)
        self.uses_paths = any("/" in p for p in (*include, *exclude))
        self.excludes = bool(exclude)
        # The default include, "*.org", is a suffix test: no regex per file.
        names = [p for p in include if "/" not in p]
        plain = [p for p in names if p.startswith("*") and not _MAGIC.search(p[1:])]
        self.include_suffixes = tuple(p[1:] for p in plain)
        self.include_names = _globs(p for p in names if p not in plain)

    def excluded(self, name: str, relative: str) -> bool:
        paths = self.exclude_paths
        return bool(
            self.exclude_names(name) or paths(relative) or paths(relative + "/")
        )

    def included(self, name: str, relative: str) -> bool:
        return bool(
            name.endswith(self.include_suffixes)
            or self.include_names(name)
            or self.include_paths(relative)
        )


def _globs(patterns: Iterable[str]) -> Callable[[str], object]:
    """Return a test of whether a name matches any of the fnmatch ``patterns``."""
    # No pattern: "(?!)" never matches (an empty alternation would match everything).
    return re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)").match


def _expand_globstar(patterns: list[str]) -> list[str]:
    """Read a leading ``**/`` as "at any depth, the top included", as git and rsync do."""
    expanded: list[str] = []
    for pattern in patterns:
        expanded.append(pattern)
        while pattern.startswith("**/"):
            pattern = pattern[3:]
            expanded.append(pattern)
    return expanded


def discover(paths: Sequence[str | os.PathLike[str]], scan: ScanConfig) -> Discovery:
    """Return the Org files under ``paths`` (files taken as given), in a stable order."""
    walker = _Walker(_Patterns(scan))
    for given in paths:
        walker.visit_argument(Path(given))
    return walker.result


class _Walker:
    """One discovery: the result so far and the identities already visited."""

    def __init__(self, patterns: _Patterns) -> None:
        self.patterns = patterns
        self.result = Discovery()
        self.seen_files: set[tuple[int, int]] = set()
        self.seen_dirs: set[tuple[int, int]] = set()

    def visit_argument(self, given: Path) -> None:
        path = str(given)  # normalised once: children are joined as strings
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self._error(path, "no such file or directory" + _dangling(path))
            return
        except OSError as error:
            self._error(path, f"cannot read: {error.strerror or error}")
            return
        if stat.S_ISDIR(st.st_mode):
            self.result.walked.append(given)
            self.walk(path, "", st)
        elif stat.S_ISREG(st.st_mode):
            self._take(path, st.st_dev, st.st_ino)
        else:
            self._error(path, "is not a regular file or a directory")

    def walk(self, directory: str, relative: str, st: os.stat_result) -> None:
        """Walk ``directory`` (``relative`` to its argument: '' or ending in ``/``)."""
        key = (st.st_dev, st.st_ino)
        if key in self.seen_dirs:
            if os.path.islink(directory):
                self.result.skipped.append((directory, "symlink to a directory already walked"))
            return
        self.seen_dirs.add(key)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=attrgetter("name"))
        except OSError as error:
            self._error(directory, f"cannot list directory: {error.strerror or error}")
            return
        # As Path joins: "." / "x" is "x"; only "/" and "//" end in a slash.
        prefix = directory if directory.endswith("/") else directory + "/"
        if directory == ".":
            prefix = ""
        for entry in entries:
            self._visit_entry(prefix, relative, st.st_dev, entry)

    def _visit_entry(self, prefix: str, under: str, dev: int, entry: os.DirEntry[str]) -> None:
        name = entry.name
        if name.startswith(".") or is_emacs_artifact(name):
            return
        path = prefix + name
        patterns = self.patterns
        relative = under + name if patterns.uses_paths else name
        if patterns.excludes and patterns.excluded(name, relative):
            return
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir()  # follows symlinks
        except OSError as error:
            # ELOOP: a symlink that points at itself, directly or through others.
            self._skip(path, f"unusable symlink: {error.strerror or error}", name, relative)
            return
        if is_dir:
            try:
                target = os.stat(path)
            except OSError as error:
                self._error(path, f"cannot read: {error.strerror or error}")
                return
            if patterns.include_suffixes and name.endswith(patterns.include_suffixes):
                # Named like a note (x.org), so Org tools would try to visit it; its notes
                # are still routed. (A path glob such as journal/* matching a directory
                # is a tree to walk, not an odd name.)
                self.result.odd.append((path, "a directory, not a note (its notes are routed)"))
            self.walk(path, relative + "/" if patterns.uses_paths else "", target)
            return
        if not patterns.included(name, relative):
            return
        if not is_link:
            # d_type and d_ino from the directory listing: no stat per note.
            if entry.is_file(follow_symlinks=False):
                self._take(path, dev, entry.inode())
            else:
                self._skip(path, "not a regular file", name, relative)
            return
        try:
            target = os.stat(path)
        except FileNotFoundError:
            self._skip(path, "broken symlink" + _dangling(path), name, relative)
            return
        except OSError as error:
            self._skip(path, f"unusable symlink: {error.strerror or error}", name, relative)
            return
        if stat.S_ISREG(target.st_mode):
            self._take(path, target.st_dev, target.st_ino)
        else:
            self._skip(path, "not a regular file", name, relative)

    def _skip(self, path: str, reason: str, name: str, relative: str) -> None:
        """Pass over something that is not a usable file; report it if named like a note."""
        self.result.skipped.append((path, reason))
        if self.patterns.included(name, relative):
            self.result.odd.append((path, reason))

    def _take(self, path: str, dev: int, ino: int) -> None:
        if not path.isascii():
            try:
                path.encode()  # os.fsdecode made each byte that was not UTF-8 a surrogate
            except UnicodeEncodeError:
                # The state database (SQLite) holds UTF-8 text only: a name synced from a
                # Latin-1 system failed the run where the cache was written, every run.
                self._error(path, "file name is not valid UTF-8: rename it")
                return
        key = (dev, ino)
        if key in self.seen_files:
            self.result.skipped.append((path, "same file as one already taken"))
            return
        self.seen_files.add(key)
        self.result.files.append(path)

    def _error(self, path: str, message: str) -> None:
        self.result.errors.append(InputError(message, path=path))


def _dangling(path: str) -> str:
    """Return ' (symlink to TARGET)' when ``path`` is a dangling symlink, else ''."""
    try:
        return f" (symlink to {os.readlink(path)})"
    except OSError:
        return ""


ROOT_MARKER = "orgrouter.toml"


def find_notes_root(paths: Iterable[str | os.PathLike[str]]) -> Path:
    """Return the notes root of ``paths``: the nearest directory holding ``orgrouter.toml``
    at or above their common directory, else that directory (a file's own directory).

    The root is what the user chose, never wider: a ``.git`` above does not count (a
    dotfiles repository in ``$HOME`` would make ``~/.ssh`` part of the notes). Route,
    tangle, search and the state database all use this one rule, so a route of one
    file from Emacs, the cron run over the tree and ``orgrouter tangle`` share one
    cache, one lock and one record of tangled targets once ``orgrouter.toml`` marks it.
    """
    base = common_root(paths)
    for directory in (base, *base.parents):
        if (directory / ROOT_MARKER).is_file():  # a directory of that name is no config
            return directory
    return base


def common_root(paths: Iterable[str | os.PathLike[str]]) -> Path:
    """Return the deepest directory containing every path (a file's own directory)."""
    resolved = []
    for given in paths:
        path = Path(given).resolve()
        resolved.append(path if path.is_dir() else path.parent)
    if not resolved:
        return Path.cwd().resolve()
    return Path(os.path.commonpath(resolved))
