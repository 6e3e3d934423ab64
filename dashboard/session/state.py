"""View state: the current collection, and widgets kept in sync with the URL.

Every selection that defines a view (collection, runs, baseline, measure, query, test, ...) lives in
`st.query_params`, so a copied link reproduces the view in a fresh browser. A widget starts from the
URL, then from what the user chose on another page in this session, then from a default; after it
renders, its value is written back to the URL. A multi-selection whose default follows the data (the runs:
all of them) is written only once it is pinned: the user changed it, the URL came with it, or "Copy link" was
pressed (`pin_view`); until then it is the default on every run, so runs loaded meanwhile join it. The store
itself is `dashboard/cache/store.py`; its cached catalogue (collections, runs, qrels sets) is
`dashboard/cache/catalogue.py`.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence
from urllib.parse import urlencode

import streamlit as st

_MEMORY = "_rankboard_memory"
_PINNED = "_rankboard_pinned"          # params whose following-default selection the user has pinned
_FOLLOWING = "_rankboard_following"    # {param: widget key} of the selections that follow their default


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


def pinned(param: str) -> bool:
    """Whether a following-default selection is pinned: in the URL, changed by the user, or pinned by a link."""
    return param in st.query_params or param in st.session_state.get(_PINNED, set())


def _pin(param: str) -> None:
    st.session_state.setdefault(_PINNED, set()).add(param)


def select_many(label: str, options: Sequence, *, key: str, param: str, default: Sequence = (),
                format_func: Callable = str, where=None, allow_new: bool = False, follow_default: bool = False,
                **kwargs) -> list:
    """A multiselect bound to repeated URL parameter `param`; unknown values are dropped, unless
    `allow_new` (then typed values are accepted and kept as options). With `follow_default`, a selection
    the user has not changed is `default` on every run (so it grows with the data) and stays out of the
    URL and this session's memory until it is pinned (`pinned`)."""
    options = list(options)
    following = follow_default and not pinned(param)
    want = list(default) if following else _wanted(key, param, many=True)
    if want is None:
        want = list(default)
    if isinstance(want, (str, int, float)):
        want = [want]
    if allow_new:
        options += [str(v) for v in want if str(v) not in map(str, options)]
        kwargs["accept_new_options"] = True
    if follow_default:
        st.session_state.setdefault(_FOLLOWING, {})[param] = key
        kwargs["on_change"], kwargs["args"] = _pin, (param,)
    lookup = _by_text(options)
    chosen = [lookup[str(v)] for v in want if str(v) in lookup]
    chosen = list(dict.fromkeys(chosen))
    st.session_state[key] = chosen
    kwargs.setdefault("wrap", True)     # the chips wrap onto more rows: no chosen value hides behind a scroll
    value = (where or st).multiselect(label, options, key=key, format_func=format_func, **kwargs)
    if not following:
        remember(param, value)
    return value


def pin_view() -> None:
    """Pin every following-default selection of the page as it is shown (a callback: "Copy link"), so the
    URL names the runs the view shows."""
    for param, key in st.session_state.get(_FOLLOWING, {}).items():
        if key in st.session_state and not pinned(param):
            _pin(param)
            remember(param, st.session_state[key])


def link(base: str | None) -> str | None:
    """The address of this view: `base` (the page's URL, st.context.url) with the URL's parameters."""
    if not base:
        return None
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    return base + ("?" + urlencode(pairs) if pairs else "")


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


_SEEN = "_rankboard_seen"   # {(param, scope): the options this session has seen offered for the selection}


def unseen(param: str, options: Sequence, chosen: Sequence, *, scope) -> list:
    """Options that appeared after this session first drew selection `param` in `scope` (a collection) and
    that the selection does not hold: runs loaded meanwhile that a pinned selection leaves out (a selection
    that follows its default holds them already)."""
    seen = st.session_state.setdefault(_SEEN, {}).setdefault((param, scope), set(options))
    seen.update(chosen)
    return [o for o in options if o not in seen]


def add_choices(key: str, values: Sequence) -> None:
    """Add `values` to a bound multiselect's choice (a callback, e.g. "Add them" for new runs)."""
    have = list(st.session_state.get(key, []))
    st.session_state[key] = have + [v for v in values if v not in have]


def dismiss(param: str, values: Sequence, *, scope) -> None:
    """Stop offering `values` for selection `param` in `scope` (a callback: "Not now")."""
    st.session_state.setdefault(_SEEN, {}).setdefault((param, scope), set()).update(values)


def chosen_runs(names: Sequence) -> list:
    """The runs picked on the Leaderboard (or Curves) in this session or the URL, among `names`; all of `names`
    when none were picked (the Leaderboard then shows them all)."""
    picked = [n for n in remembered("runs") if n in names] if pinned("runs") else []
    return picked or list(names)


def forget_unless(key: str, param: str, keep: Sequence) -> None:
    """Drop a choice carried from another page (this session's memory or the URL) that is not in `keep`, so the
    widget starts from its default; a choice made on this page (the widget's own state) stays."""
    if key not in st.session_state and url_value(param) is not None and str(url_value(param)) not in map(str, keep):
        _memory().pop(param, None)
        if param in st.query_params:
            del st.query_params[param]
