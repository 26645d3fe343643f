"""Built-ins load lazily: the registry's facts never hide a stimulus a skill wants."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from datetime import datetime

import pytest

from orgrouter.config import Config
from orgrouter.route.binding import APPROVED_FLAG
from orgrouter.skills.base import Context, Sensor, Stimulus, StimulusType, delegation
from orgrouter.skills.lazy import LazySkill
from orgrouter.skills.registry import BUILTINS, builtin_skills, load_builtin

NAMES = (*sorted({i for b in BUILTINS.values() for i in (*b.intents, *(b.also or ()))}), "x", "")
LAZY = sorted(name for name, b in BUILTINS.items() if not b.models)
TEXTS = ("tangle this", "tag it archived", "archive Old project", "hi there", "what is Peru?")


def _stimuli() -> list[Stimulus]:
    found = [
        Stimulus(StimulusType.EVENT, {"sensor": sensor.value, "text": text})
        for sensor in (Sensor.USER_COMMAND, Sensor.CHAT_MESSAGE)
        for text in TEXTS
    ]
    for skill, verb, text, risky, approved in itertools.product(
        NAMES, ("", "tangle", "tag", "archive"), TEXTS, (False, True), (False, True)
    ):
        payload = {"skill": skill, "verb": verb, "text": text, "needs_approval": risky}
        found.append(delegation({**payload, APPROVED_FLAG: approved}))
    return found


def test_every_builtin_has_facts_and_they_are_its_own() -> None:
    skills = builtin_skills(models=False)
    assert sorted(s.name for s in skills) == LAZY
    for skill in skills:
        assert isinstance(skill, LazySkill)
        real = load_builtin(skill.name)
        assert (skill.name, skill.priority) == (real.name, real.priority)
        assert skill.binds_approvals == bool(getattr(real, "binds_approvals", False))


@pytest.mark.parametrize("name", LAZY)
def test_the_facts_rule_out_only_what_the_trigger_refuses(name: str) -> None:
    lazy = next(s for s in builtin_skills(models=False) if s.name == name)
    assert isinstance(lazy, LazySkill)
    real = load_builtin(name)
    ctx = Context(config=Config(), now=datetime(2026, 12, 1, 9, 0))
    wanted = 0
    for stimulus in _stimuli():
        if real.trigger(stimulus, ctx):
            wanted += 1
            assert lazy.may_want(stimulus), stimulus.payload
            assert lazy.trigger(stimulus, ctx)
        elif lazy.may_want(stimulus):
            assert not lazy.trigger(stimulus, ctx)
    assert wanted  # every built-in wants some stimulus of the sample


def test_a_todo_request_imports_only_the_skills_it_meets() -> None:
    code = (
        "import json, sys\n"
        "from orgrouter.config import Config\n"
        "from orgrouter.route.router import Router, RunOptions\n"
        "note = b'* Errands\\n** @agent create a todo to renew the passport\\n'\n"
        "Router(Config(), RunOptions(), None, None).route(note, None, b'\\n')\n"
        "print(json.dumps([m.rsplit('.', 1)[1] for m in sys.modules"
        " if m.startswith(('orgrouter.skills.', 'orgrouter.route.guardian'))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(json.loads(done.stdout))
    assert {"router", "todo", "guardian", "lazy"} <= loaded
    assert loaded.isdisjoint({"search", "greet", "compact", "schedule", "summarize", "tag"})
    assert loaded.isdisjoint({"archive", "refile", "delete", "ask", "llm"})
