"""dashboard/components/curves.py by_run: one groupby gives each run the rows that filtering the run column gives."""
from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.components.curves import by_run


def test_by_run_equals_a_filter_per_run():
    rng = np.random.default_rng(0)
    runs = ["b", "a", "c<d>", "10"]
    frame = pd.DataFrame({"run": pd.array(rng.choice(runs, 500), dtype="string[pyarrow]"),
                          "qid": rng.choice(["all", "301"], 500), "x": rng.random(500), "y": rng.random(500)})
    got = by_run(frame)
    assert set(got) == set(frame["run"].astype(str))
    for run in runs + ["absent"]:
        want = frame[frame["run"] == run]
        if want.empty:
            assert run not in got
        else:
            pd.testing.assert_frame_equal(got[run], want)
