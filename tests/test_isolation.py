"""The test run writes only to temporary folders (tests/conftest.py): the default store is a temporary file,
hypothesis keeps no database, an AppTest run does not leave the app as __main__, the check that fails a run which
leaves files in the working tree sees such files, and the markers that `make test-fast` leaves out are on the slow
and the browser tests."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from core.store.store import DEFAULT_PATH, resolve_path
from tests.cases.reference import ROOT
from tests.cases.isolation import main_module_kept, new_entries, worktree_entries
from tests.fixtures_store import fresh_store


def test_the_default_store_is_a_temporary_file_outside_the_repository():
    path = resolve_path(None).resolve()
    assert path != DEFAULT_PATH.resolve()
    assert not path.is_relative_to(ROOT), path
    assert Path(os.environ["RANKBOARD_STORE"]).resolve() == path


def test_hypothesis_keeps_no_example_database():
    assert settings.default.database is None


def test_an_apptest_run_leaves_main_as_it_found_it(tmp_path, monkeypatch):
    """Streamlit replaces __main__ with the app (why the guard exists); the guard puts the test process's back, so a
    process spawned later does not run the app again."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_kit import APP, TIMEOUT
    fresh_store(tmp_path, "s.duckdb").close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "s.duckdb"))
    before = sys.modules["__main__"]
    with main_module_kept():
        AppTest.from_file(APP, default_timeout=TIMEOUT).run()
        assert getattr(sys.modules["__main__"], "__file__", None) == APP
    assert sys.modules["__main__"] is before


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_files_left_in_a_working_tree_are_found_but_pycache_is_not(tmp_path):
    repo = tmp_path / "repo"
    (repo / "data").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("*.duckdb\n*.duckdb.gate\n.hypothesis/\n")
    (repo / "data" / "sample.json").write_text("{}\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    (repo / "left-before.txt").write_text("there before the run\n")
    before = worktree_entries(repo)
    assert before == {"left-before.txt"}
    (repo / "data" / "rankboard.duckdb").write_bytes(b"x")
    (repo / "data" / "rankboard.duckdb.gate").write_bytes(b"")
    (repo / ".hypothesis" / "examples").mkdir(parents=True)
    (repo / ".hypothesis" / "examples" / "e1").write_bytes(b"")
    (repo / "tests" / "e2e" / "screenshots").mkdir(parents=True)
    (repo / "tests" / "e2e" / "screenshots" / "a.png").write_bytes(b"png")
    (repo / "pkg" / "__pycache__").mkdir(parents=True)
    (repo / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"")
    (repo / "data" / "sample.json").write_text("{\"changed\": true}\n")        # tracked: not the check's business
    assert new_entries(before, worktree_entries(repo)) == [
        ".hypothesis", "data/rankboard.duckdb", "data/rankboard.duckdb.gate", "tests/e2e/screenshots/a.png"]


def test_outside_a_git_checkout_the_default_store_files_are_found(tmp_path):
    (tmp_path / "data").mkdir()
    assert worktree_entries(tmp_path) == set()
    (tmp_path / "data" / "rankboard.duckdb").write_bytes(b"x")
    (tmp_path / "data" / "rankboard.duckdb.lock").write_bytes(b"")
    assert worktree_entries(tmp_path) == {"data/rankboard.duckdb", "data/rankboard.duckdb.lock"}


def _marks(tree: ast.AST) -> set[str]:
    """The names X of the `pytest.mark.X` in `tree`."""
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Attribute) and n.value.attr == "mark"}


def _module_marks(path: Path) -> set[str]:
    """The marks of a module's `pytestmark` (one mark or a list): every test of the module carries them."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            return _marks(node.value)
    return set()


@pytest.mark.parametrize("folder,mark", [("e2e", "browser"), ("limits", "slow")])
def test_every_module_of_a_folder_carries_its_mark(folder, mark):
    modules = sorted((ROOT / "tests" / folder).glob("test_*.py"))
    assert modules
    assert [p.name for p in modules if mark not in _module_marks(p)] == []


def test_no_other_module_is_marked_slow_or_browser():
    """`make test-fast` leaves out the slow and browser marks: they live in tests/limits and tests/e2e only."""
    marked = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").rglob("test_*.py"))
              if p.parent.name not in ("e2e", "limits") and _marks(ast.parse(p.read_text())) & {"slow", "browser"}]
    assert marked == []


def test_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    """`make test` runs `pytest -n 2 --dist loadgroup`: the Dask tests share one cluster and the browser tests one
    machine's worth of servers only when each group runs on one worker (pytest 9 with pytest-xdist 3.8 silently
    spread them; requirements-test.txt pins a pytest that keeps them together)."""
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(
            "import os, pytest\npytestmark = pytest.mark.xdist_group('g')\n"
            f"@pytest.mark.parametrize('i', range(6))\ndef test_{name}(i):\n"
            "    print('worker', os.environ['PYTEST_XDIST_WORKER'])\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
                          "no:cacheprovider", "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    workers = {line.split()[0] for line in out.stdout.splitlines() if " PASSED " in line}
    assert out.returncode == 0 and len(workers) == 1, out.stdout[-2000:]
