"""The skill registry: an explicit dict of built-ins plus opt-in user skills.

User skills are ``*.py`` files in the directories named by ``skills.paths``; each
defines ``SKILLS``, a list of skill objects (see ``orgrouter.skills.base.Skill``). They
are never loaded from inside a notes root being routed, so a note can never smuggle in
code. A broken file is reported with its path (and line) and skipped; the rest load.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.errors import ConfigError, OrgRouterError
from orgrouter.records import NamedTuple, field, record
from orgrouter.skills.lazy import LazySkill

if TYPE_CHECKING:  # the facts below are read by the rules loader, which needs neither
    from orgrouter.config import Config
    from orgrouter.skills.base import Skill

GUARDIAN_PRIORITY = 100  # nothing may outrank the guardian: approvals come first


class Builtin(NamedTuple):
    """Where a built-in skill lives and the facts the run needs about it."""

    target: str  # "module:attribute" (an instance); imported only when a run needs skills
    # The intent skills it answers: what a routing table or a model may name. The
    # machinery (router, guardian, specialists) answers none; offline ``ask`` answers
    # the model-only intents (it says how to configure a model).
    intents: tuple[str, ...] = ()
    models: bool = False  # acts only with a model backend: loaded only when one may be used
    # What the kernel may know without importing it (skills/lazy.py; the model skills
    # load whole): its priority; whether it takes requests (the router) or delegations;
    # the intent skills its trigger accepts beyond its own intents (None: any); whether
    # it binds its own approvals. tests/skills/test_lazy_skills.py holds each to the skill.
    priority: int = 50
    requests: bool = False
    also: tuple[str, ...] | None = ()
    binds_approvals: bool = False

    def wants(self) -> tuple[str, ...] | None:
        """Return the intent skills its trigger may accept (None: any)."""
        return None if self.also is None else (*self.intents, *self.also)


def _offline(name: str, module: str, **facts: Any) -> Builtin:
    return Builtin(f"orgrouter.{module}:SKILL", (name,), **facts)


def _model(attribute: str, *intents: str) -> Builtin:
    return Builtin(f"orgrouter.skills.llm:{attribute}", intents, models=True)


_WRITES: dict[str, Any] = {"priority": 60, "binds_approvals": True}
BUILTINS: dict[str, Builtin] = {
    "router": Builtin("orgrouter.skills.router:SKILL", priority=10, requests=True, also=None),
    "guardian": Builtin("orgrouter.route.guardian:SKILL", priority=100, also=None),
    "approved": Builtin(  # an approved free-form intent
        "orgrouter.route.guardian:APPROVED_SKILL",
        priority=70,
        also=("ask", "draft", "explain", "rewrite", "summarize", "translate"),
    ),
    "todo": _offline("todo", "skills.todo"),
    "schedule": _offline("schedule", "skills.schedule"),
    "tag": _offline("tag", "skills.tag"),
    "summarize": _offline("summarize", "skills.summarize", priority=20),
    "search": _offline("search", "skills.search"),
    "greet": _offline("greet", "skills.greet"),
    "compact": _offline("compact", "skills.compact"),
    "ask": Builtin(
        "orgrouter.skills.ask:SKILL",
        ("ask", "translate", "draft", "rewrite", "explain"),
        priority=20,
    ),
    # tangle: a "tangle" verb or text, whatever the intent's skill; archive: "tag it archived"
    "tangle": _offline("tangle", "skills.tangle_skill", **_WRITES, also=None),
    "archive": _offline("archive", "skills.archive", **_WRITES, also=("tag",)),
    "refile": _offline("refile", "skills.refile", **_WRITES),
    "delete": _offline("delete", "skills.delete", **_WRITES),
    # The model-backed skills, which defer to the offline skill of the same intent
    # whenever no model may be used.
    "summarize-model": _model("SUMMARIZE"),
    "ask-model": _model("ASK"),
    "translate": _model("TRANSLATE"),
    "draft": _model("DRAFT"),
    "rewrite": _model("REWRITE"),
    "explain": _model("EXPLAIN"),
    "specialists": Builtin("orgrouter.skills.specialists:SKILL", models=True),
}
# Every intent skill the built-ins answer, in table order (a routing table's targets).
ROUTABLE: tuple[str, ...] = tuple(dict.fromkeys(i for b in BUILTINS.values() for i in b.intents))


@record
class SkillSet:
    """The skills of one run, highest priority first, and what failed to load."""

    skills: list[Skill] = field(default_factory=list)
    errors: list[OrgRouterError] = field(default_factory=list)

    def names(self) -> list[str]:
        """Return the loaded skills' names in dispatch order."""
        return [skill.name for skill in self.skills]


def dispatch_order(skills: Iterable[Skill]) -> list[Skill]:
    """Return ``skills`` by priority, highest first, ties broken by name."""
    return sorted(skills, key=lambda skill: (-skill.priority, skill.name))


def load_builtin(name: str) -> Skill:
    """Return the built-in skill called ``name``."""
    from orgrouter.skills.base import Skill

    module_name, attribute = BUILTINS[name].target.split(":")
    skill = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(skill, Skill):
        raise TypeError(f"built-in skill {name!r} does not implement Skill")
    return skill


def uses_models(config: Config) -> bool:
    """Return whether any agent has a model backend (not the offline ``rules``)."""
    backends = [config.neuro.backend, *(n.backend for n in config.agents.values())]
    return any(backend != "rules" for backend in backends)


def builtin_skills(*, models: bool = True) -> list[Skill]:
    """Return every built-in skill, the model skills only with ``models``.

    Model skills act only when a backend may be used, so a configuration without
    one leaves them out and spares their imports.
    """
    return [
        load_builtin(name) if b.models else lazy_builtin(name, b)
        for name, b in BUILTINS.items()
        if models or not b.models
    ]


def lazy_builtin(name: str, builtin: Builtin) -> LazySkill:
    """Return the built-in ``name`` as a ``LazySkill`` (imported when it may act)."""
    return LazySkill(
        name,
        builtin.target,
        builtin.priority,
        requests=builtin.requests,
        wants=builtin.wants(),
        binds_approvals=builtin.binds_approvals,
    )


def targets(skills: Iterable[Skill]) -> tuple[str, ...]:
    """Return the intent skills a run with ``skills`` answers: built-ins', then user skills'.

    These are the names a routing table may send intents to and a model may propose.
    """
    return (*ROUTABLE, *(s.name for s in skills if s.name not in BUILTINS))


def configured_targets(config: Config, *, base_dir: Path | None = None) -> tuple[str, ...]:
    """Return ``targets`` of the skills ``config`` loads (its user skills are imported)."""
    if not config.skills.paths:
        return ROUTABLE
    return targets(load_skills(config, base_dir=base_dir).skills)


def load_skills(
    config: Config,
    *,
    base_dir: Path | None = None,
    notes_roots: Sequence[Path] = (),
) -> SkillSet:
    """Return the built-in skills plus the user skills named by ``config.skills.paths``.

    ``base_dir`` resolves relative ``skills.paths`` (the config file's directory);
    ``notes_roots`` are the trees being routed, from which no code is ever loaded.
    """
    found = SkillSet(skills=builtin_skills(models=uses_models(config)))
    taken = {skill.name for skill in found.skills}
    for entry in config.skills.paths:
        directory = Path(entry).expanduser()
        if not directory.is_absolute() and base_dir is not None:
            directory = base_dir / directory
        problem = _refuse_directory(directory, notes_roots)
        if problem is not None:
            found.errors.append(problem)
            continue
        for path in sorted(directory.glob("*.py")):
            try:
                for skill in _load_file(path):
                    if skill.priority >= GUARDIAN_PRIORITY:
                        raise ConfigError(
                            f"skill {skill.name!r} has priority {skill.priority}; user skills "
                            f"must stay below {GUARDIAN_PRIORITY}, the guardian's, so risky "
                            "intents always wait for approval",
                            path=path,
                        )
                    if skill.name in taken:
                        raise ConfigError(f"skill name {skill.name!r} is already taken", path=path)
                    taken.add(skill.name)
                    found.skills.append(skill)
            except OrgRouterError as error:
                found.errors.append(error)
    found.skills = dispatch_order(found.skills)
    return found


def _refuse_directory(directory: Path, notes_roots: Sequence[Path]) -> ConfigError | None:
    """Return why ``directory`` may not hold skills, or None when it may."""
    if not directory.is_dir():
        return ConfigError("skills.paths entry is not a directory", path=directory)
    resolved = directory.resolve()
    for root in notes_roots:
        root = root.resolve()
        if resolved == root or root in resolved.parents or resolved in root.parents:
            return ConfigError(
                f"skills.paths entry overlaps the notes being routed ({root}); "
                "skills are never loaded from notes",
                path=directory,
            )
    return None


def _load_file(path: Path) -> list[Skill]:
    """Import one user skill file and return its ``SKILLS``."""
    module_name = f"orgrouter_user_skill_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError("cannot load this file as a Python module", path=path)
    module = importlib.util.module_from_spec(spec)
    # dataclasses, typing and pickle look a class's module up in sys.modules while the
    # file runs (and later), so the module must be there; it is removed if it fails.
    sys.modules[module_name] = module
    loaded = False
    try:
        spec.loader.exec_module(module)
        loaded = True
    except SyntaxError as error:
        message = f"broken skill file: {error.msg}"
        raise ConfigError(message, path=path, line=error.lineno) from error
    except Exception as error:  # a user's file may raise anything on import
        line = _user_line(error, path)
        raise ConfigError(
            f"broken skill file: {type(error).__name__}: {error}", path=path, line=line
        ) from error
    finally:
        if not loaded:
            sys.modules.pop(module_name, None)
    from orgrouter.skills.base import Skill

    skills = getattr(module, "SKILLS", None)
    if not isinstance(skills, list | tuple):
        raise ConfigError("a skill file must define SKILLS, a list of skills", path=path)
    checked: list[Skill] = []
    for index, skill in enumerate(skills):
        if not isinstance(skill, Skill) or not _well_formed(skill):
            raise ConfigError(
                f"SKILLS[{index}] lacks name (str), priority (int), trigger, neuro or symbolic",
                path=path,
            )
        checked.append(skill)
    return checked


def _well_formed(skill: Skill) -> bool:
    """Return whether ``skill``'s name and priority have the right types."""
    return (
        isinstance(skill.name, str)
        and bool(skill.name)
        and isinstance(skill.priority, int)
        and not isinstance(skill.priority, bool)
    )


def _user_line(error: BaseException, path: Path) -> int | None:
    """Return the line of ``path`` in ``error``'s traceback, the user's own line."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if Path(trace.tb_frame.f_code.co_filename) == path:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line
