"""The diversity leaderboard: runs x diversity measures (means over topics), best first on the first measure, with a
CSV download in the same order."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.charts import slug
from dashboard.components.table import table


def render_means(summary: pd.DataFrame, *, runs: list[str], measures: list[str], stem: str, key: str) -> None:
    wide = summary.pivot_table(index="run", columns="measure", values="value", aggfunc="first")
    wide = wide.reindex(index=[r for r in runs if r in wide.index], columns=[m for m in measures if m in wide.columns])
    if not wide.columns.empty:   # best first on the first measure, as the leaderboard; the CSV in the same order
        wide = wide.sort_values(wide.columns[0], ascending=False, kind="stable", na_position="last")
    table(wide.style.format("{:.4f}"), key=f"{key}_table", width="stretch")
    st.download_button("Download CSV", wide.to_csv(), file_name=f"{slug(stem)}.csv", mime="text/csv",
                       key=f"{key}_csv", icon=":material/download:", on_click="ignore")
