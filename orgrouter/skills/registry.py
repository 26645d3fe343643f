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
from dataclasses import dataclass, field
from pathlib import Path

from orgrouter.config import Config
from orgrouter.errors import ConfigError, OrgRouterError
from orgrouter.skills.base import Skill

GUARDIAN_PRIORITY = 100  # nothing may outrank the guardian: approvals come first
# name -> "module:attribute" (an instance); imported only when a run needs skills.
BUILTINS: dict[str, str] = {
    "router": "orgrouter.skills.router:SKILL",
    "guardian": "orgrouter.route.guardian:SKILL",
    "approved": "orgrouter.route.guardian:APPROVED_SKILL",
    "todo": "orgrouter.skills.todo:SKILL",
    "schedule": "orgrouter.skills.schedule:SKILL",
    "tag": "orgrouter.skills.tag:SKILL",
    "summarize": "orgrouter.skills.summarize:SKILL",
    "search": "orgrouter.skills.search:SKILL",
    "greet": "orgrouter.skills.greet:SKILL",
    "compact": "orgrouter.skills.compact:SKILL",
    "ask": "orgrouter.skills.ask:SKILL",
    "tangle": "orgrouter.skills.tangle_skill:SKILL",
    "archive": "orgrouter.skills.archive:SKILL",
    "refile": "orgrouter.skills.refile:SKILL",
    "delete": "orgrouter.skills.delete:SKILL",
}
# What the kernel may learn without importing a built-in (skills/lazy.py): its
# priority, whether it takes requests (else delegations), the intent skills its
# trigger can accept (None: any), and whether it binds its own approvals.
# tests/skills/test_lazy_skills.py holds each against the skill itself.
FACTS: dict[str, tuple[int, bool, tuple[str, ...] | None, bool]] = {
    "router": (10, True, None, False),
    "guardian": (100, False, None, False),
    "approved": (
        70, False, ("ask", "draft", "explain", "rewrite", "summarize", "translate"), False
    ),
    "todo": (50, False, ("todo",), False),
    "schedule": (50, False, ("schedule",), False),
    "tag": (50, False, ("tag",), False),
    "summarize": (20, False, ("summarize",), False),
    "search": (50, False, ("search",), False),
    "greet": (50, False, ("greet",), False),
    "compact": (50, False, ("compact",), False),
    "ask": (20, False, ("ask", "translate", "draft", "rewrite", "explain"), False),
    "tangle": (60, False, None, True),  # a "tangle" verb or text, whatever the skill
    "archive": (60, False, ("archive", "tag"), True),  # "tag it archived" too
    "refile": (60, False, ("refile",), True),
    "delete": (60, False, ("delete",), True),
}
# Modules whose SKILLS list adds built-ins: the model-backed skills (which answer
# offline themselves, or defer to the offline skill of the same intent).
BUILTIN_LISTS: tuple[str, ...] = ("orgrouter.skills.llm:SKILLS",)


@dataclass
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
    """Return the built-in skill called ``name`` (imported now, not a ``LazySkill``)."""
    module_name, attribute = BUILTINS[name].split(":")
    skill = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(skill, Skill):
        raise TypeError(f"built-in skill {name!r} does not implement Skill")
    return skill


def uses_models(config: Config) -> bool:
    """Return whether any agent has a model backend (not the offline ``rules``)."""
    backends = [config.neuro.backend, *(n.backend for n in config.agents.values())]
    return any(backend != "rules" for backend in backends)


def builtin_skills(*, models: bool = True) -> list[Skill]:
    """Return every built-in skill: the dict's, then (with ``models``) the model skills.

    Model skills act only when a backend may be used, so a configuration without
    one leaves them out and spares their imports.
    """
    from orgrouter.skills.lazy import LazySkill

    skills: list[Skill] = []
    for name, target in BUILTINS.items():
        priority, requests, wants, binds = FACTS[name]
        skills.append(
            LazySkill(name, target, priority, requests=requests, wants=wants, binds_approvals=binds)
        )
    for target in BUILTIN_LISTS if models else ():
        module_name, attribute = target.split(":")
        for skill in getattr(importlib.import_module(module_name), attribute):
            if not isinstance(skill, Skill):
                raise TypeError(f"{target} holds {skill!r}, which does not implement Skill")
            skills.append(skill)
    return skills


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
