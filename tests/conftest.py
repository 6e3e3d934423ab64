"""What every test run shares: tests write only to temporary folders, and a run that leaves files in the working tree
fails.

- $RANKBOARD_STORE names a store in a temporary folder of this process before any test runs (and is restored
  afterwards), so nothing defaults to data/rankboard.duckdb; tests that need a store make their own in tmp_path.
- $IR_DATASETS_HOME names a temporary folder of this process too (before anything imports ir_datasets, which
  makes its folders on import), so ir_datasets writes nothing under ~/.ir_datasets.
- Hypothesis keeps no example database, and its other files go to a temporary folder, not .hypothesis/.
- `sys.modules["__main__"]` is put back after every test: Streamlit's AppTest runs dashboard/app.py as __main__ and
  leaves it there, and a process started later with multiprocessing's spawn (dask's LocalCluster workers) would
  run the whole app again on start, opening the store named by $RANKBOARD_STORE, or data/rankboard.duckdb.
- At the end of the run (in the process that started it), the working tree is compared with its state at the start:
  any new untracked or ignored file (other than __pycache__) fails the run, and is listed.

Reference data comes from tests/cases/reference.py (`reference_file`), which reads tests/reference/ only.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import configuration as hypothesis_configuration
from hypothesis import settings

# helpers shared by test modules: their asserts get pytest's introspection too (registered before they are imported)
pytest.register_assert_rewrite("tests.fixtures_store", "tests.cases")

from tests.cases.reference import ROOT  # noqa: E402
from tests.cases.isolation import main_module_kept, new_entries, worktree_entries  # noqa: E402

settings.register_profile("no-database", database=None)
settings.load_profile("no-database")

_saved: dict = {}


def pytest_configure(config):
    scratch = tempfile.mkdtemp(prefix="rankboard-tests-")
    _saved.update(scratch=scratch, store=os.environ.get("RANKBOARD_STORE"), irds=os.environ.get("IR_DATASETS_HOME"))
    os.environ["RANKBOARD_STORE"] = os.path.join(scratch, "default-store", "rankboard.duckdb")
    os.environ["IR_DATASETS_HOME"] = os.path.join(scratch, "ir_datasets")
    hypothesis_configuration.set_hypothesis_home_dir(os.path.join(scratch, "hypothesis"))
    if not hasattr(config, "workerinput"):               # the process that started the run (not an xdist worker)
        _saved["tree"] = worktree_entries(ROOT)


def pytest_sessionfinish(session, exitstatus):
    if "tree" not in _saved:
        return
    added = new_entries(_saved["tree"], worktree_entries(ROOT))
    if added:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = ("the tests left these files in the working tree (write to tmp_path instead):\n    "
                   + "\n    ".join(added))
        if reporter is not None:
            reporter.write_sep("=", "files written into the working tree", red=True)
            reporter.write_line(message)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _main_module_put_back():
    with main_module_kept():
        yield


def pytest_unconfigure(config):
    if "scratch" not in _saved:
        return
    for name, key in (("RANKBOARD_STORE", "store"), ("IR_DATASETS_HOME", "irds")):
        if _saved[key] is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = _saved[key]
    shutil.rmtree(_saved.pop("scratch"), ignore_errors=True)
