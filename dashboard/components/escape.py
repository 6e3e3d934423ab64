"""The one way user text (run, file, collection, qrels and topic names, qids, docnos, typed measures)
enters anything Streamlit renders as markdown: st.markdown, st.caption, st.title/subheader,
st.info/warning/error/success, st.spinner, st.progress text, st.toast, st.expander labels.

Streamlit's markdown is GitHub markdown plus math ($...$), directives (:red[...]), emoji shortcodes
(:smile:), raw HTML entities (&lt;) and literal autolinks (https://x, www.x, a@b.c). CommonMark lets a
backslash escape any ASCII punctuation character, and an escaped character never starts a link,
emphasis, an entity, a shortcode or an autolink; so every ASCII punctuation character gets one.
Line breaks become spaces: a name is shown inline, and a line break could start a block (a heading,
a list, an indented code block).

Streamlit also rewrites parsed text, where a backslash no longer helps: ` -- ` becomes an em dash,
` -> `, ` <- `, ` <-> `, ` >= `, ` <= `, ` ~= ` become arrows and symbols, `:smile:` an emoji,
`:material_home:` an icon and `:streamlit:` a logo; and GitHub's literal autolinks (`https://x`,
`www.x`, `a@b.c`) are found in parsed text too. An empty colour directive (`:gray[]`, BREAK) goes between such
characters (after every colon and @, inside `www.`, between two of `-<>~=`): it renders as an empty element, which
splits the text so those patterns never match, and adds no character to what a visitor sees or copies (a word
joiner, U+2060, did the same but was copied along with the name). A name without them is unchanged but for the
backslashes. Plain-text elements (st.text, st.code, widget options, dataframe cells, plotly text via
charts.chart_text) need no escaping and must not get it.
"""
from __future__ import annotations

import re
import string

_SPECIAL = frozenset(string.punctuation)        # !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
_BREAKS = re.compile(r"[\r\n\t\f\v\u2028\u2029]+")
BREAK = ":gray[]"       # an empty element: splits the text, shows and copies as nothing
_SYMBOL_RUN = re.compile(r"(?<=[-<>~=])(?=[-<>~=])")   # between two of - < > ~ =
_BREAK_AFTER = re.compile(r"(?<=[:@])|(?<=www)(?=\.)", re.IGNORECASE)   # :name:, https://, a@b, www.


def md_escape(text) -> str:
    """`text` as inert markdown: shown literally, character for character (line breaks as spaces)."""
    flat = _BREAKS.sub(" ", str(text))
    cuts = {m.start() for m in _SYMBOL_RUN.finditer(flat)} | {m.start() for m in _BREAK_AFTER.finditer(flat)}
    return "".join((BREAK if i in cuts else "") + ("\\" + ch if ch in _SPECIAL else ch) for i, ch in enumerate(flat))


def md_format(template: str, /, *args, **kwargs) -> str:
    """str.format with every argument escaped: `md_format("Scoring {} and {}...", a, b)`.
    The template is the developer's own markdown; only the values are user text."""
    return template.format(*(md_escape(a) for a in args), **{k: md_escape(v) for k, v in kwargs.items()})
