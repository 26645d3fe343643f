"""No import cycle between orgrouter's modules, deferred imports included.

The graph is read from the source: every ``import`` a module runs, at its top or inside
a function (a deferred import is a runtime edge all the same), leaving out only
``if TYPE_CHECKING:`` blocks, which never run. A cycle there means two modules each
need the other, which is what made the process pool (gone since) and ``route/runner.py``
(and the guardian and the approval binding, archive and the executors) one tangle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "orgrouter"


def module_files(package: Path) -> dict[str, Path]:
    """Return every module of ``package`` by dotted name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(tree: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """Yield the module names ``tree`` imports, outside ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (m for child in node.orelse for m in _imports(child, name, is_package))
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                anchor = here[: len(here) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        yield from _imports(node, name, is_package)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Return each module's imports of the package's own modules (and their parents)."""
    files = module_files(package)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges = set()
        for target in _imports(tree, name, path.name == "__init__.py"):
            parts = target.split(".")
            # Importing a.b.c runs a and a.b first.
            edges.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
        graph[name] = {target for target in edges if target in files and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the graph's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 100  # the walk saw the package
    assert "orgrouter.route.router" in graph["orgrouter.route.runner"]  # at the top
    # A deferred import is an edge: runner settles interrupted moves inside run_route.
    assert "orgrouter.route.journal" in graph["orgrouter.route.runner"]
    assert cycles(graph) == []


def _package_edges(graph: dict[str, set[str]], low: str, high: str) -> list[str]:
    """Return the imports, deferred ones included, of package ``high`` by package ``low``."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name.startswith(f"orgrouter.{low}.")
        for target in targets
        if target.startswith(f"orgrouter.{high}.")
    )


def test_neuro_is_below_skills_and_route() -> None:
    # The model layer (backends, budget, privacy, prompts, Markdown) knows nothing of
    # skills or routing: what drives the kernel (chat) or the decomposer is route's,
    # what writes results is skills'. Skills reach route only inside functions (the
    # router skill hands the gate's outcome on), never when their module loads.
    graph = import_graph(PACKAGE)
    assert _package_edges(graph, "neuro", "skills") == []
    assert _package_edges(graph, "neuro", "route") == []
    top = {
        name: {
            target
            for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.ImportFrom)
            for target in [node.module or ""]
        }
        for name, path in module_files(PACKAGE).items()
        if name.startswith("orgrouter.skills.")
    }
    assert _package_edges(top, "skills", "route") == []


def test_a_deferred_import_cycle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n\nclass A(B): ...\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.c import C\n"
        "class B:\n    def make(self):\n        from . import a\n        return a.A()\n"
    )
    (package / "c.py").write_text("from pkg import b\n")
    assert cycles(import_graph(package)) == [["pkg.a", "pkg.b"]]


@pytest.mark.slow
def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    names = sorted(n for n in module_files(PACKAGE) if not n.endswith("__main__"))
    code = (
        "import importlib, subprocess, sys\n"
        "failed = [n for n in sys.argv[1:] if subprocess.run("
        "[sys.executable, '-c', f'import {n}'], capture_output=True).returncode]\n"
        "print(failed)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *names], capture_output=True, text=True, timeout=600
    )
    assert done.stdout == "[]\n", done.stdout + done.stderr
