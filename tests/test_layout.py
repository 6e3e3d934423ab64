"""Architecture rules the code can check: core never imports Streamlit; components never reach the
store; no module in core/ or dashboard/ is over 350 lines or in an import cycle (imports inside
functions count, as in ../shared/tools/import_cycles.py); no test module imports another (shared
cases live in tests/cases/, tests/fixtures_store.py, tests/apptest_kit.py and the oracles)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STORE_MODULES = ("core.store.store", "core.store.catalogue", "dashboard.cache.store", "dashboard.cache.catalogue",
                 "dashboard.cache.results")
STORE_NAMES = {"Store", "get_store", "db_lock", "cursor", "transaction"}


def imported(path: Path) -> set[str]:
    """Every module an import statement in `path` names (imports inside functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def names_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return ({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)})


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", modules("core"), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_streamlit(path):
    assert not {n for n in imported(path) if n.split(".")[0] == "streamlit"}


@pytest.mark.parametrize("path", modules("dashboard/components"), ids=lambda p: p.name)
def test_components_take_values_not_the_store(path):
    reach = {n for n in imported(path) if n.startswith(STORE_MODULES)}
    assert not reach, f"{path.name} imports {sorted(reach)}: take values and callbacks from the page instead"
    assert not names_used(path) & STORE_NAMES, f"{path.name} uses the store: take values and callbacks instead"


@pytest.mark.parametrize("path", sorted((ROOT / "tests").rglob("test_*.py")), ids=lambda p: p.name)
def test_no_test_module_imports_another(path):
    others = {n for n in imported(path) if n.rpartition(".")[2].startswith("test_") or n.startswith("tests.test_")}
    assert not others, f"move what {path.name} shares with {sorted(others)} into tests/cases/ or tests/fixtures_store.py"


@pytest.mark.parametrize("path", modules("core") + modules("dashboard"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_350_lines(path):
    assert len(path.read_text().splitlines()) <= 350, f"split {path.name} along a seam"


def _graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name resolves to its longest known prefix)."""
    paths = {}
    for path in modules("core") + modules("dashboard"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        paths[name.removesuffix(".__init__")] = path

    def resolve(name):
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in paths.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [node.module or ""])
                names = [base.rstrip(".")] + [f"{base.rstrip('.')}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            deps |= {t for t in map(resolve, names) if t and t != mod and not mod.startswith(t + ".")}
        graph[mod] = deps
    return graph


def test_no_import_cycle():
    graph, state, cycles = _graph(), {}, []

    def visit(mod, trail):
        state[mod] = "open"
        for dep in sorted(graph[mod]):
            if state.get(dep) == "open":
                cycles.append(" -> ".join(trail[trail.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, trail + [dep])
        state[mod] = "done"

    for mod in sorted(graph):
        if mod not in state:
            visit(mod, [mod])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
