"""No import circles among the modules of ``solver/`` and ``cli/`` (``cli/web/`` too).

A module that imports another only inside a function still depends on it: the reader
must understand both before either, so such an import counts like one at the top. An
import under ``if TYPE_CHECKING:`` does not count: it never runs and names only a type
for the hints (``rules`` takes the ``Position`` whose ``parse`` replays moves with the
rules). The graph is read from the source with ``ast`` (nothing is imported), over the
installed names ``morris_solver`` and ``morris_cli`` and relative imports alike."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"morris_solver": ROOT / "solver", "morris_cli": ROOT / "cli"}


def _modules() -> dict[str, Path]:
    """Every module of the packages by its dotted name (a package by its own name)."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``, outside ``if TYPE_CHECKING:`` blocks."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif _type_checking(node):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules that ``name`` (at ``path``) imports, wherever in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return {t for t in targets if t in modules and t != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative), each sorted: every circle lies inside one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_the_graph_sees_relative_absolute_and_function_level_imports():
    graph = _graph()
    assert "morris_solver.rules.rules" in graph["morris_solver.play.review"]  # relative, top level
    assert "morris_solver.rules.variants" in graph["morris_cli.common"]  # absolute
    assert "morris_solver.rules.rules" in graph["morris_solver.rules.position"]  # in a function
    assert "morris_solver.rules.position" not in graph["morris_solver.rules.rules"]  # TYPE_CHECKING


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_import_circles():
    circles = _circles(_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)
