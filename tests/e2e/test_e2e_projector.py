"""The projector check: every page and every tab at 1280x720, in Debian's chromium, on the bundled samples and on
a 17-run collection (all TREC 2003 Robust runs of tests/reference with the NIST qrels and the 100 topics).

Each view fails when
- a table reaches past the viewport, hides a column behind its horizontal scroll, scrolls inside itself while it
  has at most `SHORT_TABLE` rows, or cuts a cell's text (the columns' edges and the rows' height are read from
  the table's canvas, the cells' text from its accessibility table; a row taller than 60 px wraps its text);
- text is cut off without a tooltip (an element that clips its text, with no `title` on it or around it), or a
  multiselect hides chosen values behind a scroll;
- a chart's text labels overlap each other or stick out of the plot area, a colour bar's title overlaps its
  ticks, or a trace colours its marks by class (one colour on several marks) without a legend or a colour bar;
- the view's key element (its table or chart) does not show at least `SHOWN_PX` of itself at the top of the
  screen: at scroll 0 for a page, or with the tab bar scrolled to the top of the screen for a tab.

Every view is saved as a screenshot (`screenshots/` in the server's temporary folder).
"""
from __future__ import annotations

import re

import pytest

from tests.cases import nuggets as nugget_case
from tests.cases.reference import DATA, reference_file
from tests.cases.versions import add_versions
from tests.e2e.conftest import Server, VIEWPORT

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

SHORT_TABLE = 25        # rows: a table this short shows every row
SHOWN_PX = 120          # of the key element, on the first screen
BIG = "robust03-17"
SAMPLE = "robust03-sample"
LLM = "dl23-llmjudge"
HISTORY = "history"     # four versions of one system (tests/cases/versions.py)
RAG = "rag-nuggets"

# (id, url, [(tab label or None, key element selector)])
LB_TABS = [(None, ".st-key-lb_table"), ("Confidence intervals", ".st-key-lb_ci_chart"),
           ("Deltas, wins/ties/losses, p-values", ".st-key-lb_details"), ("Every pair", ".st-key-lb_pairs"),
           ("Risk", ".st-key-lb_risk_table")]
JD_TABS = [(None, ".st-key-jd_table"), ("Shift heatmap", ".st-key-jd_heatmap"), ("κ against τ", ".st-key-jd_scatter"),
           ("Per topic", ".st-key-jd_topics"), ("Pool holes", ".st-key-jd_bounds")]
PQ_TABS = [(None, ".st-key-pq_list_a"), ("Δ per topic (click a bar)", ".st-key-pq_chart"),
           ("Topics, most different first (click a row)", ".st-key-pq_table")]
CV_TABS = [(None, ".st-key-cv_query_pr"), ("Mean over topics", ".st-key-cv_pr")]     # a query in the URL: its tab
DATA_TABS = [(None, ".st-key-data_runs_files"), ("Qrels", ".st-key-data_qrels_files"),
             ("Diversity qrels", ".st-key-data_div_files"), ("Topics", ".st-key-data_topics_files"),
             ("Documents", ".st-key-data_docs_files"), ("Nuggets", ".st-key-data_nuggets_files")]
RP_TABS = [(None, ".st-key-rp_orderings_chart"), ("Per measure (RMSE, p)", ".st-key-rp_measures_table"),
           ("Effects (ER, ΔRI)", ".st-key-rp_effects")]
VIEWS = [
    ("leaderboard-17", f"/?collection={BIG}&baseline=pircRBa1", LB_TABS + [("Cost", ".st-key-lb_cost_chart")]),
    ("leaderboard-sample", f"/?collection={SAMPLE}&baseline=pircRBa1", LB_TABS + [("Cost", ".st-key-lb_cost_none")]),
    ("leaderboard-llm", f"/?collection={LLM}", LB_TABS[:2]),
    ("per-query-17", f"/per-query?collection={BIG}&baseline=aplrob03a&run=pircRBa1&query=601", PQ_TABS),
    ("per-query-sample", f"/per-query?collection={SAMPLE}&query=601", PQ_TABS[:1]),
    ("per-query-nuggets", f"/per-query?collection={RAG}&nugget_topic=t4", [(None, ".st-key-pq_nuggets")]),
    ("curves-17", f"/curves?collection={BIG}&query=601", CV_TABS),
    ("agreement-sample", f"/agreement?collection={SAMPLE}", [(None, ".st-key-ag_confusion")]),
    ("agreement-llm", f"/agreement?collection={LLM}&qrels=NIST&qrels=TREMA-nuggets&qrels=Olz-gpt4o",
     [(None, ".st-key-ag_multi_pairwise")]),
    ("judges-llm", f"/judges?collection={LLM}", JD_TABS),
    ("judges-sample", f"/judges?collection={SAMPLE}", JD_TABS[:3]),
    ("fusion-sample", f"/fusion?collection={SAMPLE}&parts=aplrob03a&parts=UIUC03Rd1&method=wsum",
     [(None, ".st-key-fu_table")]),
    ("fusion-17", f"/fusion?collection={BIG}&parts=pircRBa1&parts=aplrob03a&parts=UIUC03Rd1&mode=tune&folds=2",
     [(None, ".st-key-fu_table")]),
    ("data-17", f"/data?collection={BIG}", DATA_TABS),
    ("measures", "/measures", [(None, ".st-key-ms_table")]),
    ("history", f"/history?collection={HISTORY}", [(None, ".st-key-hi_chart")]),
    ("reproduce-17", f"/reproduce?collection={BIG}&original=pircRBa1&reproduced=aplrob03a&original_baseline=humR03dc"
                     "&reproduced_baseline=MU03rob01", RP_TABS),
]

_CHECK_JS = """([short, shown, keySel, tabLabel]) => {
  const W = innerWidth, H = innerHeight, out = [];
  const main = document.querySelector('[data-testid="stMain"]');
  const shownEl = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
                           && el.offsetParent !== null && !el.closest('[hidden]'); };
  const nameOf = el => { const k = el.closest('[class*="st-key-"]');
                         return k ? (k.className.match(/st-key-(\\S+)/) || [, '?'])[1] : el.tagName; };
  const hit = (a, b, pad) => a.left + pad < b.right && b.left + pad < a.right && a.top + pad < b.bottom
                               && b.top + pad < a.bottom;
  // tables
  for (const df of main.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!shownEl(df)) continue;
    const name = nameOf(df), r = df.getBoundingClientRect();
    if (r.right > W + 1) out.push(`${name}: the table reaches ${Math.round(r.right)} px, past the ${W} px screen`);
    const sc = df.querySelector('.dvn-scroller'), grid = df.querySelector('table[role="grid"]');
    if (!sc || !grid) continue;
    const cols = +grid.getAttribute('aria-colcount'), rows = +grid.getAttribute('aria-rowcount') - 1;
    if (sc.scrollWidth > sc.clientWidth + 1)
      out.push(`${name}: ${sc.scrollWidth - sc.clientWidth} px of its ${cols} columns hidden behind a scroll`);
    if (rows <= short && sc.scrollHeight > sc.clientHeight + 2)
      out.push(`${name}: ${rows} rows scroll inside the table`);
  }
  // table cells cut off: the columns' edges are the header's separators on the canvas, a cell's text is its
  // accessibility cell's; numbers are left out (those cells hold the raw value, not the number as drawn)
  const ruler = document.createElement('canvas').getContext('2d');
  for (const df of main.querySelectorAll('[data-testid="stDataFrame"]')) {
    const canvas = df.querySelector('canvas[data-testid="data-grid-canvas"]'), grid = df.querySelector('table[role="grid"]');
    const editor = df.querySelector('.stDataFrameGlideDataEditor');
    if (!shownEl(df) || !canvas || !grid || !editor) continue;
    const css = getComputedStyle(editor), name = nameOf(df);
    ruler.font = css.getPropertyValue('--gdg-base-font-style').trim() + ' ' + css.getPropertyValue('--gdg-font-family').trim();
    const pad = parseFloat(css.getPropertyValue('--gdg-cell-horizontal-padding')) || 8;
    const w = canvas.width, scale = w / canvas.getBoundingClientRect().width;
    const line = canvas.getContext('2d').getImageData(0, Math.round(3 * scale), w, 1).data;
    const bg = [0, 1, 2].map(c => line[(w - 3) * 4 + c]), edges = [0];
    for (let x = 1; x < w - 1; x++) {
      const d = [0, 1, 2].reduce((a, c) => a + Math.abs(line[x * 4 + c] - bg[c]), 0);
      if (d > 6 && x - edges[edges.length - 1] > 3) edges.push(x);
    }
    edges.push(w);
    // the rows' height, from the horizontal lines down the first column: a row taller than 4rem wraps its text
    const down = canvas.getContext('2d').getImageData(Math.round(2 * scale), 0, 1, canvas.height).data;
    const ys = [], dark = y => [0, 1, 2].reduce((a, c) => a + 255 - down[y * 4 + c], 0);
    for (let y = 1; y < canvas.height; y++)        // a line is darker than the pixel above it (cells may be tinted)
      if (dark(y) - dark(y - 1) > 6 && (!ys.length || y - ys[ys.length - 1] > 3)) ys.push(y);
    const rowPx = ys.length > 2 ? (ys[2] - ys[1]) / scale : 35;
    const size = parseFloat(css.getPropertyValue('--gdg-base-font-style').split(' ')[1]) || 13;
    const lines = rowPx > 60 ? Math.max(1, Math.floor((rowPx - 6) / (size * 1.3))) : 1;   // 4rem at 15 px
    const heads = [...grid.querySelectorAll('th')];
    const shift = edges.length - 1 - heads.length;            // 1: a row-selection column comes first
    heads.forEach((th, i) => {
      const room = (edges[i + shift + 1] - edges[i + shift]) / scale - 2 * pad;
      for (const td of grid.querySelectorAll(`td[aria-colindex="${th.getAttribute('aria-colindex')}"]`)) {
        const text = td.textContent.trim();
        if (!text || /^[-+]?[\\d.,]+(e[-+]?\\d+)?%?$/i.test(text) || text === 'true' || text === 'false') continue;
        if (ruler.measureText(text).width > (lines > 1 ? 0.85 * lines * room : room + 1))   // words wrap unevenly
          out.push(`${name}: "${text.slice(0, 40)}" is cut off in column "${th.textContent}"`);
      }
    });
  }
  // text cut off with no tooltip; multiselects hiding chips
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('[data-testid="stDataFrame"], .js-plotly-plot, [data-testid="stCode"], .katex, pre, code, textarea, input'))
      continue;
    if (!el.textContent.trim() || !shownEl(el)) continue;
    const cs = getComputedStyle(el);
    const clips = ['hidden', 'clip', 'auto', 'scroll'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis';
    if (!clips || el.scrollWidth <= el.clientWidth + 1) continue;
    if (el === main || el.matches('[data-testid="stMainBlockContainer"], [data-testid="stVerticalBlock"]')) continue;
    if (el.closest('[title]')) continue;
    const chips = el.closest('[data-baseweb="select"]');
    out.push(chips ? `${nameOf(el)}: the multiselect hides chosen values ("${el.textContent.trim().slice(0, 60)}")`
                   : `${nameOf(el)}: text cut off without a tooltip: "${el.textContent.trim().slice(0, 60)}"`);
  }
  // charts
  for (const plot of main.querySelectorAll('.js-plotly-plot')) {
    if (!shownEl(plot)) continue;
    const name = nameOf(plot);
    const area = plot.querySelector('.draglayer .nsewdrag');
    const box = area ? area.getBoundingClientRect() : null;
    const labels = [...plot.querySelectorAll('.textpoint text')].filter(shownEl);
    const rects = labels.map(t => t.getBoundingClientRect());
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++)
        if (hit(rects[i], rects[j], 1)) out.push(`${name}: labels "${labels[i].textContent}" and "${labels[j].textContent}" overlap`);
      if (box && (rects[i].left < box.left - 1 || rects[i].right > box.right + 1 || rects[i].top < box.top - 1
                  || rects[i].bottom > box.bottom + 1))
        out.push(`${name}: label "${labels[i].textContent}" sticks out of the plot area`);
    }
    for (const bar of plot.querySelectorAll('.colorbar')) {
      const title = bar.querySelector('.cbtitle text');
      if (!title) continue;
      const t = title.getBoundingClientRect();
      for (const tick of bar.querySelectorAll('.cbaxis text, .ytick text'))
        if (hit(t, tick.getBoundingClientRect(), 1)) out.push(`${name}: the colour bar's title overlaps tick "${tick.textContent}"`);
    }
    const legend = plot.querySelectorAll('.legend .traces').length + plot.querySelectorAll('.colorbar').length;
    for (const trace of plot.querySelectorAll('.cartesianlayer .trace')) {
      const fills = [...trace.querySelectorAll('.point path, path.point')].map(p => p.style.fill || p.getAttribute('fill'));
      const count = {};
      for (const f of fills) count[f] = (count[f] || 0) + 1;
      const kinds = Object.keys(count);
      if (!legend && kinds.length >= 2 && kinds.some(k => count[k] >= 2))
        out.push(`${name}: marks in ${kinds.length} colours with no legend`);
    }
  }
  // the key element on the first screen
  const key = main.querySelector(keySel);
  if (!key || !shownEl(key)) out.push(`${keySel} is not shown`);
  else {
    let top = key.getBoundingClientRect().top;      // the page is scrolled to its top, or the tab bar to the screen's
    if (tabLabel) {
      const bar = [...main.querySelectorAll('[role="tablist"]')].find(b => b.textContent.includes(tabLabel));
      top -= bar ? bar.getBoundingClientRect().top : 0;
    }
    if (top + shown > H) out.push(`${keySel} starts at ${Math.round(top)} px: less than ${shown} px of it on the first screen`);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Both bundled samples, the 17 Robust 2003 runs of tests/reference as their own collection, and 3 RAG runs
    scored on nuggets (tests/cases/nuggets.py) in a collection of their own."""
    from core.store.store import Store
    srv = Server(tmp_path_factory.mktemp("e2e_projector"))
    store = Store.open(srv.store, load_sample=True)
    try:
        store.create_collection(BIG)
        qrels = reference_file("trectools_robust03/robust03_qrels.txt.gz")
        store.add_qrels(BIG, qrels.read_bytes(), filename=qrels.name, assessor="NIST")
        store.add_topics(BIG, (DATA / "topics.robust03.txt").read_bytes(), filename="topics.robust03.txt")
        runs = sorted(qrels.parent.joinpath("runs").glob("input.*.gz"))
        assert len(runs) == 17, runs
        for i, run in enumerate(runs):
            rid = store.add_run(BIG, reference_file(f"trectools_robust03/runs/{run.name}").read_bytes(),
                                filename=run.name).id
            if i:                             # a latency for all runs but the first (the Cost tab's chart and lists)
                store.set_run_meta(rid, {"latency_ms": str(10 + (i * 37) % 200)})
        store.create_collection(HISTORY)
        store.add_qrels(HISTORY, (DATA / "qrels.robust03.txt.gz").read_bytes(), filename="qrels.robust03.txt.gz",
                        assessor="NIST")
        store.add_topics(HISTORY, (DATA / "topics.robust03.txt").read_bytes(), filename="topics.robust03.txt")
        add_versions(store, HISTORY, srv.workdir)
        store.add_nuggets(RAG, *nugget_case.write(srv.workdir))
    finally:
        store.close()
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _open_tab(app, label: str) -> None:
    tab = app.page.get_by_role("tab", name=label, exact=True)
    if tab.get_attribute("aria-selected") == "true":
        return
    tab.click()
    app.page.wait_for_timeout(300)          # a lazy tab reruns the page; a plain one only shows its panel
    app.wait_idle()


def _problems(app, key: str, tab: str | None) -> list[str]:
    if tab:
        app.page.get_by_role("tab", name=tab, exact=True).evaluate("t => t.closest('[role=tablist]').scrollIntoView()")
    else:
        app.page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    app.page.wait_for_timeout(400)          # plotly lays out its text after the frame is drawn
    return app.page.evaluate(_CHECK_JS, [SHORT_TABLE, SHOWN_PX, key, tab])


@pytest.mark.parametrize("views", VIEWS, ids=[v[0] for v in VIEWS])
def test_every_page_and_tab_fits_a_projector(app, views):
    slug, url, tabs = views
    assert app.page.viewport_size == VIEWPORT
    app.goto(url)
    app.assert_healthy()
    found = []
    for tab, key in tabs:
        if tab:
            _open_tab(app, tab)
        app.assert_healthy()
        app.page.wait_for_selector(f'[data-testid="stMain"] {key}')
        found += [f"{tab or 'page'}: {p}" for p in _problems(app, key, tab)]
        app.shot(re.sub(r"[^A-Za-z0-9_-]+", "_", tab or slug)[:40])
    assert not found, f"{url} at 1280x720:\n" + "\n".join(found)
