"""No import cycle inside ``rules/``: each engine is a pure core that its rule
steps depend on, never the reverse.

Every ``import`` and ``from ... import`` of a module under ``rules/`` is read
with ``ast``: at module level, inside functions (a lazy import is still a
dependency), and under ``if TYPE_CHECKING:`` (a type is a dependency too), with
one exception: the hook interface of Furor Barbarus' scenario rules
(``scenario_rules.py``) names, for its annotations only, the ``Battlefield`` its
hooks receive (which holds the hooks) and the ``Combat`` they are shown.  That is
the one mutual reference of an interface and its holder; nothing in it runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "rules"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(RULES.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["pbem", *parts])  # rules/ installs as pbem.rules


def known_modules() -> dict[str, Path]:
    return {module_name(p): p for p in RULES.rglob("*.py")}


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``rules`` that ``path`` imports (``from pkg import mod`` names
    the submodule when there is one, else the package)."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    out.add(sub)
                elif base in modules:
                    out.add(base)
    out.discard(here)
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first = last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


HOOK_INTERFACE = "pbem.rules.furor_barbarus.scenario_rules"


def type_only_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules ``path`` imports only under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    blocks = [n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test).endswith("TYPE_CHECKING")]
    inside = {id(x) for b in blocks for x in ast.walk(b)}
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and id(n) in inside}
    outside = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and id(n) not in inside}
    return {m for m in names - outside if m in modules}


def import_graph() -> dict[str, set[str]]:
    modules = known_modules()
    graph = {name: imports_of(path, modules) for name, path in modules.items()}
    graph[HOOK_INTERFACE] -= type_only_imports(modules[HOOK_INTERFACE], modules)
    return graph


def test_no_import_cycle_in_rules() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle in rules/: " + " -> ".join(cycle or [])


def test_the_battlefield_is_a_core_that_imports_no_rule_step() -> None:
    graph = import_graph()
    core = graph["pbem.rules.furor_barbarus.battlefield"]
    steps = {
        "retreat",
        "morale",
        "combat",
        "movement",
        "advance",
        "charge",
        "missile_fire",
        "sequence",
        "bots",
        "ruleset",
    }
    assert not {m.rpartition(".")[2] for m in core} & steps, core


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"a2"}, "a2": {"b"}, "b": {"a2"}}, ["a2", "b", "a2"]),
    ],
)
def test_the_cycle_finder_itself(graph: dict[str, set[str]], expected: list[str] | None) -> None:
    assert find_cycle(graph) == expected


def test_lazy_and_type_only_imports_count() -> None:
    graph = import_graph()
    modules = known_modules()
    assert type_only_imports(modules[HOOK_INTERFACE], modules) == {
        "pbem.rules.furor_barbarus.battlefield",
        "pbem.rules.furor_barbarus.combat",
        "pbem.rules.base",
    }
    # campus_mauriacus imports movement inside a function; vouille names Combat only for types
    assert "pbem.rules.furor_barbarus.movement" in graph["pbem.rules.furor_barbarus.special_rules.campus_mauriacus"]
    assert "pbem.rules.furor_barbarus.combat" in graph["pbem.rules.furor_barbarus.special_rules.vouille"]
