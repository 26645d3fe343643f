"""The one rule for files a routed request writes besides its own note.

A routed request (cron, Emacs, ``route --stdin``) acts on untrusted text: a note
synced from a phone, cloned from someone else, or written by a model. It may change
the note it sits in (through write-back) and, beyond that, only what this module
allows. Every skill that writes another file (tangle targets, archive and refile
files) asks it first::

    from orgrouter.io.policy import Allowed, Forbidden, NeedsApproval, WritePolicy

    verdict = WritePolicy(root, record=record).check(note, target)
    if isinstance(verdict, Forbidden):      # never, approved or not: say why, write nothing
        ...
    elif isinstance(verdict, NeedsApproval):  # ask (orgrouter.route.binding), write nothing
        ...
    else:                                    # Allowed: write, then record.remember(...)
        ...

Before writing, a skill calls ``orgrouter.skills.base.before_write(ctx)``: under
``route --stdin`` that takes the notes root's run lock (exit 75 if another run holds it).

The rule, in order:

1. **Forbidden**, whatever the user approves: the note itself (write-back owns it);
   any path with a component starting with ``.`` below the notes root, or below the
   directory the root and the target share when the target lies outside it (``.git``,
   ``.ssh``, ``.bashrc``, ``.dir-locals.el``); anything inside a git directory,
   whatever its name; any file named ``orgrouter.toml``; orgrouter's user
   configuration directory and its state (the state directory, the database and its
   WAL files), and what the caller adds (``skills.paths``, ``rules.dir``); anything
   that exists and is not a regular file. Symlinks are resolved:
   both the path as written and where it leads must pass.
2. **NeedsApproval**: a target outside the note's own directory tree and the
   configured extra directories (``tangle.allow``); an existing file that orgrouter's
   record does not say it wrote from this very note with the bytes it holds now (a
   hand-written file, another note, a file edited since, or any file after
   ``orgrouter state reset``: no record means "not ours").
3. **Allowed**: a new file inside the note's tree, or one orgrouter wrote from this
   note whose bytes still match the record.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from orgrouter.records import field, record

PROJECT_FILE = "orgrouter.toml"  # configload's project file; any file of that name is config
_STATE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


@record(frozen=True)
class Allowed:
    """The write may go ahead without asking."""

    reason: str = ""


@record(frozen=True)
class NeedsApproval:
    """The write may go ahead only once the user approved exactly it."""

    reason: str


@record(frozen=True)
class Forbidden:
    """The write never goes ahead, whatever the user approves."""

    reason: str


Verdict = Allowed | NeedsApproval | Forbidden


class Ownership(Protocol):
    """What orgrouter last wrote to a file (``orgrouter.babel.record.TargetRecord``)."""

    def owner(self, target: str) -> tuple[str, str] | None:
        """Return (sha256, source note) of what orgrouter last wrote to ``target``."""
        ...


def protected_paths(
    env: Mapping[str, str], extra: Iterable[str | os.PathLike[str] | None] = ()
) -> tuple[Path, ...]:
    """Return orgrouter's own files a routed write may never touch.

    The user configuration directory (``$XDG_CONFIG_HOME/orgrouter``), the state
    directory (database, locks), ``ORGROUTER_STATE`` and ``extra`` paths (a configured
    ``state.path``, user skill and rules directories), each with a database's side files.
    """
    from orgrouter.configload import user_config_path
    from orgrouter.state import state_dir

    paths: list[Path] = [user_config_path(env).parent, state_dir(env)]
    for value in (env.get("ORGROUTER_STATE"), *extra):
        if value:
            base = os.path.abspath(os.path.expanduser(os.fspath(value)))
            paths += [Path(base + suffix) for suffix in _STATE_SIDE_FILES]
    return tuple(paths)


@record(frozen=True)
class WritePolicy:
    """The write rule for one run: its notes root, extra directories and own files."""

    root: Path
    allow: tuple[Path, ...] = ()  # directories whose new files need no approval
    protected: tuple[Path, ...] = field(default_factory=lambda: protected_paths(os.environ))
    record: Ownership | None = None

    def check(self, note: Path, target: Path) -> Verdict:
        """Return whether a request in ``note`` may write ``target`` (see the module doc)."""
        written = Path(os.path.normpath(os.path.abspath(target)))
        real = Path(os.path.realpath(written))
        forbidden = self._forbidden(note, written, real)
        if forbidden is not None:
            return Forbidden(forbidden)
        # The directory the note is in as given: targets are relative to it, and a
        # symlinked note does not move its tree to where the link leads.
        homes = [_real(Path(os.path.abspath(note)).parent)]
        homes += [_real(p) for p in self.allow]
        if not any(_inside(real, home) for home in homes):
            inside_root = _inside(real, _real(self.root))
            where = "outside the note's own directory" if inside_root else "outside the notes root"
            if real != written:  # the approval must show where the write really goes
                where += f", through a symlink to {real}"
            return NeedsApproval(where)
        if not os.path.lexists(real):
            return Allowed("a new file")
        return self._existing(note, real)

    def _forbidden(self, note: Path, written: Path, real: Path) -> str | None:
        if real == Path(os.path.realpath(note)) or _same_file(real, note):
            return "it is the note itself"
        for path, root in ((written, Path(os.path.abspath(self.root))), (real, _real(self.root))):
            hidden = _hidden_part(path, root)
            if hidden is not None:
                return f"{hidden!r} is hidden (a dot file or directory: .git, .ssh, ...)"
        # Each of orgrouter's own paths as written and where it leads, worked out once.
        owns = {form for own in self.protected for form in (Path(os.path.abspath(own)), _real(own))}
        for path in (written, real):
            if path.name.casefold() == PROJECT_FILE:  # case-insensitive file systems too
                return f"{PROJECT_FILE} is orgrouter's configuration"
            if any(_inside(path, own) for own in owns):
                return "orgrouter's own configuration or state"
        git_dir = _git_dir_above(real)
        if git_dir is not None:
            return f"inside a git directory ({git_dir.name})"
        if os.path.lexists(real) and not real.is_file():
            return "it exists and is not a regular file"
        return None

    def _existing(self, note: Path, real: Path) -> Verdict:
        owner = self.record.owner(str(real)) if self.record is not None else None
        if owner is None:
            return NeedsApproval("an existing file orgrouter did not write")
        sha, source = owner
        if os.path.realpath(source) != os.path.realpath(note):
            return NeedsApproval(f"orgrouter wrote it from another note, {Path(source).name}")
        try:
            current = hashlib.sha256(real.read_bytes()).hexdigest()
        except OSError as error:
            return Forbidden(f"cannot read it: {error.strerror or error}")
        if current != sha:
            return NeedsApproval("edited since orgrouter wrote it")
        return Allowed("orgrouter wrote it from this note and it is unchanged since")


def check_routed_write(root: Path, note: Path, target: Path) -> Verdict:
    """Return whether a routed request in ``note`` under ``root`` may write ``target``."""
    return WritePolicy(root).check(note, target)


def _same_file(path: Path, note: Path) -> bool:
    """Return whether ``path`` is ``note`` under another name (a hard link)."""
    try:
        return os.path.samefile(path, note)
    except OSError:
        return False


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, directory: Path) -> bool:
    # Both absolute and normalised: a prefix of whole components is a parent (as
    # ``directory in path.parents``, without making a Path of each parent).
    inner, outer = str(path), str(directory)
    if inner == outer:
        return True
    if inner.startswith("//") or outer.startswith("//"):  # POSIX's other root: as pathlib
        return directory in path.parents
    return inner.startswith(outer.rstrip(os.sep) + os.sep)


def _hidden_part(path: Path, root: Path) -> str | None:
    """Return the first component of ``path`` starting with '.', counted below ``root``.

    Below the notes root when ``path`` is inside it (a root that is itself under a
    hidden directory is the user's choice); else below the directory both share, so
    ``~/notes/../.ssh/x`` is caught and ``/home/u/.notes/../out/x`` is not.
    """
    base = root if _inside(path, root) else Path(os.path.commonpath([path, root]))
    return next((part for part in path.relative_to(base).parts if part.startswith(".")), None)


def _git_dir_above(path: Path) -> Path | None:
    """Return the git directory ``path`` is in (a bare repository too), if any."""
    for directory in path.parents:
        if (directory / "HEAD").is_file() and (directory / "objects").is_dir():
            return directory
    return None
