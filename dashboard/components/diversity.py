"""The diversity leaderboard: runs x diversity measures (means over topics), with a CSV download."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.charts import slug
from dashboard.components.table import table


def render_means(summary: pd.DataFrame, *, runs: list[str], measures: list[str], stem: str, key: str) -> None:
    wide = summary.pivot_table(index="run", columns="measure", values="value", aggfunc="first")
    wide = wide.reindex(index=[r for r in runs if r in wide.index], columns=[m for m in measures if m in wide.columns])
    table(wide.style.format("{:.4f}"), key=f"{key}_table", width="stretch")
    st.download_button("Download CSV", wide.to_csv(), file_name=f"{slug(stem)}.csv", mime="text/csv",
                       key=f"{key}_csv", icon=":material/download:", on_click="ignore")
