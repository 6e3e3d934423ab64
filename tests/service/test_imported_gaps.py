"""core.service.imported_gaps: the runs whose imported measure covers fewer topics than another run's."""
from __future__ import annotations

import pandas as pd

from core.service import imported_gaps


def test_each_run_lacks_the_topics_another_run_has_for_that_measure():
    rows = [("a", q, "judge", 0.5) for q in ("1", "2", "3")] + [("b", "2", "judge", 0.1), ("c", "4", "judge", 0.2)]
    rows += [("a", "1", "AP", 0.3), ("b", "9", "AP", 0.3)]          # a computed measure: not imported, not counted
    rows += [(r, "1", "same", 0.5) for r in ("a", "b", "c")]          # every run has the same topics: no gap
    per_query = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    assert imported_gaps(per_query, {"judge": "gpt", "same": "x"}) == {
        "judge": {"a": ["4"], "b": ["1", "3", "4"], "c": ["1", "2", "3"]}}
    assert imported_gaps(per_query, {}) == {}
