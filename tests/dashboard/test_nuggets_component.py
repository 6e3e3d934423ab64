"""dashboard/components/nuggets.py's table: vital nuggets first, one column per run in the order given, every
assignment in words, a run without assignments for the topic shown as no answer, names escaped for markdown."""
from __future__ import annotations

import pandas as pd

from dashboard.components.escape import md_escape
from dashboard.components.nuggets import matrix_frame


def test_the_wide_table_keeps_the_order_and_says_every_cell_in_words():
    rows = [(0, "a_b", "vital", 1, "run*1", "support"), (0, "a_b", "vital", 2, "Nugget", None),
            (2, "c", "vital", 1, "run*1", "partial_support"), (2, "c", "vital", 2, "Nugget", None),
            (1, "d", "okay", 1, "run*1", "failed"), (1, "d", "okay", 2, "Nugget", None),
            (3, "e", "okay", 1, "run*1", "not_support"), (3, "e", "okay", 2, "Nugget", None)]
    matrix = pd.DataFrame(rows, columns=["nugget", "text", "importance", "run_id", "run", "assignment"])
    frame, runs = matrix_frame(matrix)
    assert runs == [md_escape("run*1"), "Nugget (run)"]
    assert list(frame.columns) == ["Nugget", "Importance", md_escape("run*1"), "Nugget (run)"]
    assert frame["Nugget"].tolist() == [md_escape("a_b"), "c", "d", "e"]
    assert frame["Importance"].tolist() == ["vital", "vital", "okay", "okay"]
    assert frame[md_escape("run*1")].tolist() == ["✓ support", "◐ partial", "? failed", "✗ not supported"]
    assert frame["Nugget (run)"].tolist() == ["— no answer"] * 4
