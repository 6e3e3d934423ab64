"""The diversity family gives pyndeval's number (what ir_measures runs): random subtopic qrels and runs, every
measure per query at 1e-4, with alpha, beta, rel levels, score ties, judged_only, -M and -c; plus ir_measures itself
for the spellings it accepts, and one example worked by hand."""
from __future__ import annotations

import math

import ir_measures
import pandas as pd
import pyndeval
import pytest

from core.engine.diversity import evaluate_diversity, evaluate_diversity_files
from core.errors import EvalError
from core.engine.evaluate import EvalOptions
from core.measures import parse_measure
from tests.cases.diversity import IR_MEASURES_NAMES, QRELS, RUN, WORKED, random_case

TOL = 1e-4
CUTS = (1, 2, 3, 5, 10, 20)
# Rankboard family -> pyndeval's measure name
NDEVAL = {"alpha_nDCG": "alpha-nDCG", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
          "P_IA": "P-IA", "StRecall": "strec", "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}


def frames(qrels, run):
    return (pd.DataFrame(qrels, columns=["qid", "subtopic", "docno", "rel"]),
            pd.DataFrame(run, columns=["qid", "docno", "score"]))


def ours(qrels, run, names, options=EvalOptions()):
    if not qrels:
        return {}
    pq = evaluate_diversity(*frames(qrels, run), names, options).per_query
    return {(m, q): v for m, q, v in zip(pq["measure"], pq["qid"], pq["value"])}


def pyndeval_values(qrels, run, names, rel=1, alpha=0.5, beta=0.5):
    """pyndeval on the measures `names` (Rankboard spellings with one alpha/beta/rel): {(name, qid): value}."""
    if not qrels:
        return {}
    asked = {}
    for n in names:
        m = parse_measure(n)
        asked[NDEVAL[m.family.name] + (f"@{m.cutoff}" if m.cutoff else "")] = m.name
    ev = pyndeval.RelevanceEvaluator(qrels, list(asked), relevance_level=rel, alpha=alpha, beta=beta)
    by_topic = {}
    for qid, doc, score in run:
        by_topic.setdefault(qid, []).append((qid, doc, score))
    out = {}
    for qid in sorted(by_topic):
        for key, value in ev.evaluate(by_topic[qid]).get(qid, {}).items():
            out[(asked[key], qid)] = value
    return out


def compare(mine: dict, theirs: dict, context: str, extra_zero: bool = False):
    """Per (measure, qid) at TOL. `extra_zero`: Rankboard may also report topics the oracle's (filtered) run lost
    entirely, at 0 (ir_measures gives 0 there too)."""
    if extra_zero:
        mine = {k: v for k, v in mine.items() if k in theirs or v != 0.0}
    wrong = {}
    for key, v in theirs.items():
        expect = 0.0 if math.isnan(v) else v                     # pyndeval's 0/0 nNRBP: Rankboard gives 0
        if key not in mine or abs(mine[key] - expect) > TOL:
            wrong[key] = (mine.get(key), v)
    assert set(mine) == set(theirs), (set(mine) ^ set(theirs), context)
    assert not wrong, f"(measure, qid): (rankboard, pyndeval) {wrong}\n{context}"


def _all(params: str = "", rel: int | None = None):
    inner = ",".join(p for p in (params, f"rel={rel}" if rel is not None else "") if p)
    with_alpha = f"({inner})" if inner else ""
    plain_inner = ",".join(p for p in (f"rel={rel}" if rel is not None else "",) if p)
    plain = f"({plain_inner})" if plain_inner else ""
    names = [f"alpha_nDCG{with_alpha}@{k}" for k in CUTS] + [f"alpha_DCG{with_alpha}@{k}" for k in CUTS]
    names += [f"{f}{plain}@{k}" for f in ("ERR_IA", "nERR_IA", "P_IA", "StRecall") for k in CUTS]
    return names + [f"AP_IA{plain}"]


@pytest.mark.parametrize("seed", range(40))
def test_every_measure_matches_pyndeval(seed):
    qrels, run = random_case(seed)
    names = _all() + ["NRBP", "nNRBP"]
    compare(ours(qrels, run, names), pyndeval_values(qrels, run, names), f"qrels={qrels}\nrun={run}")


@pytest.mark.parametrize("seed,alpha,beta,rel", [(1, 0.3, 0.8, 1), (2, 0.9, 0.2, 2), (3, 1.0, 0.5, 1),
                                                 (4, 0.0, 0.95, 1), (5, 0.7, 0.99, 0), (6, 0.25, 1.0, 1)])
def test_parameters_match_pyndeval(seed, alpha, beta, rel):
    qrels, run = random_case(100 + seed)
    names = _all(f"alpha={alpha}", rel) + [f"NRBP(alpha={alpha},beta={beta},rel={rel})",
                                            f"nNRBP(alpha={alpha},beta={beta},rel={rel})"]
    with_alpha = [n for n in names if parse_measure(n).family.param("alpha") is not None]
    theirs = pyndeval_values(qrels, run, with_alpha, rel=rel, alpha=alpha, beta=beta)
    # ERR_IA, P_IA, AP_IA and StRecall take no alpha in ir_measures: its provider runs them at ndeval's 0.5
    theirs.update(pyndeval_values(qrels, run, [n for n in names if n not in with_alpha], rel=rel))
    compare(ours(qrels, run, names), theirs, f"alpha={alpha} beta={beta} rel={rel}\nqrels={qrels}\nrun={run}")


@pytest.mark.parametrize("seed", range(6))
def test_rel_level_option_is_rel(seed):
    """-l 2 (EvalOptions.rel_level) is rel=2 for every diversity measure, as for the other families."""
    qrels, run = random_case(200 + seed)
    a = ours(qrels, run, _all(), EvalOptions(rel_level=2))
    b = ours(qrels, run, _all(rel=2))
    assert [round(v, 12) for v in a.values()] == [round(v, 12) for v in b.values()]


@pytest.mark.parametrize("seed", range(8))
def test_judged_only_and_depth(seed):
    """judged_only=True drops the documents without a subtopic qrels line (ir_measures' filter; its pyndeval
    provider crashes on it in 0.4.3, so pyndeval on the filtered run is the oracle); -M cuts each ranking."""
    qrels, run = random_case(300 + seed)
    judged = {(q, d) for q, _, d, _ in qrels}
    filtered = [r for r in run if (r[0], r[1]) in judged]
    names = [n for n in _all() if not n.startswith("StRecall")]
    mine = ours(qrels, run, [n.replace("@", "(judged_only=True)@") if "@" in n else n + "(judged_only=True)"
                             for n in names])
    mine = {(parse_measure(m.replace("judged_only=True", "")).name if "(judged_only=True)" in m else
             m.replace("judged_only=True,", "").replace(",judged_only=True", ""), q): v for (m, q), v in mine.items()}
    compare(mine, pyndeval_values(qrels, filtered, names), f"qrels={qrels}\nrun={run}", extra_zero=True)
    assert ours(qrels, run, names, EvalOptions(judged_only=True)) == mine
    depth = 4
    ranked = sorted(run, key=lambda r: (r[0], -r[2], r[1]))
    cut = [r for i, r in enumerate(ranked) if sum(1 for x in ranked[:i] if x[0] == r[0]) < depth]
    compare(ours(qrels, run, _all() + ["NRBP", "nNRBP"], EvalOptions(max_depth=depth)),
            pyndeval_values(qrels, cut, _all() + ["NRBP", "nNRBP"]), f"-M {depth}")
    both = ours(qrels, run, names, EvalOptions(max_depth=depth, judged_only=True))      # -M first, then -J
    compare(both, pyndeval_values(qrels, [r for r in cut if (r[0], r[1]) in judged], names), "-M -J",
            extra_zero=True)


@pytest.mark.parametrize("seed", range(10))
def test_ir_measures_itself(seed):
    """ir_measures (its pyndeval provider) on the names it accepts; it gives 0 for a qrels topic missing from the
    run, as Rankboard does with -c."""
    qrels, run = random_case(400 + seed)
    if not qrels:
        return
    names = IR_MEASURES_NAMES
    qdf = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    rdict = {}
    for q, d, s in run:
        rdict.setdefault(q, {})[d] = s
    mine = ours(qrels, run, names, EvalOptions(complete=True))
    wrong = {}
    for name in names:
        for metric in ir_measures.iter_calc([ir_measures.parse_measure(name)], qdf, rdict):
            expect = 0.0 if math.isnan(metric.value) else metric.value
            got = mine.get((parse_measure(name).name, metric.query_id))
            if got is None or abs(got - expect) > TOL:
                wrong[(name, metric.query_id)] = (got, metric.value)
    assert not wrong, f"(measure, qid): (rankboard, ir_measures) {wrong}\nqrels={qrels}\nrun={run}"


def test_worked_example_by_hand():
    """tests/cases/diversity.py: every family on a topic worked by hand from ndeval's definitions."""
    got = ours(QRELS, RUN, list(WORKED))
    for name, value in WORKED.items():
        assert got[(name, "1")] == pytest.approx(value, abs=1e-12), name
    ndeval = [n for n in WORKED if parse_measure(n).family.name in NDEVAL]
    compare({k: v for k, v in got.items() if k[0] in ndeval}, pyndeval_values(QRELS, RUN, ndeval), "worked example")


@pytest.mark.parametrize("seed", range(10))
def test_textbook_alpha_dcg_is_ndevals_times_the_ideal_ideal(seed):
    """alpha_DCG_raw@k (Clarke et al.'s sum) = ndeval's alpha_DCG@k times sum_{i<=k} S (1-alpha)^(i-1)/log2(i+1)
    for k >= 2; at k = 1 the two are equal (ndeval does not divide there); raw also goes deeper than 20."""
    qrels, run = random_case(500 + seed)
    cuts = [1, 2, 5, 20]
    got = ours(qrels, run, [f"alpha_DCG(alpha=0.3)@{k}" for k in cuts] + [f"alpha_DCG_raw(alpha=0.3)@{k}" for k in cuts]
               + ["alpha_DCG_raw(alpha=0.3)@100"])
    subtopics = {}
    for q, s, _, rel in qrels:
        if rel >= 1:
            subtopics.setdefault(q, set()).add(s)
    for (name, qid), raw in got.items():
        if not name.startswith("alpha_DCG_raw") or name.endswith("@100"):
            continue
        k = int(name.split("@")[1])
        S = len(subtopics.get(qid, ()))
        ideal_ideal = sum(S * 0.7 ** (i - 1) / math.log2(i + 1) for i in range(1, k + 1)) if k > 1 else 1.0
        assert got[(f"alpha_DCG(alpha=0.3)@{k}", qid)] * (ideal_ideal if S else 0.0) == pytest.approx(raw, abs=1e-9)
        assert got[("alpha_DCG_raw(alpha=0.3)@100", qid)] >= got[("alpha_DCG_raw(alpha=0.3)@20", qid)] - 1e-12


def test_topics_like_trec_eval(tmp_path):
    """A qrels topic missing from the run is skipped with a warning (zero with -c); a topic whose judgments are all
    non-relevant scores 0 on every measure (pyndeval: NaN for nNRBP)."""
    q = tmp_path / "div.qrels"
    q.write_text("1 1 A 1\n1 2 B 1\n2 1 X 0\n3 1 Y 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 A 1 3.0 sys\n1 Q0 B 2 2.0 sys\n2 Q0 X 1 1.0 sys\n")
    res = evaluate_diversity_files(q, [r], ["nNRBP", "alpha_nDCG@5"])
    assert sorted(set(res.per_query["qid"])) == ["1", "2"]
    assert res.per_query.query("qid == '2'")["value"].tolist() == [0.0, 0.0]
    assert any("1 qrels topic(s) not in the run" in w and ": 3" in w for w in res.warnings)
    full = evaluate_diversity_files(q, [r], ["nNRBP"], EvalOptions(complete=True))
    assert sorted(full.per_query["qid"]) == ["1", "2", "3"] and full.num_q == {"sys": 3}


def test_refusals():
    qrels, run = frames([("1", "a", "A", 1)], [("1", "A", 1.0)])
    with pytest.raises(EvalError, match="down to rank 20 only"):
        evaluate_diversity(qrels, run, ["alpha_nDCG@30"])
    with pytest.raises(EvalError, match="not AP. Evaluate those against ordinary qrels"):
        evaluate_diversity(qrels, run, ["alpha_nDCG@10", "AP"])
    from core.engine.evaluate import evaluate_frames
    with pytest.raises(EvalError, match="needs subtopic qrels"):
        evaluate_frames(pd.DataFrame({"qid": ["1"], "docno": ["A"], "rel": [1]}), run, ["ERR_IA@10"])
    with pytest.raises(EvalError, match="needs a cutoff"):
        parse_measure("alpha_nDCG")
    with pytest.raises(EvalError, match="alpha is the chance .* from 0 to 1"):
        evaluate_diversity(qrels, run, ["alpha_nDCG(alpha=1.5)@10"])


@pytest.mark.parametrize("seed", range(5))
def test_topics_are_independent_of_their_neighbours(seed, monkeypatch):
    """The vectorised parts (all topics and runs at once, the greedy ideal a block of topics at a time) give each
    topic the value it gets alone: one topic per block (BLOCK_CELLS tiny) and each topic alone agree bit for bit."""
    import core.measures.subtopics as sub
    qrels, run = random_case(600 + seed)
    names = _all() + ["NRBP", "nNRBP", "alpha_DCG_raw@30"]
    together = ours(qrels, run, names)
    monkeypatch.setattr(sub, "BLOCK_CELLS", 1)
    assert ours(qrels, run, names) == together
    for qid in {q for q, _, _, _ in qrels}:
        alone = ours([x for x in qrels if x[0] == qid], [x for x in run if x[0] == qid], names)
        assert alone == {k: v for k, v in together.items() if k[1] == qid}


@pytest.mark.parametrize("seed", range(5))
def test_bounded_measures_stay_in_range(seed):
    qrels, run = random_case(700 + seed)
    for (name, _), value in ours(qrels, run, [f"{f}@{k}" for f in ("P_IA", "StRecall") for k in CUTS]
                                 + ["AP_IA"]).items():
        assert 0.0 <= value <= 1.0 + 1e-12, name
