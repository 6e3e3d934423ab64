"""AppTest: every dashboard page renders on a store seeded from data/, and the main widgets work.

The app opens the store named by $RANKBOARD_STORE (a copy of the sample collection per test module).
"Unexpected error" is what the pages print when something other than a RankboardError escapes, so a
test that finds it fails just like one that finds an exception.
"""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, keyed, open_page, texts, url
from tests.apptest_kit import app, private_app, store_path  # noqa: F401  (pytest fixtures)
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

PAGES = {"leaderboard": "Leaderboard", "perquery": "Per-query comparison", "curves": "Precision-recall and ROC",
         "agreement": "Judge agreement", "fusion": "Fusion", "data": "Data", "measures": "Measures",
         "reproduce": "Reproducibility", "history": "History"}
pytestmark = pytest.mark.xdist_group("apptest")   # one worker: the pages share Streamlit's caches


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_renders(app, page):
    at = open_page(app, page)
    assert_clean(at)
    assert at.title[0].value == PAGES[page]
    assert at.selectbox(key="sidebar_collection").value == SAMPLE_COLLECTION


def test_leaderboard_baseline_adds_significance(app):
    at = app.run()
    assert_clean(at)
    assert at.selectbox(key="lb_baseline").value == ""
    assert "Pick a baseline" in texts(at)
    runs = at.multiselect(key="lb_runs").value
    assert len(runs) == 5
    at.selectbox(key="lb_baseline").set_value(runs[0]).run()
    assert_clean(at)
    assert url(at, "baseline") == [runs[0]]
    assert f"significantly better / worse than {runs[0]}" in texts(at)
    table = frame(at, "lb_table")
    assert f"{runs[0]} (baseline)" in list(table.index)
    assert list(table.columns)[:7] == ["Rank (95% CI)", "Group", "AP", "nDCG@10", "P@10", "R@100", "RR"]   # recall at the runs' depth
    at.selectbox(key="lb_test").set_value("wilcoxon").run()
    at.selectbox(key="lb_correction").set_value("holm").run()
    assert_clean(at)
    assert "Wilcoxon" in texts(at) and "holm" in texts(at)
    assert url(at, "test") == ["wilcoxon"] and url(at, "correction") == ["holm"]


def test_leaderboard_measures_and_unknown_measure(app):
    at = app.run()
    at.multiselect(key="lb_measures").set_value(["AP", "ndcg_cut_20", "nDGC@10"]).run()
    assert not at.exception
    assert "Unknown measure" in " ".join(e.value for e in at.error)
    assert any("nDCG@10" in c.value for c in at.code)      # core's "did you mean" text, verbatim
    table = frame(at, "lb_table")
    assert list(table.columns)[2:4] == ["AP", "nDCG@20"]     # after the rank and group columns


def test_url_reproduces_the_view(app):
    at = open_page(app, "leaderboard", runs=["aplrob03a", "humR03dc"], baseline="aplrob03a",
                   measures=["P@10", "AP"], test="t", alpha="0.01")
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == ["aplrob03a", "humR03dc"]
    assert at.multiselect(key="lb_measures").value == ["P@10", "AP"]
    assert at.selectbox(key="lb_baseline").value == "aplrob03a"
    assert at.selectbox(key="lb_alpha").value == "0.01"
    assert list(frame(at, "lb_table").columns)[2:4] == ["P@10", "AP"]


def test_perquery_opens_a_query(private_app):
    app = private_app
    at = open_page(app, "perquery", baseline="pircRBa1", run="aplrob03a", measure="nDCG@10")
    assert_clean(at)
    assert at.selectbox(key="pq_baseline").value == "pircRBa1"
    assert at.selectbox(key="pq_run").value == "aplrob03a"
    query = at.selectbox(key="pq_query")
    assert query.value == ""
    qid = query.options[1].split(":")[0]
    query.set_value(qid).run()
    assert_clean(at)
    assert url(at, "query") == [qid]
    a, b = frame(at, "pq_list_a_table"), frame(at, "pq_list_b_table")
    assert len(a) > 0 and len(b) > 0
    assert list(a.columns) == ["rank", "grade", "docno", "other", "score"]
    assert at.text_area(key="pq_note").value == ""
    at.text_area(key="pq_note").input("Lost on the acronym.")
    at.button(key="pq_note_save").click().run()
    assert_clean(at)
    other = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "perquery", baseline="pircRBa1",
                      run="aplrob03a", measure="nDCG@10", query=qid)
    assert other.text_area(key="pq_note").value == "Lost on the acronym."


def test_curves_single_query(app):
    at = open_page(app, "curves", runs=["pircRBa1", "humR03dc"])
    assert_clean(at)
    assert at.multiselect(key="cv_runs").value == ["pircRBa1", "humR03dc"]
    qid = at.selectbox(key="cv_query").options[1].split(":")[0]
    at.selectbox(key="cv_query").set_value(qid).run()
    assert_clean(at)
    assert url(at, "query") == [qid]


def test_agreement_binary_and_measure(app):
    at = open_page(app, "agreement")
    assert_clean(at)
    assert at.multiselect(key="ag_qrels").value == ["NIST", "simulated-B"]
    assert "Cohen's κ:" in texts(at)
    at.selectbox(key="ag_rel_level").set_value("1").run()
    at.selectbox(key="ag_measure").set_value("P@10").run()
    assert_clean(at)
    assert "Kendall" in " ".join(str(m.value) for m in at.get("plotly_chart")) or keyed(at, "ag_slope_taus")


def test_measures_filter(app):
    at = open_page(app, "measures")
    at.text_input(key="ms_filter").input("ndcg").run()
    assert_clean(at)
    names = list(frame(at, "ms_table")["Measure"])
    assert names and all("dcg" in n.lower() for n in names)


def test_measures_show_their_source(app):
    at = open_page(app, "measures")
    table = frame(at, "ms_table").set_index("Measure")
    assert table.loc["hits", "Source"] == "ranx" and table.loc["Compat", "Source"] == "ir_measures"
    assert table.loc["AP", "Source"] == "trec_eval, ir_measures, ranx" and table.loc["SetFbeta", "Source"] == "textbook"
    at.text_input(key="ms_filter").input("ranx").run()
    assert_clean(at)
    assert "hits" in set(frame(at, "ms_table")["Measure"])
    assert any("differs from a peer" in e.label for e in at.expander)


def test_data_rename_and_delete_ask_first(private_app):
    at = open_page(private_app, "data")
    assert_clean(at)
    assert [m.label for m in at.metric][:3] == ["Runs", "Topics", "Qrels sets"]
    assert at.metric[0].value == "5"
    at.selectbox(key="data_manage_run").set_value("humR03dc").run()
    at.text_input(key="data_rename_to").input("renamed-run").run()
    at.button(key="data_rename").click().run()
    assert_clean(at)
    assert "renamed-run" in list(frame(at, "data_runs_table")["name"])
    at.button(key="data_delete").click().run()
    assert "cannot be undone" in texts(at) and at.metric[0].value == "5"
    at.button(key="data_delete_cancel").click().run()
    assert at.metric[0].value == "5"
    at.button(key="data_delete").click().run()
    at.button(key="data_delete_confirm").click().run()
    assert_clean(at)
    assert at.metric[0].value == "4"
    assert "renamed-run" not in list(frame(at, "data_runs_table")["name"])


def test_create_collection_and_empty_states(private_app):
    at = open_page(private_app, "data")
    at.text_input(key="data_new_collection").input("empty-one").run()
    at.button(key="data_create_collection").click().run()
    assert_clean(at)
    assert at.selectbox(key="sidebar_collection").value == "empty-one"
    for page in ("leaderboard", "perquery", "curves", "agreement"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert_clean(at)
        assert "Upload" in texts(at) or "upload" in texts(at)
        assert at.get("page_link"), page


def test_store_that_cannot_open_is_reported(tmp_path, monkeypatch):
    bad = tmp_path / "not-a-store.duckdb"
    bad.write_text("this is not a DuckDB file")
    monkeypatch.setenv("RANKBOARD_STORE", str(bad))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    # plain words for every visitor: damaged, what to do, and no path, interpreter or process id
    from core.errors import StoreDamagedError
    assert [e.value for e in at.error] == [StoreDamagedError.public]
    assert str(tmp_path) not in StoreDamagedError.public and "python" not in StoreDamagedError.public.lower()


def test_ranked_lists_show_grades_and_document_text(tmp_path, monkeypatch):
    store = sample_store(tmp_path)
    run_id = int(store.runs(SAMPLE_COLLECTION).iloc[0]["run_id"])
    rows = store.run_rows(run_id)
    qid = str(rows["qid"].iloc[0])
    top = rows[rows["qid"] == qid].sort_values("rank").head(3)["docno"].tolist()
    docs = "".join(f"{d}\tText of <b>{d}</b> *not bold*\n" for d in top)
    store.add_documents(SAMPLE_COLLECTION, docs.encode(), filename="docs.tsv")
    store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    names = None
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "perquery", query=qid)
    assert_clean(at)
    names = [at.selectbox(key="pq_baseline").value, at.selectbox(key="pq_run").value]
    assert len(set(names)) == 2
    lists = [frame(at, "pq_list_a_table"), frame(at, "pq_list_b_table")]
    assert all(set(df["grade"]) <= {"0", "1", "2", "3", "unjudged"} for df in lists)
    shown = [t.value for t in keyed(at, "pq_list_a").text] + [t.value for t in keyed(at, "pq_list_b").text]
    assert any(f"Text of <b>{top[0]}</b> *not bold*" == s for s in shown)   # plain text, never HTML


def test_run_colours_are_stable_and_distinct():
    from dashboard.components.palette import run_colors
    names = [f"run{i}" for i in range(17)]
    colors = run_colors(names)
    assert len(set(colors.values())) == 17
    assert run_colors(list(reversed(names))) == colors          # order of the input does not matter
    assert run_colors(["a"])["a"] == run_colors(["a"])["a"]


def test_typed_measure_follows_to_per_query(app):
    at = open_page(app, "leaderboard", measures=["AP", "P@30"])
    at.switch_page("app_pages/perquery.py").run()
    assert_clean(at)
    assert "P@30" in at.selectbox(key="pq_measure").options


ODD = "<b>x</b>*y* $a$ `c` :red[z] _u_"


def _markdown_values(at) -> list[str]:
    """Every element whose text Streamlit renders as markdown."""
    kinds = ("markdown", "caption", "info", "warning", "success", "error", "subheader", "title")
    return [str(e.value) for kind in kinds for e in getattr(at, kind)]


def _chart_specs(at) -> str:
    """The plotly figures as decoded JSON text (the wire format escapes < and &)."""
    import json
    return "\n".join(json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart"))


def test_a_run_named_with_markdown_and_html_renders_literally(tmp_path, monkeypatch):
    """A run name full of markdown, math, directives and HTML reaches every markdown element with a
    backslash before each special character, and every plotly chart HTML-escaped."""
    from core.store.store import Store
    from dashboard.components.feedback import md_escape
    sample_store(tmp_path).close()
    store = Store.open(tmp_path / "sample.duckdb", load_sample=False)
    runs = store.runs(SAMPLE_COLLECTION)
    store.rename_run(int(runs["run_id"].iloc[0]), ODD)
    other = str(runs["name"].iloc[1])
    store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    views = [("leaderboard", {"baseline": ODD}), ("perquery", {"baseline": ODD, "run": other}),
             ("curves", {"runs": [ODD, other]}), ("agreement", {}), ("fusion", {"parts": [ODD, other]})]
    for page, params in views:
        at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), page, **params)
        assert_clean(at)
        shown = _markdown_values(at)
        assert not [v for v in shown if ODD in v or "*y*" in v], (page, shown)
        specs = _chart_specs(at)
        assert specs and "<b>x</b>" not in specs, page
        if page in ("leaderboard", "perquery", "fusion"):     # captions / headings that name the run
            assert any(md_escape(ODD) in v for v in shown), (page, shown)
        if page != "agreement":                     # chart labels, legends and titles that name it
            assert "&lt;b&gt;x&lt;/b&gt;*y*" in specs, page


def test_md_escape_leaves_no_markdown_character_bare():
    from dashboard.components.escape import BREAK
    from dashboard.components.feedback import md_escape
    escaped = md_escape(ODD + " [link](http://x) # h | t ~s~ 1. <script>").replace(BREAK, "")   # our own markup
    bare = [ch for i, ch in enumerate(escaped) if ch in "\\`*_{}[]()#+-.!|<>~$:" and
            (i == 0 or escaped[i - 1] != "\\") and not (ch == "\\" and i + 1 < len(escaped))]
    assert bare == []


def test_perquery_offers_the_topic_table_and_both_ranked_lists_as_csv(app):
    import io

    import pandas as pd

    from dashboard.components.perquery import lists_csv
    at = open_page(app, "perquery", baseline="pircRBa1", run="aplrob03a", measure="AP")
    qid = at.selectbox(key="pq_query").options[1].split(":")[0]
    at.selectbox(key="pq_query").set_value(qid).run()
    assert_clean(at)
    labels = {b.proto.id.rsplit("-", 1)[-1]: b.proto.label for b in at.get("download_button")}
    assert labels == {"pq_table_csv": "Download this table (CSV)", "pq_lists_csv": "Download both lists (CSV)"}
    a, b = frame(at, "pq_list_a_table"), frame(at, "pq_list_b_table")
    left = pd.DataFrame({"rank": a["rank"], "docno": a["docno"], "grade": [1, None] + [0] * (len(a) - 2),
                         "other_rank": None, "score": a["score"]})
    right = left.iloc[:3].assign(docno=list(b["docno"][:3]))
    back = pd.read_csv(io.StringIO(lists_csv(left, right, run_a="pircRBa1", run_b="aplrob03a", qid=qid)),
                       dtype={"topic": str})
    assert list(back.columns) == ["topic", "run", "role", "rank", "docno", "grade", "other_rank", "score"]
    assert len(back) == len(a) + 3 and set(back["topic"]) == {qid}
    assert list(back["docno"][:len(a)]) == list(a["docno"]) and list(back["docno"][len(a):]) == list(b["docno"][:3])
    assert back["role"].value_counts().to_dict() == {"baseline": len(a), "compared": 3}


def test_leaderboard_offers_csv_and_latex(app):
    at = open_page(app, "leaderboard", baseline="pircRBa1")
    assert_clean(at)
    labels = {b.proto.id.rsplit("-", 1)[-1]: b.proto.label for b in at.get("download_button")}
    assert labels == {"lb_download_csv": "Download CSV", "lb_download_latex": "Download LaTeX"}
    at.session_state["lb_tab"] = "Every pair"          # only the open tab runs: the runs x runs matrix
    at.run()
    labels = {b.proto.id.rsplit("-", 1)[-1]: b.proto.label for b in at.get("download_button")}
    assert labels == {"lb_download_csv": "Download CSV", "lb_download_latex": "Download LaTeX",
                      "lb_pairs_csv": "Download p-values (CSV)"}
