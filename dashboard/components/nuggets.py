"""The nuggets of one topic by runs: which answer supports which nugget.

One row per nugget (vital first), one column per run; each cell says the run's assignment in words and colour,
and the nugget's text is shown whole, wrapped (st.table: an HTML table that grows with its text, where
st.dataframe would cut a long nugget). st.table reads every cell and header as markdown, so the nugget texts and
the run names go through md_escape and show literally."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.escape import md_escape, md_format

# assignment -> (the cell's words, its colours); None: the run has no assignments for this topic
CELLS = {
    "support": ("✓ support", "background-color: #bbf7d0; color: #14532d"),
    "partial_support": ("◐ partial", "background-color: #fde68a; color: #78350f"),
    "not_support": ("✗ not supported", "background-color: #fecaca; color: #7f1d1d"),
    "failed": ("? failed", "background-color: #e5e7eb; color: #374151"),
    None: ("— no answer", "background-color: #f3f4f6; color: #6b7280"),
}
NUGGET, IMPORTANCE = "Nugget", "Importance"


def matrix_frame(matrix: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """(the wide table: Nugget, Importance, then one column per run with its cell words; the run columns' names).
    Texts and names are escaped for st.table's markdown."""
    runs = list(dict.fromkeys(matrix["run"]))
    order = list(dict.fromkeys(matrix["nugget"]))
    words = matrix["assignment"].map(lambda a: CELLS.get(a if isinstance(a, str) else None, CELLS[None])[0])
    wide = matrix.assign(cell=words).pivot(index="nugget", columns="run", values="cell").reindex(index=order,
                                                                                                columns=runs)
    first = matrix.drop_duplicates("nugget").set_index("nugget").reindex(order)
    head = pd.DataFrame({NUGGET: first["text"], IMPORTANCE: first["importance"]})
    frame = pd.concat([head, wide], axis=1).reset_index(drop=True)
    shown = [md_escape(r) + (" (run)" if r in (NUGGET, IMPORTANCE) else "") for r in runs]
    frame.columns = [NUGGET, IMPORTANCE, *shown]
    frame[NUGGET] = frame[NUGGET].map(md_escape)
    return frame, shown


def _colour(value) -> str:
    for words, css in CELLS.values():
        if value == words:
            return css
    return ""


def render_matrix(matrix: pd.DataFrame, *, qid: str, key: str) -> None:
    """The matrix of topic `qid`, with a caption that counts each run's supported nuggets."""
    if matrix.empty:
        st.info(md_format("Topic {} has no nuggets.", qid))
        return
    frame, runs = matrix_frame(matrix)
    n = len(frame)
    vital = int((frame[IMPORTANCE] == "vital").sum())
    st.caption(md_format("Topic {}: {} nuggets ({} vital), by {} runs. ", qid, n, vital, len(runs))
               + "A partial support counts 0.5 in the scores *vital* and *all*, nothing in *strict_vital* and "
                 "*strict_all*.")
    styled = frame.style.map(_colour, subset=runs).hide(axis="index")
    with st.container(key=key):
        st.table(styled)
