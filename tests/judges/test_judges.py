"""core.judges.report against independent oracles: sklearn's cohen_kappa_score, scipy's kendalltau, a loop for tau_AP
(Yilmaz et al. 2008), pytrec_eval (trec_eval's C code) for the means under every qrels set (reference, each
judge, each filled set, each run's upper-bound qrels built by a plain loop), a plain bootstrap loop, and a
plain loop over pairs of runs for the flips."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from core.errors import EvalError
from core.judges.report import judges_frames
from tests import oracle

# ir_measures name -> (pytrec_eval request, result key, cutoff or None)
MEASURES = {"nDCG@10": ("ndcg_cut.10", "ndcg_cut_10", 10), "P@5": ("P.5", "P_5", 5),
            "AP": ("map", "map", None), "R@20": ("recall.20", "recall_20", 20)}


def synthetic(seed: int = 7, topics: int = 9, docs: int = 60, n_judges: int = 3, n_runs: int = 5):
    """Reference with grades 0..3 and a few -1; judges that relabel, add labels, and miss topics; runs with
    ties in score, unjudged documents, a topic only in the runs and a topic only in the judges."""
    rng = np.random.default_rng(seed)
    ref = pd.DataFrame([(f"t{q}", f"d{d:03d}", int(rng.choice([-1, 0, 0, 1, 1, 2, 3])))
                        for q in range(topics - 1) for d in rng.choice(docs, 25, replace=False)],
                       columns=["qid", "docno", "rel"])
    judges = {}
    for j in range(n_judges):
        jj = ref[ref["qid"] != f"t{j}"].copy()                     # judge j skipped topic t{j}
        flip = rng.random(len(jj)) < 0.25 + 0.1 * j
        jj.loc[flip, "rel"] = np.minimum(jj.loc[flip, "rel"] + rng.integers(0, 3, flip.sum()), 3)  # over-rates
        extra = pd.DataFrame([(f"t{q}", f"d{d:03d}", int(rng.integers(0, 4)))
                              for q in range(topics) for d in rng.choice(docs, 8, replace=False)],
                             columns=["qid", "docno", "rel"])
        judges[f"judge-{j}"] = pd.concat([jj, extra]).drop_duplicates(["qid", "docno"]).reset_index(drop=True)
    runs = {}
    for r in range(n_runs):
        rows = [(f"t{q}", f"d{d:03d}", float(rng.integers(0, 8)))          # many tied scores
                for q in range(topics + 1) if not (r == 0 and q == 2) for d in rng.choice(docs, 30, replace=False)]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    return ref, judges, runs


def as_dict(frame, col):
    out = {}
    for row in frame.itertuples(index=False):
        out.setdefault(row.qid, {})[row.docno] = getattr(row, col)
    return out


def pytrec_mean(qrels: dict, run: dict, measure: str, rel_level: int = 1) -> float:
    request, key, _ = MEASURES[measure]
    got = pytrec_eval.RelevanceEvaluator(qrels, {request}, relevance_level=rel_level).evaluate(run)
    return float(np.mean([v[key] for v in got.values()])) if got else float("nan")


def filled_qrels(ref: dict, judge: dict) -> dict:
    out = {q: dict(d) for q, d in ref.items()}
    for q, docs in judge.items():
        if q in out:
            for d, rel in docs.items():
                out[q].setdefault(d, rel)
    return out


def upper_qrels(ref: dict, run: dict, cutoff, top: int) -> dict:
    out = {q: dict(d) for q, d in ref.items()}
    for q, docs in run.items():
        if q in out:
            ranked = oracle.canonical_order(docs)
            for d in ranked[:cutoff] if cutoff else ranked:
                out[q].setdefault(d, top)
    return out


def tau_ap_loop(a: dict, b: dict) -> float:
    order = sorted(b, key=lambda s: (-b[s], s))
    n, total = len(order), 0.0
    for i in range(1, n):
        total += sum(a[order[j]] > a[order[i]] for j in range(i)) / i
    return 2.0 / (n - 1) * total - 1.0


@pytest.fixture(scope="module")
def data():
    return synthetic()


@pytest.mark.parametrize("measure", list(MEASURES))
def test_means_filled_and_bounds_equal_pytrec_eval(data, measure):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs, measure=measure, reference_name="NIST")
    qref = as_dict(ref, "rel")
    cutoff = MEASURES[measure][2]
    top = int(ref["rel"].max())
    for name, frame in runs.items():
        run = as_dict(frame, "score")
        assert rep.reference_scores[name] == pytest.approx(pytrec_mean(qref, run, measure), abs=1e-12)
        assert rep.bounds.set_index("run").loc[name, "unjudged_nonrelevant"] == pytest.approx(
            pytrec_mean(qref, run, measure), abs=1e-12)
        upper = pytrec_mean(upper_qrels(qref, run, cutoff, top), run, measure)
        assert rep.bounds.set_index("run").loc[name, "unjudged_relevant"] == pytest.approx(upper, abs=1e-12)
        for jname, jframe in judges.items():
            qj = as_dict(jframe, "rel")
            assert rep.scores.loc[name, jname] == pytest.approx(pytrec_mean(qj, run, measure), abs=1e-12)
            assert rep.filled.loc[name, jname] == pytest.approx(
                pytrec_mean(filled_qrels(qref, qj), run, measure), abs=1e-12)
            shift = rep.shifts.set_index(["judge", "run"]).loc[(jname, name), "shift"]
            assert shift == pytest.approx(rep.scores.loc[name, jname] - rep.reference_scores[name], abs=1e-12)


def holes_loop(ref: dict, judge: dict, run: dict, cutoff) -> int:
    """The run's retrieved documents (within the cutoff) on the reference's topics that the reference did not judge
    and the judge did: the holes the judge fills."""
    n = 0
    for q, docs in run.items():
        if q in ref:
            ranked = oracle.canonical_order(docs)
            n += sum(d not in ref[q] and d in judge.get(q, {}) for d in (ranked[:cutoff] if cutoff else ranked))
    return n


@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
def test_filled_holes_count_what_each_judge_fills(data, measure):
    ref, judges, runs = data
    rep = judges_frames(ref, {**judges, "copy": ref.copy()}, runs, measure=measure, n_resamples=200)
    qref = as_dict(ref, "rel")
    for name, frame in runs.items():
        run = as_dict(frame, "score")
        for jname, jframe in judges.items():
            assert rep.filled_holes.loc[name, jname] == holes_loop(qref, as_dict(jframe, "rel"), run,
                                                                   MEASURES[measure][2])
    assert rep.filled_holes[list(judges)].to_numpy().sum() > 0
    assert (rep.filled_holes["copy"] == 0).all() and np.allclose(rep.filled["copy"], rep.reference_scores)


def test_rel_level_reaches_the_measures_and_binary_kappa(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs, measure="P@5", rel_level=2)
    run = as_dict(runs["run1"], "score")
    assert rep.reference_scores["run1"] == pytest.approx(pytrec_mean(as_dict(ref, "rel"), run, "P@5", 2))
    for jname, jframe in judges.items():
        both = ref[ref["rel"] >= 0].merge(jframe[jframe["rel"] >= 0], on=["qid", "docno"])
        expected = cohen_kappa_score(both["rel_x"] >= 2, both["rel_y"] >= 2)
        assert rep.table.set_index("judge").loc[jname, "binary_kappa"] == pytest.approx(expected, abs=1e-12)


def test_label_agreement_equals_sklearn(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs)
    table = rep.table.set_index("judge")
    r = ref[ref["rel"] >= 0]
    for jname, jframe in judges.items():
        j = jframe[jframe["rel"] >= 0]
        both = r.merge(j, on=["qid", "docno"])
        row = table.loc[jname]
        assert row["cohen_kappa"] == pytest.approx(cohen_kappa_score(both["rel_x"], both["rel_y"]), abs=1e-12)
        assert row["binary_kappa"] == pytest.approx(
            cohen_kappa_score(both["rel_x"] >= 1, both["rel_y"] >= 1), abs=1e-12)
        assert (row["n_common"], row["only_reference"], row["only_judge"]) == (len(both), len(r) - len(both),
                                                                                 len(j) - len(both))
        assert row["over_rate"] == pytest.approx((both["rel_y"] > both["rel_x"]).mean())
        assert row["under_rate"] == pytest.approx((both["rel_y"] < both["rel_x"]).mean())
        conf = rep.confusions[jname]
        expected = pd.crosstab(both["rel_x"], both["rel_y"]).reindex(index=conf.index, columns=conf.columns,
                                                                     fill_value=0)
        assert (conf.to_numpy() == expected.to_numpy()).all()
        topics = rep.per_topic[rep.per_topic["judge"] == jname].set_index("qid")
        for qid, part in both.groupby("qid"):
            assert topics.loc[qid, "n"] == len(part)
            assert topics.loc[qid, "agreement"] == pytest.approx((part["rel_x"] == part["rel_y"]).mean())
            if part["rel_x"].nunique() > 1 or part["rel_y"].nunique() > 1:
                assert topics.loc[qid, "cohen_kappa"] == pytest.approx(
                    cohen_kappa_score(part["rel_x"], part["rel_y"]), abs=1e-12)
        assert set(topics.index) == set(both["qid"])


def test_ranking_stability_equals_scipy_and_a_loop(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs)
    a = rep.reference_scores.to_dict()
    for row in rep.table.itertuples():
        b = rep.scores[row.judge].to_dict()
        assert row.kendall_tau == pytest.approx(stats.kendalltau(list(a.values()), [b[k] for k in a]).statistic)
        assert row.tau_ap == pytest.approx(tau_ap_loop(a, b))
        ra = {s: 1 + sum(a[t] > a[s] for t in a) for s in a}
        rb = {s: 1 + sum(b[t] > b[s] for t in b) for s in b}
        assert row.largest_rank_change == max(abs(ra[s] - rb[s]) for s in a)


def test_shift_interval_and_significance_equal_a_plain_bootstrap(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs, measure="nDCG@10", n_resamples=500, seed=3, correction="bonferroni")
    rows = rep.shifts.set_index(["judge", "run"])
    diffs = {}
    for jname, rname in itertools.product(judges, runs):
        run = as_dict(runs[rname], "score")
        ev = lambda q: pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(run)   # noqa: E731
        under_ref, under_j = ev(as_dict(ref, "rel")), ev(as_dict(judges[jname], "rel"))
        diffs[jname, rname] = {t: under_j[t]["ndcg_cut_10"] - under_ref[t]["ndcg_cut_10"]
                               for t in set(under_ref) & set(under_j)}
    axis = sorted(set().union(*diffs.values()))        # one draw of these topics serves every pair
    draws = np.random.default_rng(3).integers(0, len(axis), size=(500, len(axis)))
    ps = []
    for (jname, rname), by_topic in diffs.items():
        topics = sorted(by_topic)
        d = np.array([by_topic[t] for t in topics])
        means = []
        for idx in draws:
            drawn = [by_topic[axis[i]] for i in idx if axis[i] in by_topic]
            means.append(np.mean(drawn))
        means = np.array(means)
        row = rows.loc[(jname, rname)]
        assert row["n_topics"] == len(topics)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))
        p = (np.sum(np.abs(means - d.mean()) >= abs(d.mean()) - 1e-10 * max(np.abs(d).mean(), 1e-300)) + 1) / 501
        assert row["p_value"] == pytest.approx(p)
        ps.append(p)
    n = len(ps)
    assert list(rep.shifts["p_corrected"]) == pytest.approx([min(1.0, p * n) for p in ps])
    assert list(rep.shifts["significant"]) == [min(1.0, p * n) < 0.05 for p in ps]


def test_flips_equal_a_loop_over_pairs(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs, measure="P@5")
    b = rep.bounds.set_index("run")
    expected = {(x, y) for x in runs for y in runs
                if rep.reference_scores[x] > rep.reference_scores[y]
                and min(b.loc[x, "unjudged_nonrelevant"], b.loc[x, "unjudged_relevant"])
                < max(b.loc[y, "unjudged_nonrelevant"], b.loc[y, "unjudged_relevant"])}
    assert set(zip(rep.flips["a"], rep.flips["b"])) == expected and expected


def test_cutting_stage_one_at_the_cutoff_changes_nothing(data):
    """The speed trick (judged rows kept only down to the measure's cutoff) against its plain equivalent."""
    import duckdb

    from core.judges import scores as judges_scores
    from core.judges.tables import runs_table, stack_qrels
    from core.measures import EvalOptions, parse_measure

    ref, judges, runs = data
    for name in ("nDCG@10", "P@5", "R@20", "AP@10", "RR@10", "Judged@10"):
        con = duckdb.connect()
        stack_qrels(con, ref, list(judges.values()))
        runs_table(con, list(runs.values()))
        m = parse_measure(name)
        out = []
        for depth in (None, int(m.cutoff)):
            st = judges_scores.table_stage1(con, "jr", "jq", list(runs), depth)
            out.append(judges_scores.score_sets(con, "jq", st, len(judges), m, EvalOptions(), depth))
        full, cut = out
        assert np.allclose(full.means[:-1], cut.means[:-1], equal_nan=True), name
        assert np.array_equal(np.isnan(full.values[:-1]), np.isnan(cut.values[:-1]))


def test_json_keys_and_order(data):
    ref, judges, runs = data
    rep = judges_frames(ref, judges, runs, reference_name="NIST")
    obj = rep.to_dict()
    assert list(obj)[:4] == ["reference", "measure", "rel_level", "reference_scores"]
    assert obj["reference"] == "NIST" and obj["measure"] == "nDCG@10"
    assert [j["judge"] for j in obj["judges"]] == list(judges)
    for j in obj["judges"]:
        assert {"judge", "cohen_kappa", "binary_kappa", "n_common", "only_reference", "only_judge", "kendall_tau",
                "tau_ap", "scores", "shift"} <= set(j)
        assert set(j["scores"]) == set(runs) and set(j["shift"]) == set(runs)
        assert j["filled_holes"] == {r: int(rep.filled_holes.loc[r, j["judge"]]) for r in runs}
        assert all(v is None or math.isfinite(v) for v in j["shift"].values())
        kappas = [t["cohen_kappa"] for t in j["topics"] if t["cohen_kappa"] is not None]
        assert kappas == sorted(kappas) and {"qid", "n", "agreement", "cohen_kappa"} <= set(j["topics"][0])
    json.dumps(obj)                                                     # plain JSON types only


def test_a_run_with_no_topic_in_common_has_no_score():
    ref = pd.DataFrame({"qid": ["a", "a"], "docno": ["x", "y"], "rel": [1, 0]})
    judge = pd.DataFrame({"qid": ["a", "a"], "docno": ["x", "y"], "rel": [1, 1]})
    runs = {"r1": pd.DataFrame({"qid": ["a", "a"], "docno": ["x", "y"], "score": [2.0, 1.0]}),
            "r2": pd.DataFrame({"qid": ["b"], "docno": ["x"], "score": [1.0]})}
    rep = judges_frames(ref, {"j": judge}, runs, measure="P@5")
    assert rep.reference_scores["r1"] == pytest.approx(0.2) and math.isnan(rep.reference_scores["r2"])
    assert rep.to_dict()["judges"][0]["scores"]["r2"] is None


def test_no_judge_or_no_run_is_a_clear_error(data):
    ref, judges, runs = data
    with pytest.raises(EvalError, match="at least one judge"):
        judges_frames(ref, {}, runs)
    with pytest.raises(EvalError, match="at least one run"):
        judges_frames(ref, judges, {})


def test_vectorised_ranking_stability_equals_rankcorr_per_judge():
    """core.judges.ranking (all judges at once) against its plain equivalent, core.agreement.rankcorr one judge at a time,
    with ties in either ordering, tied names, missing runs and too few runs."""
    from core.judges.ranking import ranking_table
    from core.agreement.rankcorr import kendall_tau, tau_ap

    rng = np.random.default_rng(5)
    runs = [f"r{i:02d}" for i in range(12)]
    for _ in range(30):
        ref = rng.integers(0, 5, len(runs)).astype(float)
        scores = rng.integers(0, 5, (6, len(runs))).astype(float)
        scores[rng.random(scores.shape) < 0.1] = np.nan
        scores[5, :2], scores[5, 2:] = (1.0, 3.0), np.nan                 # two runs left: still defined
        got = ranking_table(ref, scores, runs)
        for j in range(len(scores)):
            a, b = pd.Series(ref, index=runs), pd.Series(scores[j], index=runs)
            both = pd.DataFrame({"a": a, "b": b}).dropna()
            assert got["kendall_tau"][j] == pytest.approx(kendall_tau(a, b), nan_ok=True)
            assert got["tau_ap"][j] == pytest.approx(tau_ap(a, b))
            change = (both["a"].rank(ascending=False, method="min") - both["b"].rank(ascending=False, method="min"))
            assert got["largest_rank_change"][j] == int(change.abs().max())
    one = ranking_table(np.array([1.0, 2.0]), np.array([[np.nan, 1.0]]), ["x", "y"])
    assert np.isnan(one["kendall_tau"][0]) and np.isnan(one["tau_ap"][0])


def test_a_judge_identical_to_the_reference_agrees_perfectly(data):
    ref, _, runs = data
    rep = judges_frames(ref, {"copy": ref.copy()}, runs, measure="nDCG@10", n_resamples=200)
    row = rep.table.iloc[0]
    assert (row["cohen_kappa"], row["binary_kappa"], row["kendall_tau"], row["tau_ap"]) == (1.0, 1.0, 1.0, 1.0)
    assert row["largest_rank_change"] == 0 and row["over_rate"] == 0 and row["under_rate"] == 0
    assert (rep.shifts["shift"] == 0).all() and not rep.shifts["significant"].any()
    assert np.allclose(rep.filled["copy"], rep.reference_scores)
    assert (rep.per_topic["agreement"] == 1).all()


def test_ranks_from_numpy_equal_the_sql_window(data):
    """runs_table's canonical ranks (core.engine.stage1.order, numpy) against the plain equivalent, the SQL window."""
    import duckdb

    from core.judges import scores as judges_scores
    from core.judges.tables import runs_table, stack_qrels

    ref, judges, runs = data
    got = []
    for ranked in (True, False):
        con = duckdb.connect()
        stack_qrels(con, ref, list(judges.values()))
        runs_table(con, list(runs.values()), ranked=ranked)
        st = judges_scores.table_stage1(con, "jr", "jq", list(runs), None)
        order = np.lexsort((st.rank, st.topic, st.run, st.s))
        got.append((st.s[order], st.run[order], st.topic[order], st.rank[order], st.rel[order], st.num_ret))
    for a, b in zip(*got):
        assert np.array_equal(a, b)
