"""dashboard.components.escape: the one helper through which user text reaches Streamlit markdown.

The browser test (tests/e2e/test_e2e_hostile.py) renders hostile names on every page; these tests
pin the helper itself and check that no page or component formats a value into markdown without it.
"""
from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from dashboard.components.escape import BREAK, md_escape, md_format

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["[click me](https://evil.example/) **bold**", "see https://bare.example/x -- or www.evil.example",
           "<b>x</b> _u_ `c` $a$ :red[z] &amp; user@evil.example ~~s~~ :smile: -> :streamlit: <= x",
           "line\n# heading\n    code\r\n- item"]


@pytest.mark.parametrize("name", HOSTILE)
def test_every_ascii_punctuation_character_is_escaped(name):
    out = md_escape(name).replace(BREAK, "")
    i = 0
    while i < len(out):
        if out[i] == "\\":
            assert out[i + 1] in string.punctuation, out
            i += 2
            continue
        assert out[i] not in string.punctuation, (out, i)
        i += 1


@pytest.mark.parametrize("name", HOSTILE)
def test_unescaping_gives_back_the_name_on_one_line(name):
    out = md_escape(name).replace(BREAK, "")
    plain = "".join(ch for i, ch in enumerate(out) if not (ch == "\\" and (i == 0 or out[i - 1] != "\\")))
    assert plain == " ".join(name.split("\n")).replace("\r ", " ").replace("\r", " ")
    assert "\n" not in out and "\r" not in out


def test_streamlit_text_rewrites_are_broken_by_an_empty_element_not_an_invisible_character():
    """An empty `:gray[]` splits `--`, `:smile:`, `https://`, `www.` and `a@b.c` (tests/e2e/test_e2e_hostile.py sees
    them render literally); unlike the U+2060 word joiner used before, it adds nothing to copied text."""
    out = md_escape("a -- b -> c <-> d >= e :smile: f https://x.org www.x.org me@x.org")
    for pattern in ("\\-\\-", "\\-\\>", "\\>\\=", "\\:smile", "https\\:\\/", "www\\.", "\\@x"):
        assert pattern not in out, pattern
    assert "\\-" + BREAK + "\\-" in out and "https\\:" + BREAK + "\\/\\/" in out and "me\\@" + BREAK + "x" in out
    assert md_escape("plain name 42") == "plain name 42"
    assert not any("\u2060" in md_escape(n) for n in HOSTILE)


def test_md_format_escapes_the_values_not_the_template():
    assert md_format("**{}** vs {b}", "*a*", b="[b]") == "**\\*a\\*** vs \\[b\\]"


# Streamlit calls that render their text argument as markdown.
MARKDOWN_CALLS = {"markdown", "caption", "title", "header", "subheader", "info", "warning", "error", "success",
                  "spinner", "toast", "expander", "progress", "page_link", "write"}
SAFE_CALLS = {"md_escape", "md_format", "len", "int", "float", "reading", "sum"}
# Developer text that is not user input, each with the reason it may stay unescaped.
ALLOWED = {"s.function": "a core function name from the statistics registry, shown in a code span "
                         "(escaping would show the backslashes)"}


def _safe(expr: ast.expr) -> bool:
    """A call to an escaping or numeric function, a number, or arithmetic on those."""
    if isinstance(expr, ast.Call):
        return getattr(expr.func, "id", getattr(expr.func, "attr", "")) in SAFE_CALLS
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float))
    if isinstance(expr, ast.BinOp):
        return _safe(expr.left) and _safe(expr.right)
    return ast.unparse(expr) in ALLOWED


def _unsafe_fields(node: ast.JoinedStr) -> list[str]:
    bad = []
    for part in node.values:
        if not isinstance(part, ast.FormattedValue):
            continue
        if _safe(part.value):
            continue
        if part.format_spec is not None:       # a number with a format: {n:,} {v:.4f}
            continue
        bad.append(ast.unparse(part.value))
    return bad


def _fstrings(expr: ast.expr):
    """The f-strings in an argument (joined with +, chosen with if/else ...), except inside an escaping call."""
    if isinstance(expr, ast.Call) and getattr(expr.func, "id", getattr(expr.func, "attr", "")) in (
            "md_escape", "md_format"):
        return
    if isinstance(expr, ast.JoinedStr):
        yield expr
        return
    for child in ast.iter_child_nodes(expr):
        yield from _fstrings(child)


def test_no_page_formats_a_value_into_markdown_without_the_helper():
    found = []
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MARKDOWN_CALLS):
                continue
            args = node.args[:1] + [k.value for k in node.keywords if k.arg in ("text", "label", "body")]
            for arg in args:
                for fstring in _fstrings(arg):
                    found += [f"{path.relative_to(ROOT)}:{node.lineno}: {{{f}}}" for f in _unsafe_fields(fstring)]
    assert found == [], "wrap these in md_escape / md_format:\n" + "\n".join(found)
