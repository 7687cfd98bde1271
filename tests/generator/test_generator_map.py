"""docs/generator-internals.md is the generator's map: it names every module of generator/ and no
other, and no module imports (directly or through others) one that imports it back."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "generator"
DOC = ROOT / "docs" / "generator-internals.md"


def _modules() -> dict[str, set[str]]:
    """Each module of generator/ -> the generator modules it imports."""
    found: dict[str, set[str]] = {}
    names = {p.stem for p in GENERATOR.glob("*.py")}
    for path in GENERATOR.glob("*.py"):
        imports: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    imports.add(node.module.split(".")[0])
                else:
                    imports.update(a.name for a in node.names if a.name in names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("generator."):
                imports.add(node.module.split(".")[1])
        found[path.stem] = imports & names
    return found


def test_the_map_names_every_module_and_only_those() -> None:
    listed = set(re.findall(r"`generator/(\w+)\.py`", DOC.read_text()))
    modules = set(_modules())
    assert modules - listed == set(), f"not in {DOC.name}: {sorted(modules - listed)}"
    assert listed - modules == set(), f"{DOC.name} names modules that do not exist: {sorted(listed - modules)}"


def test_no_import_cycle() -> None:
    graph = _modules()
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            assert state.get(other) != 1, "import cycle: " + " -> ".join([*path, module, other])
            if other not in state:
                visit(other, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
