"""Loading the model skills and the backend factory must not import httpx or lark."""

from __future__ import annotations

import subprocess
import sys


def test_skills_and_factory_do_not_import_httpx_or_lark() -> None:
    code = (
        "import sys\n"
        "import orgrouter.skills.llm, orgrouter.neuro.factory, orgrouter.neuro.specialists\n"
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
