"""View state: the current collection, and widgets kept in sync with the URL.

Every selection that defines a view (collection, runs, baseline, measure, query, test, ...) lives in
`st.query_params`, so a copied link reproduces the view in a fresh browser. A widget starts from the
URL, then from what the user chose on another page in this session, then from a default; after it
renders, its value is written back to the URL. The store itself is `dashboard/cache/store.py`;
its cached catalogue (collections, runs, qrels sets) is `dashboard/cache/catalogue.py`.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import streamlit as st

_MEMORY = "_rankboard_memory"


def _memory() -> dict:
    return st.session_state.setdefault(_MEMORY, {})


def _wanted(key: str, param: str, many: bool):
    """What the widget should show: its own state, else the URL, else this session's last choice."""
    if key in st.session_state:
        return st.session_state[key]
    if param in st.query_params:
        return st.query_params.get_all(param) if many else st.query_params.get(param)
    return _memory().get(param)


def _by_text(options: Sequence) -> dict[str, Any]:
    return {str(o): o for o in options}


def remember(param: str, value) -> None:
    """Write a view setting to the URL (and to session memory, so other pages start from it)."""
    _memory()[param] = value
    if value is None or value == [] or value == "":
        if param in st.query_params:
            del st.query_params[param]
    elif isinstance(value, (list, tuple)):
        texts = [str(v) for v in value]
        if st.query_params.get_all(param) != texts:
            st.query_params[param] = texts
    elif st.query_params.get(param) != str(value):
        st.query_params[param] = str(value)


def url_value(param: str, default=None):
    return st.query_params.get(param, _memory().get(param, default))


def select_one(label: str, options: Sequence, *, key: str, param: str, default=None,
               format_func: Callable = str, where=None, **kwargs):
    """A selectbox bound to URL parameter `param`; returns the chosen option (None if no options)."""
    options = list(options)
    if not options:
        return None
    lookup = _by_text(options)
    want = _wanted(key, param, many=False)
    want = lookup.get(str(want)) if want is not None else None
    if want is None:
        want = default if default in options else options[0]
    st.session_state[key] = want
    value = (where or st).selectbox(label, options, key=key, format_func=format_func, **kwargs)
    remember(param, value)
    return value


def select_many(label: str, options: Sequence, *, key: str, param: str, default: Sequence = (),
                format_func: Callable = str, where=None, allow_new: bool = False, **kwargs) -> list:
    """A multiselect bound to repeated URL parameter `param`; unknown values are dropped, unless
    `allow_new` (then typed values are accepted and kept as options)."""
    options = list(options)
    want = _wanted(key, param, many=True)
    if want is None:
        want = list(default)
    if isinstance(want, (str, int, float)):
        want = [want]
    if allow_new:
        options += [str(v) for v in want if str(v) not in map(str, options)]
        kwargs["accept_new_options"] = True
    lookup = _by_text(options)
    chosen = [lookup[str(v)] for v in want if str(v) in lookup]
    chosen = list(dict.fromkeys(chosen))
    st.session_state[key] = chosen
    kwargs.setdefault("wrap", True)     # the chips wrap onto more rows: no chosen value hides behind a scroll
    value = (where or st).multiselect(label, options, key=key, format_func=format_func, **kwargs)
    remember(param, value)
    return value


def set_choice(key: str, param: str, value) -> None:
    """Change a bound widget's value from a callback (e.g. a click in a chart)."""
    st.session_state[key] = value
    _memory()[param] = value


_COLLECTION = "_rankboard_collection"


def set_collection(value: dict | None) -> None:
    st.session_state[_COLLECTION] = value


def collection() -> dict | None:
    """The collection picked in the sidebar: {'id': int, 'name': str}, or None on an empty store."""
    return st.session_state.get(_COLLECTION)


def include(param: str, values) -> None:
    """Add values to a remembered multi-selection (e.g. a just-uploaded run joins the chosen runs)."""
    memory = _memory()
    current = memory.get(param)
    if isinstance(current, list):
        memory[param] = current + [v for v in values if v not in current]
    if param in st.query_params:
        have = st.query_params.get_all(param)
        st.query_params[param] = have + [str(v) for v in values if str(v) not in have]


def remembered(param: str) -> list:
    """A multi-value setting as last chosen in this session (or in the URL), else []."""
    value = st.query_params.get_all(param) if param in st.query_params else _memory().get(param)
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
