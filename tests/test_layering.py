"""The house plan, read from the imports: `pipelines -> transforms -> miners -> schemas`, never back.

Every module of the four packages is parsed with `ast` (nothing is imported), and every import
statement counts: at module level, inside functions and methods, and under `if`/`try` (an import
in a function runs as soon as that function is called, so it ties the two modules together just
as a module-level one does; Python resolves a module-level ring only by luck of the order).
`from package import name` counts as an import of `package.name` when that is a module.

Checks:
  * no module of transforms/, miners/ or schemas/ imports a module of a higher floor;
  * neither miners/ nor schemas/ imports Apache Beam (`apache_beam`);
  * no import cycle among the project's modules, direct (a <-> b) or through a ring (a -> b -> c -> a).
"""
import ast
import os
import typing

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOORS = {"schemas": 0, "miners": 1, "transforms": 2, "pipelines": 3}


def _module_name(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[:-len(".py")].split(os.sep)
    if rel[-1] == "__init__":
        rel = rel[:-1]
    return ".".join(rel)


def project_modules() -> typing.Dict[str, str]:
    """{dotted module name: file path} of every module of the four packages."""
    out = {}
    for package in FLOORS:
        for base, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(base, name)
                    out[_module_name(path)] = path
    return out


def _imported_names(tree: ast.AST, module: str, is_package: bool, modules
                    ) -> typing.Iterator[typing.Tuple[str, int]]:
    """(dotted name, line) of everything a module imports, anywhere in it: `import a.b` gives a.b;
    `from a import b` gives a.b when that is a module of `modules`, else a."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package of `module`
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
            for name in submodules or [base]:
                yield name, node.lineno


def import_graph() -> typing.Dict[str, typing.Dict[str, int]]:
    """{module: {imported project module or external top-level package: first line}}."""
    modules = project_modules()
    graph: typing.Dict[str, typing.Dict[str, int]] = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        edges: typing.Dict[str, int] = {}
        for name, line in _imported_names(tree, module, path.endswith("__init__.py"), modules):
            target = name if name in modules or _floor(name) is not None else name.split(".")[0]
            if target != module:
                edges[target] = min(line, edges.get(target, line))
        graph[module] = edges
    return graph


def _floor(module: str) -> typing.Optional[int]:
    return FLOORS.get(module.split(".")[0])


def upward_imports(graph) -> typing.List[str]:
    out = []
    for module, edges in sorted(graph.items()):
        for target, line in sorted(edges.items()):
            if _floor(target) is not None and _floor(target) > _floor(module):
                out.append(f"{module}:{line} imports {target}")
    return out


def beam_imports(graph) -> typing.List[str]:
    return [f"{module}:{line} imports apache_beam" for module, edges in sorted(graph.items())
            for target, line in edges.items()
            if target == "apache_beam" and module.split(".")[0] in ("miners", "schemas")]


def cycles(graph) -> typing.List[typing.List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    project = {m: sorted(t for t in edges if t in graph) for m, edges in graph.items()}
    index: typing.Dict[str, int] = {}
    low: typing.Dict[str, int] = {}
    stack: typing.List[str] = []
    on_stack: typing.Set[str] = set()
    found = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in project[v]:
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

    for v in sorted(project):
        if v not in index:
            visit(v)
    return sorted(found)


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_sees_every_kind_of_import(graph):
    # The reader itself: module level, function level, `from pkg import module`, external packages.
    assert "schemas.base" in graph["schemas.records"]
    assert "apache_beam" in graph["transforms.sinks"]
    assert "transforms.read" in graph["pipelines.cli"]  # imported inside main()
    assert all(_floor(m) is not None for m in graph) and len(graph) > 60


def test_no_floor_imports_a_higher_one(graph):
    assert upward_imports(graph) == []


def test_miners_and_schemas_never_import_beam(graph):
    assert beam_imports(graph) == []


def test_no_import_cycles(graph):
    assert cycles(graph) == []


def test_the_checks_find_what_they_look_for():
    # A ring through three modules, a floor reaching up and Beam in schemas/ on a made-up graph.
    fake = {"schemas.a": {"apache_beam": 3, "miners.b": 4}, "miners.b": {"transforms.c": 1},
            "transforms.c": {"schemas.a": 2}, "pipelines.d": {"transforms.c": 5}}
    assert cycles(fake) == [["miners.b", "schemas.a", "transforms.c"]]
    assert upward_imports(fake) == ["miners.b:1 imports transforms.c", "schemas.a:4 imports miners.b"]
    assert beam_imports(fake) == ["schemas.a:3 imports apache_beam"]
