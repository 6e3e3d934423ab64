"""Agreement on real label pairs against the stored oracles.

- every row of kappa_reference/kappa_reference_sklearn.csv (scikit-learn 1.9.1 cohen_kappa_score),
  reproduced from the raw label files, to the CSV's 6 decimals;
- statsmodels' fleiss_kappa and the `krippendorff` package on trec_eval's qrels.123 (3 groups).
"""
from __future__ import annotations

import ast
import re

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from core.agreement.qrels import agreement, multi_agreement
from core.formats.qrels import read_qrels
from tests.cases.reference import reference_file

TOL = 5.1e-7   # the CSV is rounded to 6 decimals


def _load(name: str) -> pd.DataFrame:
    path = reference_file(name)
    return read_qrels(path, filename=path.name.removesuffix(".gz")).table.to_pandas()


@pytest.fixture(scope="module")
def label_sets():
    """Name -> qrels DataFrame for every label file the CSV's rows refer to (an LLM judge's file is named after it)."""
    q = "anserini_tools/qrels"
    sets = {"core17 NIST": _load(f"{q}/qrels.core17.txt.gz"),
            "CrowdTruth-binary": _load("crowdtruth_core17/derived/qrels_binary.core17.trecqrels.gz"),
            "CrowdTruth-ternary": _load("crowdtruth_core17/derived/qrels_ternary.core17.trecqrels.gz"),
            "rag25 NIST": _load(f"{q}/qrels.rag25.test.txt.gz"),
            "umbrela2": _load(f"{q}/qrels.rag25.test-umbrela2.txt.gz"),
            "llmjudge NIST": _load("llmjudge/human/llmjudge_test_qrel_idx.txt.gz")}
    for row in _rows():
        judge = _pair(row)[1]
        if row["pair"].startswith("llmjudge") and judge not in sets:
            sets[judge] = _load(f"llmjudge/llm_judges/{judge}.txt.gz")
    jg = read_qrels(reference_file("trec_eval_test/qrels.123.gz"), filename="qrels.123", judgment_groups=True)
    for g, table in jg.by_group().items():
        sets[f"jg{g}"] = table.to_pandas()
    return sets


def _rows():
    return pd.read_csv(reference_file("kappa_reference/kappa_reference_sklearn.csv.gz")).to_dict("records")


def _pair(row) -> tuple[str, str, int | None]:
    """Map a CSV row to (label set A, label set B, relevance threshold)."""
    pair, scheme = row["pair"], row["scheme"]
    level = re.search(r"rel>=(\d)", scheme)
    level = int(level.group(1)) if level and "binary" in scheme else None
    if pair.startswith("trec_eval qrels.123"):
        a, b = pair.split()[-3], pair.split()[-1]
    else:
        prefix, b = pair.split(" vs ")
        a = {"core17": "core17 NIST", "rag25": "rag25 NIST", "llmjudge": "llmjudge NIST"}[prefix.split()[0]]
    return a, b, level


def _positions(df: pd.DataFrame, labels) -> pd.DataFrame:
    """Replace each grade by its index in the sorted label union: what sklearn's weights see."""
    return df.assign(rel=np.searchsorted(labels, df["rel"]))


def test_the_csv_has_every_pair_we_expect():
    rows = _rows()
    assert len(rows) == 74     # core17 x2, rag25 x3, llmjudge 33 x2, qrels.123 x3
    assert sum(r["pair"].startswith("llmjudge") for r in rows) == 66     # 33 judges x (raw, binary)


def test_every_sklearn_row_is_reproduced(label_sets):
    checked = noncontiguous = 0
    for row in _rows():
        name_a, name_b, level = _pair(row)
        a, b = label_sets[name_a], label_sets[name_b]
        res = agreement(a, b, rel_level=level, weights="linear")
        where = f"{row['pair']} / {row['scheme']}"
        assert res.n_common == row["n_common_items"], where
        conf = res.confusion
        assert {int(k): int(v) for k, v in conf.sum(axis=1).items() if v} == ast.literal_eval(row["labels_a"]), where
        assert {int(k): int(v) for k, v in conf.sum(axis=0).items() if v} == ast.literal_eval(row["labels_b"]), where
        assert res.p_observed == pytest.approx(row["observed_agreement"], abs=TOL), where
        assert res.cohen_kappa == pytest.approx(row["kappa_unweighted_sklearn"], abs=TOL), where
        assert res.cohen_kappa == pytest.approx(row["kappa_unweighted_plain"], abs=TOL), where

        # sklearn's weighted kappa uses label positions; ours uses grade values. Feeding our
        # function the positions must reproduce sklearn exactly ...
        labels = conf.index.to_numpy()
        a, b = a[a["rel"] >= 0], b[b["rel"] >= 0]          # unjudged (-1) dropped, as agreement() does
        if level is not None:
            a, b = a.assign(rel=(a["rel"] >= level).astype(int)), b.assign(rel=(b["rel"] >= level).astype(int))
        a_pos, b_pos = _positions(a, labels), _positions(b, labels)
        for weights, column in (("linear", "kappa_linear_sklearn"), ("quadratic", "kappa_quadratic_sklearn")):
            by_position = agreement(a_pos, b_pos, weights=weights).weighted_kappa
            assert by_position == pytest.approx(row[column], abs=TOL), (where, weights)
        # ... and on grade values the two coincide exactly when the grades are consecutive.
        contiguous = np.array_equal(labels, np.arange(labels.min(), labels.max() + 1))
        if contiguous:
            assert res.weighted_kappa == pytest.approx(row["kappa_linear_sklearn"], abs=TOL), where
        else:
            noncontiguous += 1
            assert abs(res.weighted_kappa - row["kappa_linear_sklearn"]) > 10 * TOL, where
        checked += 1
    assert checked == 74
    assert noncontiguous == 4    # RMITIR-llama70B (a '5'), h2oloo-zeroshot2 (a '10'), qrels.123 raw (a '6', no '5') x2


def _reliability(sets) -> np.ndarray:
    """Raters x items matrix with NaN where a rater did not judge, for the krippendorff package."""
    wide = pd.concat({n: s[s["rel"] >= 0].set_index(["qid", "docno"])["rel"] for n, s in sets.items()}, axis=1)
    return wide.to_numpy(dtype=float).T


def test_fleiss_and_krippendorff_on_qrels_123(label_sets):
    groups = {g: label_sets[g] for g in ("jg0", "jg1", "jg2")}
    multi = multi_agreement(list(groups.values()), names=list(groups))
    data = _reliability(groups)
    complete = data[:, ~np.isnan(data).any(axis=0)].T.astype(int)
    table, _ = aggregate_raters(complete)
    assert multi.n_items_all == len(complete) == 2644
    assert multi.fleiss_kappa == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert multi.alpha[level] == pytest.approx(expected, abs=1e-10), level
    assert multi.n_items_pairable == 3377


@pytest.mark.parametrize("name_a,name_b", [("core17 NIST", "CrowdTruth-ternary"), ("rag25 NIST", "umbrela2"),
                                           ("llmjudge NIST", "RMITIR-llama70B")])
def test_pairwise_alpha_matches_krippendorff_package(label_sets, name_a, name_b):
    res = agreement(label_sets[name_a], label_sets[name_b])
    data = _reliability({"a": label_sets[name_a], "b": label_sets[name_b]})
    data = data[:, ~np.isnan(data).any(axis=0)]
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert res.alpha[level] == pytest.approx(expected, abs=1e-10), level


def test_kappa_by_threshold_collapses_the_graded_matrix(label_sets):
    from core.agreement.qrels import kappa_by_threshold
    res = agreement(label_sets["rag25 NIST"], label_sets["umbrela2"])
    table = kappa_by_threshold(res).set_index("rel_level")
    assert list(table.index) == [1, 2, 3, 4]
    assert table.loc[1, "cohen_kappa"] == pytest.approx(0.367239, abs=TOL)     # CSV: binary rel>=1
    assert table.loc[2, "cohen_kappa"] == pytest.approx(0.431042, abs=TOL)     # CSV: binary rel>=2
    assert (table.loc[2, "relevant_a"], table.loc[2, "relevant_b"]) == (5166, 5361)
    for level in (3, 4):
        direct = agreement(label_sets["rag25 NIST"], label_sets["umbrela2"], rel_level=level)
        assert table.loc[level, "cohen_kappa"] == pytest.approx(direct.cohen_kappa, abs=1e-12)
        assert table.loc[level, "pooled_kappa"] == pytest.approx(direct.pooled_kappa, abs=1e-12)
