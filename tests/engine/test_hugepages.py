"""The dashboard turns numpy's transparent-huge-page advice off (dashboard/session/hugepages.py): it changes how memory
is obtained, never a value, and numpy's own switch (NUMPY_MADVISE_HUGEPAGE) still wins."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from core.engine.evaluate import evaluate_frames
from dashboard.session.hugepages import without_hugepage_advice
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_runs

toggle = np._core.multiarray


@pytest.fixture
def restore():
    was = toggle._get_madvise_hugepage()
    yield
    toggle._set_madvise_hugepage(was)


def test_values_are_the_same_with_and_without_the_advice(restore, monkeypatch):
    rng = np.random.default_rng(2)
    n = 600_000                      # arrays of several MB: above numpy's 4 MB advice threshold
    run = pd.DataFrame({"qid": (np.arange(n) // 1000).astype(str), "docno": (np.arange(n) % 1000).astype(str),
                        "score": rng.random(n).round(2)})
    qrels = run.sample(30_000, random_state=1)[["qid", "docno"]].assign(rel=rng.integers(0, 3, 30_000))
    measures = ["AP", "nDCG@10", "P@10", "RR", "R@1000"]
    toggle._set_madvise_hugepage(True)
    advised = evaluate_frames(qrels, run, measures)
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert without_hugepage_advice() and not toggle._get_madvise_hugepage()
    plain = evaluate_frames(qrels, run, measures)
    pd.testing.assert_frame_equal(advised.per_query, plain.per_query, check_exact=True)
    pd.testing.assert_frame_equal(advised.summary, plain.summary, check_exact=True)


def test_numpys_own_switch_wins(restore, monkeypatch):
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    toggle._set_madvise_hugepage(True)
    assert not without_hugepage_advice() and toggle._get_madvise_hugepage()


def test_the_dashboard_turns_it_off(tmp_path):
    """A fresh process (numpy's advice as numpy set it at import), through the app's own entry point."""
    code = ("import numpy as np, sys; from streamlit.testing.v1 import AppTest; "
            "at = AppTest.from_file('dashboard/app.py', default_timeout=120); at.run(); "
            "sys.exit(0 if np._core.multiarray._get_madvise_hugepage() is False else 3)")
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    env["RANKBOARD_STORE"] = str(tmp_path / "s.duckdb")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def _mimalloc(env_thp: str | None, code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MIMALLOC_ALLOW_THP", "MIMALLOC_VERBOSE")}
    env["MIMALLOC_VERBOSE"] = "1"
    if env_thp is not None:
        env["MIMALLOC_ALLOW_THP"] = env_thp
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("env_thp, expected", [(None, "0"), ("1", "1")])
def test_core_asks_pyarrows_allocator_for_no_huge_pages(env_thp, expected):
    """core sets mimalloc's option before pyarrow loads it, unless the environment set it first."""
    done = _mimalloc(env_thp, "import core, pyarrow as pa; pa.allocate_buffer(1 << 20)")
    assert done.returncode == 0, done.stderr[-2000:]
    if "option 'allow_thp'" not in done.stderr:
        pytest.skip("this pyarrow's allocator does not report mimalloc's options")
    assert f"option 'allow_thp': {expected} " in done.stderr


def test_values_are_the_same_with_and_without_huge_pages_in_pyarrows_allocator():
    """The same evaluation in two fresh processes, mimalloc's huge pages off (core's setting) and on."""
    run = robust_runs()[0]
    code = ("import sys; from core.engine.evaluate import evaluate_files; "
            f"r = evaluate_files({str(reference_file(ROBUST_QRELS))!r}, [{str(run)!r}], "
            "['AP', 'nDCG@10', 'P@10', 'R@1000', 'RR', 'Rprec', 'bpref']); "
            "sys.stdout.write(r.per_query.sort_values(['measure', 'qid']).to_csv(index=False))")
    off, on = _mimalloc(None, code), _mimalloc("1", code)
    assert off.returncode == 0 and on.returncode == 0, (off.stderr + on.stderr)[-2000:]
    assert len(off.stdout.splitlines()) > 300 and off.stdout == on.stdout
