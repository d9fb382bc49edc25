"""The package's layout (docs/design.md, "Layers"), read from the source with ``ast``:
no import circle among pbem's modules, the lower layers never import the higher
ones, the rules import nothing of pbem outside pbem.rules, and no module or
function grows past a page or two.  rules/ is read as ``pbem.rules``, the name it
installs as.  Every failure names the modules or the function."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"pbem": ROOT / "pbem", "pbem.rules": ROOT / "rules"}
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

# Each layer may import only the layers before it (and itself).
LAYERS = ("turnfiles", "dice", "store", "reports", "mail", "referee", "audit", "cli")
FORBIDDEN = {
    "turnfiles": ("reports", "mail", "referee", "audit", "cli"),
    "dice": ("reports", "mail", "referee", "audit", "cli"),
    "store": ("reports", "mail", "referee", "audit", "cli"),
    "reports": ("mail", "referee", "audit", "cli"),
    "mail": ("referee", "audit", "cli"),
    "referee": ("audit", "cli"),
}


def module_files() -> dict[str, Path]:
    """Every module of pbem (rules/ as pbem.rules), by dotted name."""
    found: dict[str, Path] = {}
    for prefix, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((prefix, *parts))] = path
    return found


MODULES = module_files()


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import, in functions too, but none under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking_only(node):
            for child in node.orelse:
                yield from _import_nodes(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _import_nodes(node)


def _known(name: str) -> str | None:
    """The module of pbem that importing ``name`` loads (the longest known prefix)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[str]:
    """The modules of pbem that ``module`` imports."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if is_package(module) else module.rpartition(".")[0]
    out: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            targets = [t if t in MODULES else base for t in targets]
        for target in targets:
            known = _known(target)
            if known is not None and known != module:
                out.add(known)
    return out


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's imports of the project's modules, read once, by the test process
    that runs these tests (not by every process that collects them)."""
    return {module: imports_of(module) for module in MODULES}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_modules_are_found_under_their_installed_names() -> None:
    assert "pbem.rules.base" in MODULES and "pbem.referee.resolve" in MODULES
    assert "pbem.rules.base" in graph()["pbem.rules.farrapos.ruleset"]


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (or a
    module importing itself), as a path that returns to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(start: str) -> None:
        # Tarjan's algorithm, iterative (the graph is deep enough to matter).
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
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

    for module in sorted(graph):
        if module not in index:
            visit(module)
    cycles = []
    for component in components:
        members = set(component)
        path = [component[0]]
        while True:  # walk inside the component until a module repeats
            step = min(m for m in graph[path[-1]] if m in members)
            if step in path:
                cycles.append([*path[path.index(step) :], step])
                break
            path.append(step)
    return cycles


def test_no_import_circle_among_pbems_modules() -> None:
    cycles = find_cycles(graph())
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_names_the_modules_of_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, imported in sorted(graph.items()):
        mine = layer(module)
        for target in sorted(imported):
            theirs = layer(target)
            if mine == "rules" and theirs != "rules":
                found.append(f"{module} imports {target}: the rules import nothing of pbem outside pbem.rules")
            elif theirs in FORBIDDEN.get(mine, ()):
                found.append(f"{module} imports {target}: {mine} is below {theirs}")
    return found


def test_the_lower_layers_never_import_the_higher() -> None:
    problems = layer_violations(graph())
    assert not problems, "\n".join(problems)


def test_a_layer_violation_is_named() -> None:
    graph = {"pbem.store.x": {"pbem.cli.y"}, "pbem.rules.z": {"pbem.dice"}, "pbem.cli.y": {"pbem.store.x"}}
    assert layer_violations(graph) == [
        "pbem.rules.z imports pbem.dice: the rules import nothing of pbem outside pbem.rules",
        "pbem.store.x imports pbem.cli.y: store is below cli",
    ]


def long_modules() -> list[str]:
    out = []
    for module, path in sorted(MODULES.items()):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            out.append(f"{module} ({path.relative_to(ROOT)}): {lines} lines")
    return out


def long_functions(source: str, module: str) -> list[str]:
    out = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                out.append(f"{module}.{node.name} (line {node.lineno}): {length} lines")
    return out


def test_no_module_over_600_lines() -> None:
    problems = long_modules()
    assert not problems, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(problems)


def test_no_function_over_80_lines() -> None:
    problems = [p for module, path in sorted(MODULES.items()) for p in long_functions(path.read_text("utf-8"), module)]
    assert not problems, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(problems)


def test_a_long_function_is_named() -> None:
    source = "def short():\n    pass\n\n\ndef long():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    assert long_functions(source, "pbem.x") == [f"pbem.x.long (line 5): {MAX_FUNCTION_LINES + 1} lines"]


def test_imports_inside_functions_count_and_type_checking_ones_do_not() -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pbem.cli import application\n"
        "def f():\n    from pbem.audit import verify\n"
    )
    assert {n.module for n in _import_nodes(ast.parse(source))} == {"typing", "pbem.audit"}


def test_no_test_file_imports_another_test_file() -> None:
    """What tests share lives in tests/support/ (and tests/conftest.py): a test
    module is never imported by another."""
    tests = Path(__file__).parent
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if last.startswith("test_") and name.split(".", 1)[0] in ("tests", last):
                    found.append(f"{path.relative_to(tests)} imports {name}")
    assert found == [], found
