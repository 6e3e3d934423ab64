"""st.dataframe inside a keyed container: read-only tables get no element id of their own, so the
container carries the key (`.st-key-<key>` in the page) for browser tests and AppTest lookups.

A table of up to `SHORT_ROWS` rows is drawn tall enough to show every row (the page scrolls, not the table);
a longer one keeps Streamlit's height and scrolls inside itself."""
from __future__ import annotations

import streamlit as st

SHORT_ROWS = 25
ROW_PX = 35          # Streamlit's row height
HEADER_PX = 38       # the header row and the borders
WRAP_ROW_PX = 62     # rows taller than 4rem (60 px) wrap their text: three lines of a long query or description


def name_width(names, *, least: int = 60, most: int = 280) -> int:
    """Pixels for a column of names (runs, measures) to show the longest whole; Streamlit sizes a column from
    its first rows only."""
    longest = max((len(str(n)) for n in names), default=0)
    return int(min(most, max(least, 16 + 8.5 * longest)))


def fit_height(n_rows: int, *, row_px: int = ROW_PX, most: int = SHORT_ROWS) -> int | str:
    """The height that shows `n_rows` rows and the header without an inner scroll; "auto" above `most` rows."""
    return HEADER_PX + row_px * max(n_rows, 1) if n_rows <= most else "auto"


def table(data, *, key: str, **kwargs):
    if "height" not in kwargs:
        rows = len(getattr(data, "data", data))       # a pandas Styler holds its frame in .data
        kwargs["height"] = fit_height(rows, row_px=kwargs.get("row_height") or ROW_PX)
    with st.container(key=key):
        return st.dataframe(data, **kwargs)
