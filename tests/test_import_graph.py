"""The package has no import circle: module-level and function-level imports alike, and an
import of ``a.b.c`` counts as one of the package ``a.b`` too (Python runs its __init__
first).  The top-level package ``refacct`` is left out: it re-exports the public surface
and nothing inside imports it.  A circle means a module can only be imported from a
function, and that an engine and what calls it cannot be read (or replaced) apart."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "refacct"


def _modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imported(module: str, path: Path, node, modules) -> list:
    """Modules of refacct that ``node`` (an Import or ImportFrom in ``module``) imports."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    here = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    if node.level:
        parts = here.split(".")[: len(here.split(".")) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for alias in node.names:
        full = f"{base}.{alias.name}"
        out.append(full if full in modules else base)
    return [m for m in out if m in modules]


def import_graph() -> dict:
    modules = _modules()
    graph = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(module, path, node, modules):
                    parts = target.split(".")
                    parents = [".".join(parts[:i]) for i in range(2, len(parts))]
                    graph[module].update(t for t in [target] + parents
                                         if t != module and not module.startswith(t + "."))
    return graph


def cycle(graph: dict):
    """One import circle as a list of modules, or None (depth-first search)."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        state[m] = "done"
        stack.pop()
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_detector_finds_a_circle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_graph_sees_function_level_and_package_imports():
    graph = import_graph()
    assert "refacct.api" in graph["refacct.derived"]
    assert "refacct.mechanisms" in graph["refacct.api"]           # api imports a submodule
    assert "refacct.cli" in graph["refacct.fuzz"]                 # in a function
    assert "refacct.engines.exact.discrete" in graph["refacct.engines.lattice.loss_cells"]


def test_no_import_circle():
    assert cycle(import_graph()) is None


ENGINES = ("refacct.hockey", "refacct.brackets", "refacct.certified", "refacct.shuffle",
           "refacct.api", "refacct.engines", "refacct.engine", "refacct.routing")


def test_the_catalogue_imports_no_engine():
    """Catalogue entries are data (terms, bounds, provenance): nothing the mechanisms
    package imports, directly or through other modules, computes a curve; so routing and
    every engine can recognise an entry by its type without an import circle."""
    graph = import_graph()
    seen, todo = set(), ["refacct.mechanisms"]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    assert not [m for m in seen if m.startswith(ENGINES)]
