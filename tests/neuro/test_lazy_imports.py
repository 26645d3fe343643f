"""Start-up stays lean: model skills import no httpx or lark; --stdin only what it uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_skills_and_factory_do_not_import_httpx_or_lark() -> None:
    code = (
        "import sys\n"
        "import orgrouter.skills.llm, orgrouter.neuro.factory, orgrouter.skills.specialists\n"
        "from orgrouter.config import NeuroConfig\n"
        "from orgrouter.neuro.factory import make_backend\n"
        "assert make_backend(NeuroConfig()) is None\n"
        "print(sorted(m for m in ('httpx', 'lark', 'orgparse') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"


def test_an_openai_backend_imports_httpx_only_when_made() -> None:
    code = (
        "import sys\n"
        "from orgrouter.config import NeuroConfig\n"
        "from orgrouter.neuro.factory import make_backend\n"
        "make_backend(NeuroConfig(backend='openai', endpoint='http://h/v1', model='m'))\n"
        "print('httpx' in sys.modules, 'lark' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "True False\n"


# What a filter run does without: hashlib's OpenSSL (1.9% of the run: its hashes are of
# a few KB) and calendar with locale (1.7%: daymath counts a month's days itself).
STDLIB = ("_hashlib", "calendar", "locale")

# A preamble keyword and a block below the request: neither is the request's prose,
# and reading it used to parse them with the whole element parser (org/ast.py).
NOTE = (
    b"#+TITLE: Errands\n* @agent create a todo to renew the passport\n"
    b"** Notes\n#+begin_src sh\necho hi\n#+end_src\n"
)


def test_a_stdin_route_of_a_todo_loads_only_what_it_uses(tmp_path: Path) -> None:
    # Emacs pipes the buffer through this on every call: its start-up is the cost a
    # user feels. Run it as the CLI does and look at what it imported.
    code = (
        "import json, re, sys\n"
        "compiled, build = [], re._compiler.compile\n"
        "re._compiler.compile = lambda p, f=0: compiled.append(p) or build(p, f)\n"
        "from orgrouter.cli import main\n"
        "try:\n"
        "    main(['route', '--stdin', '--file-name', sys.argv[1]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "regexes = len(re._cache)\n"
        "HEAVY = [n for n in ('dataclasses', 'sqlite3', 'tomllib', *HEAVY) if n in sys.modules]\n"
        "import dataclasses\n"
        "ours = [m for n, m in sys.modules.items() if n.startswith('orgrouter')]\n"
        "made = [c for m in ours for c in vars(m).values() if isinstance(c, type)"
        " and dataclasses.is_dataclass(c) and c.__module__ == m.__name__]\n"
        "print(json.dumps({'modules': sorted(m.__name__ for m in ours), 'dataclasses': len(made),"
        " 'regexes': regexes, 'compiled': len(compiled), 'others': sorted(HEAVY)}),"
        " file=sys.stderr)\n"
    ).replace(
        "*HEAVY", ", ".join(repr(h) for h in ("lark", "httpx", "orgparse", "click", *STDLIB))
    )
    note = tmp_path / "note.org"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "s"), "XDG_CONFIG_HOME": str(tmp_path)}
    runs = []
    # The first builds the routing tables' cache, as a first use does, and stores the
    # patterns it compiled; the second stores the tables' own, compiled as they are used.
    for _run in range(3):
        done = subprocess.run(
            [sys.executable, "-c", code, str(note)],
            input=NOTE,
            capture_output=True,
            env={k: v for k, v in env.items() if not k.startswith("ORGROUTER_")},
            check=True,
            timeout=60,
        )
        assert b"\n** TODO " in done.stdout
        runs.append(json.loads(done.stderr.decode().splitlines()[-1]))
    first, _, facts = runs
    modules = set(facts["modules"])
    assert facts["others"] == []  # no dataclasses, state database, TOML, click, nothing heavy
    skills = {m.rsplit(".", 1)[1] for m in modules if m.startswith("orgrouter.skills.")}
    assert {"router", "todo"} <= skills
    assert skills.isdisjoint({"search", "summarize", "schedule", "tag", "greet", "compact"})
    assert skills.isdisjoint({"executor", "archive", "refile", "delete", "ask", "llm"})
    assert not any(m.startswith(("orgrouter.babel", "orgrouter.refine")) for m in modules)
    assert modules.isdisjoint({"orgrouter.org.ast", "orgrouter.org.elements"})
    assert "orgrouter.org.syntax" not in modules  # where blocks are written needs none of it
    assert "orgrouter.neuro.backend" not in modules  # no model: no model interface
    # Each module and each dataclass costs start-up (a dataclass about 0.5 ms to build):
    # 0.2 loaded 74 modules (15 skills) here; a new one should be a choice.
    assert len(modules) <= 70, len(modules)
    # Records are NamedTuples or orgrouter.records (a frozen dataclass compiles six
    # methods, and importing dataclasses costs 5% of a 5 MB filter run): 88 at 0.3, 43 at
    # 0.4, 3 per-headline ones in the 0.5 sessions, none since.
    assert facts["dataclasses"] == 0, facts["dataclasses"]
    # Patterns held (the stdlib's too): a table's alternation is compiled only for a
    # clause that can start it, so this todo compiles no frame or greeting (145 with them;
    # 106 since calendar, locale and dataclasses are not loaded; 109 with the few the
    # first run stored that this one does not ask for).
    assert facts["regexes"] <= 109, facts["regexes"]
    # And re compiles none of the code's own once they are stored (orgrouter/diskcache.py):
    # those left are built from the note's words (the address) or inside a function.
    assert first["compiled"] >= 90 and facts["compiled"] <= 8, (first, facts)
