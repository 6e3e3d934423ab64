"""The one way user text (run, file, collection, qrels and topic names, qids, docnos, typed measures)
enters anything Streamlit renders as markdown: st.markdown, st.caption, st.title/subheader,
st.info/warning/error/success, st.spinner, st.progress text, st.toast, st.expander labels.

Streamlit's markdown is GitHub markdown plus math ($...$), directives (:red[...]), emoji shortcodes
(:smile:), raw HTML entities (&lt;) and literal autolinks (https://x, www.x, a@b.c). CommonMark lets a
backslash escape any ASCII punctuation character, and an escaped character never starts a link,
emphasis, an entity, a shortcode or an autolink; so every ASCII punctuation character gets one.
Line breaks become spaces: a name is shown inline, and a line break could start a block (a heading,
a list, an indented code block).

Streamlit also rewrites parsed text, where a backslash no longer helps: a standalone ` -- ` becomes an em dash,
` -> `, ` <- `, ` <-> `, ` >= `, ` <= `, ` ~= ` become arrows and symbols, `:smile:` an emoji, `:material_home:`
an icon and `:streamlit:` a logo; and GitHub's literal autolinks (`https://x`, `www.x`, `a@b.c`) are found in
parsed text too. None of that happens inside a code span, so a value that holds a colon, an @, `www.` or such a
standalone symbol is shown whole as inline code (its own text, character for character, in a fence longer than
any run of backticks in it): what a visitor copies is the name itself, with no invisible character added.
Plain-text elements (st.text, st.code, widget options, dataframe cells, plotly text via charts.chart_text) need
no escaping and must not get it.
"""
from __future__ import annotations

import re
import string

_SPECIAL = frozenset(string.punctuation)        # !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
_BREAKS = re.compile(r"[\r\n\t\f\v\u2028\u2029]+")
# what Streamlit or GitHub markdown rewrites in parsed text (see above): shown as a code span instead
_REWRITTEN = re.compile(r"[:@]|www\.|(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)", re.IGNORECASE)
_TICKS = re.compile(r"`+")


def md_escape(text) -> str:
    """`text` as inert markdown: shown literally, character for character (line breaks as spaces)."""
    flat = _BREAKS.sub(" ", str(text))
    if _REWRITTEN.search(flat) and flat.strip():
        fence = "`" * (max((len(t) for t in _TICKS.findall(flat)), default=0) + 1)
        pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
        return f"{fence}{pad}{flat}{pad}{fence}"
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in flat)


def md_format(template: str, /, *args, **kwargs) -> str:
    """str.format with every argument escaped: `md_format("Scoring {} and {}...", a, b)`.
    The template is the developer's own markdown; only the values are user text."""
    return template.format(*(md_escape(a) for a in args), **{k: md_escape(v) for k, v in kwargs.items()})
