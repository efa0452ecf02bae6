"""The package's import structure: imports flow one way (no circle), and nothing imports the facade.

Every ``import`` statement counts, including the lazy ones inside functions, and so do the lazy
registries of the package ``__init__`` files (``_LAZY``: a name imported from a submodule on
first use, PEP 562) and ``importlib.import_module`` with a constant name. The graph is read from
the source (AST), not from ``sys.modules``, so a circle that only some call path closes is found too.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import ccb_helpers

PACKAGE = "ccb_helpers"
PACKAGE_DIR = Path(ccb_helpers.__file__).parent


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _lazy_targets(package: str, lazy) -> set[str]:
    """Submodules named by a package's ``_LAZY`` registry: ``{name: ".module"}`` (the root's) or
    ``{name: "module" or None}`` (None: the name is itself a submodule, as in ccb_helpers.mpi)."""
    targets = set()
    for name, module in lazy.items():
        sub = name if module is None else module.lstrip(".")
        targets.add(f"{package}.{sub}")
    return targets


def import_graph(root: Path, lazy_registries: dict[str, dict] | None = None) -> dict[str, set[str]]:
    """Edges ``module -> modules it imports`` among the modules of the package at ``root``.

    ``from X import a`` is an edge to ``X.a`` when that is a module, else to ``X`` (its namespace
    runs); an import never counts as importing the importer's own parent packages implicitly
    (Python runs them first, but a package re-exporting its submodules is not a circle).
    ``lazy_registries`` maps a package's name to its ``_LAZY`` dict.
    """
    package = root.name
    modules = {_module_name(p, root): p for p in sorted(root.rglob("*.py")) if ".ipynb_checkpoints" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        own_package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()

        def add(target: str, name=name, edges=edges) -> None:
            if target in modules and target != name:
                edges.add(target)

        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = own_package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                target = node.args[0].value
                if target.startswith("."):  # import_module(".x", package): relative to this package
                    target = own_package + target
                add(target)
        if lazy_registries and name in lazy_registries:
            for target in _lazy_targets(name, lazy_registries[name]):
                add(target)
        graph[name] = edges
    assert package in graph, f"{root} is not a package"
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one circle's members."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def _registries() -> dict[str, dict]:
    """The ``_LAZY`` registry of every package of ccb_helpers that has one."""
    registries = {}
    for path in sorted(PACKAGE_DIR.rglob("__init__.py")):
        name = _module_name(path, PACKAGE_DIR)
        lazy = getattr(importlib.import_module(name), "_LAZY", None)
        if isinstance(lazy, dict):
            registries[name] = lazy
    return registries


def _describe(graph, circle) -> str:
    members = set(circle)
    return "; ".join(f"{m} -> {', '.join(sorted(graph[m] & members))}" for m in circle)


def test_no_import_circle_among_the_package_modules():
    graph = import_graph(PACKAGE_DIR, _registries())
    assert len(graph) > 40  # every module was read (the package has about 70)
    found = circles(graph)
    assert not found, "import circles (move the shared part below both):\n" + "\n".join(
        _describe(graph, c) for c in found
    )


def test_no_module_imports_the_package_facade():
    # ccb_helpers/__init__ re-exports (eagerly or lazily) from almost every module: it is the top
    # layer, so a module importing it closes a circle as soon as the facade registers the module.
    graph = import_graph(PACKAGE_DIR, _registries())
    importers = sorted(m for m, targets in graph.items() if PACKAGE in targets)
    assert importers == []


def test_lazy_registries_are_read():
    # The root's and ccb_helpers.mpi's registries name the modules the test must treat as imported.
    registries = _registries()
    assert "ccb_helpers.plotting" in _lazy_targets(PACKAGE, registries[PACKAGE])
    assert "ccb_helpers.mpi.plots" in _lazy_targets("ccb_helpers.mpi", registries["ccb_helpers.mpi"])


def _write_package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    "files, expected",
    [
        # The circle this test was written for (#30): a lazy import inside a function closes it.
        (
            {
                "__init__.py": "",
                "algorithms.py": "def f():\n    from .generators import levels\n",
                "generators.py": "from .algorithms import f\n",
            },
            [["pkg.algorithms", "pkg.generators"]],
        ),
        # A subpackage's submodule importing from its own package, which re-exports it.
        (
            {"__init__.py": "", "sub/__init__.py": "from .a import x\n", "sub/a.py": "def x():\n    from . import y\n"},
            [["pkg.sub", "pkg.sub.a"]],
        ),
        # An absolute import of the package facade from a module the facade imports.
        ({"__init__.py": "from .a import x\n", "a.py": "def x():\n    import pkg\n"}, [["pkg", "pkg.a"]]),
        # importlib.import_module with a constant name (relative to the package).
        (
            {
                "__init__.py": "",
                "a.py": "import importlib\nM = importlib.import_module('.b', __package__)\n",
                "b.py": "from .a import M\n",
            },
            [["pkg.a", "pkg.b"]],
        ),
        # Imports flowing one way, re-exports by package __init__ files: no circle.
        (
            {
                "__init__.py": "from .high import h\n",
                "high.py": "from .low import l\nfrom .sub import s\n",
                "low.py": "l = 1\n",
                "sub/__init__.py": "from .s import s\n",
                "sub/s.py": "from ..low import l\ns = l\n",
            },
            [],
        ),
    ],
)
def test_the_circle_finder_finds_circles_it_is_shown(tmp_path, files, expected):
    assert circles(import_graph(_write_package(tmp_path, files))) == expected


def test_the_circle_finder_reads_lazy_registries(tmp_path):
    root = _write_package(
        tmp_path, {"__init__.py": "VALUE = 1\n_LAZY = {'plot': 'figures'}\n", "figures.py": "from . import VALUE\n"}
    )
    assert circles(import_graph(root)) == []
    assert circles(import_graph(root, {"pkg": {"plot": "figures"}})) == [["pkg", "pkg.figures"]]


# --------------------------------------------------------------------------- module size (#44)

#: Longest module the package allows (README, Architecture: ≲ 500 lines as a guide, 800 at most):
#: past it a module holds several concepts, and a new chapter's code has no room beside them.
MAX_MODULE_LINES = 800


def oversized_modules(root: Path, limit: int = MAX_MODULE_LINES) -> dict[str, int]:
    """``{path relative to root's parent: lines}`` of the Python modules under ``root`` longer than ``limit``."""
    sizes = {}
    for path in sorted(root.rglob("*.py")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            sizes[path.relative_to(root.parent).as_posix()] = lines
    return sizes


def test_no_module_is_longer_than_800_lines():
    oversized = oversized_modules(PACKAGE_DIR)
    assert not oversized, (
        f"modules over {MAX_MODULE_LINES} lines (split them by concept, README's Architecture): "
        + ", ".join(f"{path} {lines}" for path, lines in sorted(oversized.items(), key=lambda item: -item[1]))
    )


def test_the_size_check_counts_lines_of_every_module(tmp_path):
    root = _write_package(
        tmp_path,
        {
            "__init__.py": "",
            "small.py": "x = 1\n" * 800,
            "big.py": "x = 1\n" * 801,
            "sub/__init__.py": "",
            "sub/deep.py": "\n" * 900,
        },
    )
    assert oversized_modules(root) == {"pkg/big.py": 801, "pkg/sub/deep.py": 900}
