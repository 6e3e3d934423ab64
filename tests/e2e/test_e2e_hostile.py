"""Hostile names on every page, in Debian's chromium: run, collection, assessor and file names full of
markdown, autolinks, HTML, math and directives render literally, and no page makes a request to any
host but the dashboard's own (an air-gapped team machine must be able to serve it).

The store is built before the server starts: a collection with a hostile name, three runs renamed to
hostile names, two qrels sets with hostile assessor names. Each page is opened with the hostile runs
chosen through the URL, then the DOM is searched for what the names would produce if they were
rendered as markdown: links to evil.example / bare.example, bold/italic/code/strike/math/colour.
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Server

UI_WAIT_MS = 120_000     # a loaded CI machine can take long over a rerun
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
COLLECTION = "coll [c](https://evil.example/c) -- *e*"
RUNS = ["[click me](https://evil.example/) **bold**",
        "see https://bare.example/x -- or www.evil.example",
        "<b>x</b> _u_ `c` $a$ :red[z] &amp; user@evil.example ~~s~~ :smile: -> :streamlit: <= x"]
ASSESSORS = ["NIST [a](https://evil.example/a)", "**B** https://bare.example/b"]
SYSTEM = "sys [s](https://evil.example/s) **b** -> x"          # the runs' system, followed on the History page
VERSIONS = ["v1 [v](https://evil.example/v)", "v2 <b>x</b>", "v3 :smile:"]
# Markup the hostile names would produce if they reached markdown or HTML unescaped.
FRAGMENTS = {"click me", "bold", "x", "u", "c", "a", "z", "s", "e", "B", "user@evil.example",
             "https://bare.example/x", "www.evil.example", "https://bare.example/b", "&"}

_MARKUP_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('a, strong, em, b, i, code, del, s, .katex, span[class*="color"]')) {
    const href = el.getAttribute('href') || el.getAttribute('xlink:href') || '';
    out.push({tag: el.tagName.toLowerCase(), text: (el.innerText || el.textContent || '').trim(), href});
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from core.store.store import Store
    srv = Server(tmp_path_factory.mktemp("e2e_hostile"))
    store = Store.open(srv.store, load_sample=False)
    try:
        store.create_collection(COLLECTION)
        for q, who in zip(["qrels.robust03.txt.gz", "qrels.robust03.simulated-B.txt.gz"], ASSESSORS):
            store.add_qrels(COLLECTION, (DATA / q).read_bytes(), filename=q, assessor=who)
        store.add_topics(COLLECTION, (DATA / "topics.robust03.txt").read_bytes(), filename="topics.txt")
        for run, name, version in zip(["pircRBa1", "aplrob03a", "humR03dc"], RUNS, VERSIONS):
            store.add_run(COLLECTION, (DATA / "runs" / f"input.{run}.gz").read_bytes(),
                          filename=f"input.{run}.gz", name=name, meta={"system": SYSTEM, "version": version})
    finally:
        store.close()
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def offline(app):
    """Every request the page makes goes to the dashboard's own host; any other is recorded and refused."""
    own = urlparse(app.server.url).netloc
    outside: list[str] = []

    def route(r):
        host = urlparse(r.request.url).netloc
        if r.request.url.startswith(("data:", "blob:")) or host == own:
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    app.page.context.route("**/*", route)
    return outside


def _query(**params) -> str:
    parts = []
    for k, v in params.items():
        for one in (v if isinstance(v, list) else [v]):
            parts.append(f"{k}={quote(one, safe='')}")
    return "?" + "&".join(parts)


def _unwritten_markup(app) -> list[dict]:
    """Links to outside hosts, and markup elements holding a piece of a hostile name."""
    found = []
    for el in app.page.evaluate(_MARKUP_JS):
        el["text"] = el["text"].replace("\u2060", "")
        host = urlparse(el["href"]).netloc
        if "evil.example" in el["href"] or "bare.example" in el["href"] or (host and host != urlparse(
                app.server.url).netloc):
            found.append(el)
        elif el["tag"] != "a" and el["text"] in FRAGMENTS:
            found.append(el)
        elif el["tag"] in ("strong", "b") and el["text"] and not any(
                el["text"] == n or el["text"].startswith(n) for n in RUNS + ASSESSORS + [COLLECTION]):
            # our own bold text never holds part of a name: bold names are bolded whole
            if any(frag in el["text"] for frag in ("evil", "bare", "click me")):
                found.append(el)
    return found


def _text(app) -> str:
    """The page's visible text; word joiners (which the escaping puts inside `--`, `:smile:` ...) dropped."""
    return re.sub(r"\s+", " ", app.page.locator("body").inner_text().replace("\u2060", ""))


PAGES = [
    ("", dict(runs=RUNS, baseline=RUNS[0], measures=["AP", "P@10"]), [RUNS[0]]),
    ("per-query", dict(baseline=RUNS[1], run=RUNS[0], measure="AP", query="601"), RUNS[:2]),
    ("curves", dict(runs=RUNS), []),
    ("agreement", dict(qrels=ASSESSORS), [f"Judged only by {ASSESSORS[0]}"]),
    ("data", {}, [f"Upload to '{COLLECTION}'"]),
    ("measures", {}, []),
    ("history", dict(systems=SYSTEM, measure="AP", step=RUNS[1]), [f"Topics that moved most from {RUNS[0]} to {RUNS[1]}"]),
    ("reproduce", dict(original=RUNS[0], reproduced=RUNS[1], original_baseline=RUNS[2], reproduced_baseline=RUNS[2],
                       measures="AP"), [f"{RUNS[1]} reproduces {RUNS[0]}"]),
]


@pytest.mark.parametrize("path,params,literal", PAGES, ids=[p[0] or "leaderboard" for p in PAGES])
def test_hostile_names_render_literally_and_no_request_leaves_the_machine(app, offline, path, params, literal):
    app.goto(f"/{path}" + _query(collection=COLLECTION, **params))
    app.wait_idle()
    app.assert_healthy()
    assert app.selected("sidebar_collection") == COLLECTION
    text = _text(app)
    for want in literal:
        assert want in text, f"{want!r} is not shown literally on {path}"
    for rewritten in ("x — or", "😄", "→", "≤ x", "] — *e*"):   # Streamlit's --, :smile:, ->, <=
        assert rewritten not in text, f"{rewritten!r} on {path}: a name was rewritten"
    expect(app.page.locator('[data-testid="stMarkdownContainer"] img')).to_have_count(0)   # :streamlit:
    assert _unwritten_markup(app) == [], path
    app.shot(path)
    assert offline == [], f"{path} requested outside hosts: {offline}"


def test_hostile_file_name_in_upload_messages(app, offline, tmp_path):
    """The progress text and the result message name the uploaded file literally."""
    name = "[f](https://evil.example/f) -- **up**.run"
    body = gzip.decompress((DATA / "runs" / "input.UIUC03Rd1.gz").read_bytes())
    app.goto("/data" + _query(collection=COLLECTION))
    app.key("data_runs_files").locator('input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "text/plain", "buffer": body}])
    button = app.key("data_runs_load").locator("button")
    expect(button).to_be_enabled(timeout=UI_WAIT_MS)
    app.rerun_after(button.click)
    success = app.page.get_by_test_id("stAlertContentSuccess").first
    expect(success).to_be_visible(timeout=UI_WAIT_MS)
    assert f"Loaded {name}" in success.inner_text().replace("\u2060", "")
    assert _unwritten_markup(app) == []
    assert offline == []
