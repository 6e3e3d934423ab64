"""The page registry, so pages can link to each other without importing the entry file."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent

# section -> (module under app_pages/, title, url path, icon); the first page is the landing page.
SECTIONS = {
    "Compare systems": (
        ("leaderboard.py", "Leaderboard", "leaderboard", ":material/leaderboard:"),
        ("perquery.py", "Per-query", "per-query", ":material/query_stats:"),
        ("curves.py", "Curves", "curves", ":material/show_chart:"),
        ("agreement.py", "Agreement", "agreement", ":material/group:"),
        ("judges.py", "Judges", "judges", ":material/gavel:"),
        ("fusion.py", "Fusion", "fusion", ":material/merge:"),
        ("history.py", "History", "history", ":material/timeline:"),
        ("reproduce.py", "Reproduce", "reproduce", ":material/replay:"),
    ),
    "Collection": (
        ("data.py", "Data", "data", ":material/database:"),
        ("measures.py", "Measures", "measures", ":material/menu_book:"),
    ),
}


def all_pages() -> dict[str, list[st.Page]]:
    out, first = {}, True
    for section, rows in SECTIONS.items():
        out[section] = []
        for file, title, path, icon in rows:
            out[section].append(st.Page(str(HERE / "app_pages" / file), title=title,
                                        url_path=path, icon=icon, default=first))
            first = False
    return out


def page_file(title: str) -> str:
    """The page's script path, as st.page_link and st.switch_page accept it."""
    for rows in SECTIONS.values():
        for file, t, _path, _icon in rows:
            if t == title:
                return str(HERE / "app_pages" / file)
    raise KeyError(title)
