"""The registry is complete and self-consistent: every family documented, covered by a golden or
worked-example row, and every name (canonical or trec_eval) parses back to the same measure."""
from __future__ import annotations

import pytest

from core.measures import ALL_TREC_9, ALL_TREC_10, OFFICIAL, REGISTRY, labelled, parse_measure, parse_measures
from core.measures.base import make
from tests.cases.diversity import WORKED as DIVERSITY_WORKED
from tests.cases.golden import CASES
from tests.cases.measures import WORKED
from tests.cases.prefs import PREFS_GOLDEN
from tests.cases.worked_examples import WORKED_EXAMPLE_MEASURES


def _covered_families() -> set[str]:
    golden = set()
    for case in CASES:
        golden |= {m.family.name for _, m in labelled(list(case.measures), compat=case.compat)}
    for args, _ in PREFS_GOLDEN:
        golden |= {m.family.name for _, m in labelled([args[args.index("-m") + 1]])}
    worked = {parse_measure(m).family.name for m, _, _ in WORKED}
    worked |= {parse_measure(m).family.name for m in WORKED_EXAMPLE_MEASURES}
    worked |= {parse_measure(m).family.name for m in DIVERSITY_WORKED}
    return golden | worked


@pytest.mark.parametrize("family", REGISTRY, ids=[f.name for f in REGISTRY])
def test_family_is_documented(family):
    assert family.description and "\n" not in family.description, "needs a one-line description"
    assert family.formula.strip(), "needs a formula for the help page"
    assert family.reference.strip(), "needs a reference"
    assert family.agg in ("mean", "sum", "gm", "text")
    for p in family.params:
        if p.default is not None:                 # None: required (max_rel) or chosen at compute time (RBP's p)
            p.coerce(family.name, p.default)      # defaults pass their own validation
        else:
            assert p.required or p.help, f"{p.name}: a None default needs required=True or a help text saying why"


@pytest.mark.parametrize("family", REGISTRY, ids=[f.name for f in REGISTRY])
def test_family_has_golden_or_worked_row(family):
    assert family.name in _covered_families(), (
        f"{family.name} has no golden (trec_eval reference) or worked-example row; add one to "
        "tests/cases/measures.py WORKED or tests/cases/worked_examples.py ROWS")


def test_all_trec_sets():
    assert len(ALL_TREC_9) == 93 and len(ALL_TREC_10) == 98
    assert [m.trec_name for m in parse_measures(["official"])] == list(OFFICIAL)
    labels = [label for label, _ in labelled(["all_trec"], compat=10)]
    assert labels == list(ALL_TREC_10)                  # trec_eval's order, trec_eval's spelling


@pytest.mark.parametrize("name", sorted(set(ALL_TREC_10)))
def test_trec_names_round_trip(name):
    m = parse_measure(name)
    if name == "Rprec_mult_1.00":
        assert m == parse_measure("Rprec")              # the same number under two trec_eval names
    else:
        assert m.trec_name == name
    assert parse_measure(m.name) == m                   # canonical name parses back


@pytest.mark.parametrize("text,canonical,trec", [
    ("AP", "AP", "map"), ("MAP", "AP", "map"), ("AP@100", "AP@100", "map_cut_100"),
    ("P@10", "P@10", "P_10"), ("P(rel=2)@10", "P(rel=2)@10", None), ("R@1000", "R@1000", "recall_1000"),
    ("nDCG@10", "nDCG@10", "ndcg_cut_10"), ("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@10", None),
    ('nDCG(dcg="jk")@5', "nDCG(dcg='jk')@5", None), ("nDCG(dcg='log2')@10", "nDCG@10", "ndcg_cut_10"),
    ("RR", "RR", "recip_rank"), ("RR@10", "RR@10", None), ("Rprec", "Rprec", "Rprec"), ("Bpref", "Bpref", "bpref"),
    ("IPrec@0.1", "IPrec@0.1", "iprec_at_recall_0.10"), ("Success@5", "Success@5", "success_5"),
    ("SetP", "SetP", "set_P"), ("SetR", "SetR", "set_recall"), ("SetF", "SetF", "set_F"),
    ("SetF(beta=1)", "SetF", "set_F"), ("SetF(beta=0.5)", "SetF(beta=0.5)", "set_F_0.5"),
        ("SetFbeta(beta=0.5)", "SetFbeta(beta=0.5)", None), ("JudgedK@10", "JudgedK@10", None), ("Judged", "Judged", None),
    ("NumRet", "NumRet", "num_ret"), ("NumRel", "NumRel", "num_rel"), ("NumRelRet", "NumRelRet", "num_rel_ret"),
    ("infAP", "infAP", "infAP"), ("gm_map", "gm_map", "gm_map"), ("Rprec_mult_0.20", "Rprec(mult=0.2)", "Rprec_mult_0.20"),
    ("Rcap@10", "Rcap@10", "relative_P_10"), ("AP(norm='found')@10", "AP(norm='found')@10", None),
    ("F(beta=2)@10", "F(beta=2)@10", None), ("E(beta=0.5)@10", "E(beta=0.5)@10", None),
    ("Judged@10", "Judged@10", None), ("AUC", "AUC", None), ("DCG(dcg='jk')@10", "DCG(dcg='jk')@10", None),
])
def test_names(text, canonical, trec):
    m = parse_measure(text)
    assert (m.name, m.trec_name) == (canonical, trec)


def test_trec_family_names_expand_to_default_cutoffs():
    assert [m.name for m in parse_measures(["P"])] == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in parse_measures(["ndcg_cut.5,10"])] == ["nDCG@5", "nDCG@10"]
    assert [m.name for m in parse_measures(["success"])] == ["Success@1", "Success@5", "Success@10"]
    assert [m.name for m in parse_measures(["set_F.0.25"])] == ["SetF(beta=0.25)"]   # the same parameter as trec_eval


def test_make_drops_default_params():
    fam = parse_measure("nDCG@10").family
    assert make(fam, {"dcg": "log2"}, 10).name == "nDCG@10"
    assert make(fam, {"dcg": "jk"}, 10).name == "nDCG(dcg='jk')@10"


@pytest.mark.parametrize("text, message", [
    ("P@10.5", "P: cutoff must be int, got 10.5."),
    ("P@0", "P: cutoff must be positive, got 0."),
    ("RBP(p=0.8)@10", "RBP takes no @cutoff. Write RBP alone."),
])
def test_a_cutoff_that_is_not_a_whole_positive_number_is_refused_not_rounded(text, message):
    from core.errors import EvalError
    with pytest.raises(EvalError) as e:
        parse_measure(text)
    assert str(e.value) == message
    assert parse_measure("nDCG@10.0").name == "nDCG@10"
