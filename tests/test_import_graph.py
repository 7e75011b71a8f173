"""The imports among the modules of ``solver/`` and ``cli/`` (``cli/web/`` too): no
circles, and the layers of ``solver/`` import only downward.

A module that imports another only inside a function still depends on it: the reader
must understand both before either, so such an import counts like one at the top. For
circles, an import under ``if TYPE_CHECKING:`` does not count: it never runs and names
only a type for the hints (``rules`` takes the ``Position`` whose ``parse`` replays moves
with the rules). For the order of the layers it counts: a type named from a layer above
is a dependency on it all the same. The graph is read from the source with ``ast``
(nothing is imported), over the installed names ``morris_solver`` and ``morris_cli`` and
relative imports alike."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"morris_solver": ROOT / "solver", "morris_cli": ROOT / "cli"}

# the subpackages of solver/, bottom to top (docs/architecture.md): a module may import its
# own layer and the layers below it. `play` and `check` stand side by side above `query`,
# and neither imports the other. Above them all: the package's lazy public API
# (solver/__init__.py), then the command and its web server (cli/).
LAYERS = [("core",), ("rules",), ("index",), ("tables",), ("solving",), ("search",), ("query",),
          ("play", "check"), ("api",), ("cli",)]
RANK = {layer: rank for rank, side_by_side in enumerate(LAYERS) for layer in side_by_side}


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


def _imports(tree: ast.AST, type_checking: bool) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``; those in ``if TYPE_CHECKING:`` blocks only if
    ``type_checking``."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif _type_checking(node) and not type_checking:
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _imported(name: str, path: Path, modules: dict[str, Path], type_checking: bool) -> set[str]:
    """The project's modules that ``name`` (at ``path``) imports, wherever in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in _imports(ast.parse(path.read_text(), str(path)), type_checking):
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


def _graph(type_checking: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules, type_checking)
            for name, path in modules.items()}


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


def _layer(module: str) -> str:
    """The layer of a module: its subpackage of ``morris_solver``, ``api`` for the package
    itself, ``cli`` for all of ``morris_cli``."""
    top, _, rest = module.partition(".")
    if top == "morris_cli":
        return "cli"
    return rest.partition(".")[0] or "api"


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a module from another layer that is not below its own."""
    found = []
    for module, targets in sorted(graph.items()):
        mine = _layer(module)
        for target in sorted(targets):
            theirs = _layer(target)
            if theirs != mine and RANK[theirs] >= RANK[mine]:
                found.append(f"{module} ({mine}) imports {target} ({theirs})")
    return found


def test_the_graph_sees_relative_absolute_and_function_level_imports():
    graph = _graph()
    assert "morris_solver.rules.rules" in graph["morris_solver.play.review"]  # relative
    assert "morris_solver.rules.outcome" in graph["morris_solver.play.review"]  # ../rules/
    assert "morris_solver.rules.variants" in graph["morris_cli.common"]  # absolute
    assert "morris_solver.rules.rules" in graph["morris_solver.rules.position"]  # in a function
    assert "morris_solver.rules.position" not in graph["morris_solver.rules.rules"]  # TYPE_CHECKING
    assert "morris_solver.rules.position" in _graph(type_checking=True)["morris_solver.rules.rules"]


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_import_circles():
    circles = _circles(_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_every_module_of_the_library_is_in_a_layer():
    """No module directly in ``solver/`` but the package's own ``__init__``, and no
    subpackage the order above does not place."""
    layers = {_layer(name) for name in _modules()}
    assert layers <= RANK.keys(), f"not in LAYERS: {sorted(layers - RANK.keys())}"
    assert {"core", "query", "play", "check", "api", "cli"} <= layers


def test_the_layer_check_finds_an_upward_import():
    graph = {
        "morris_solver.core.bits": {"morris_solver.core.kernelcache"},  # its own layer
        "morris_solver.rules.board": {"morris_solver.core.errors"},  # down
        "morris_solver.tables.storage": {"morris_solver.rules", "morris_solver.core"},
        "morris_solver.index.movegen": {"morris_solver.tables.storage"},  # up
        "morris_solver.check.verify": {"morris_solver.play.engine"},  # side by side
        "morris_solver.play.engine": {"morris_solver.query.probe", "morris_solver.check"},
        "morris_solver": {"morris_solver.query.probe"},  # the public API, above the layers
        "morris_cli.main": {"morris_solver", "morris_solver.play.engine"},  # the command
        "morris_solver.core.errors": {"morris_cli.common"},  # the library uses the command
    }
    assert _upward(graph) == [
        "morris_solver.check.verify (check) imports morris_solver.play.engine (play)",
        "morris_solver.core.errors (core) imports morris_cli.common (cli)",
        "morris_solver.index.movegen (index) imports morris_solver.tables.storage (tables)",
        "morris_solver.play.engine (play) imports morris_solver.check (check)",
    ]


def test_the_layers_import_only_downward():
    """``TYPE_CHECKING`` imports included."""
    upward = _upward(_graph(type_checking=True))
    assert not upward, "imports against the order of the layers:\n" + "\n".join(upward)
