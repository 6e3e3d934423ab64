"""Worked values for the textbook variants: (measure, ranking kwargs, expected), each derived by hand
from the measure's definition. tests/measures/test_measures.py runs them; tests/measures/test_registry.py counts the
families they cover."""
from __future__ import annotations

import math

L2 = math.log2

EX81 = "R R N N N N N N R N R N N N R N N N N R"          # seed 004, exercise 8/1 (ERRATA 4), R = 8
SEED1 = "R N R R R R N N N R"                               # seed 001: precisions 1, .67, .75, .8, .83, .6
GRADES = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]                     # seeds 000/002 DCG example

# (measure, ranking kwargs, expected) -- families exercised here count as "worked examples" in test_registry
WORKED = [
    ("P@20", dict(pattern=EX81, total_rel=8), 6 / 20),
    ("R@20", dict(pattern=EX81, total_rel=8), 6 / 8),
    ("Rcap@20", dict(pattern=EX81, total_rel=8), 6 / 8),
    ("Rcap@5", dict(pattern=EX81, total_rel=8), 2 / 5),
    ("F@20", dict(pattern=EX81, total_rel=8), 2 * 0.3 * 0.75 / (0.3 + 0.75)),
    ("E(beta=1)@20", dict(pattern=EX81, total_rel=8), 1 - 2 * 0.3 * 0.75 / (0.3 + 0.75)),
    ("F(beta=2)@20", dict(pattern=EX81, total_rel=8), 5 * 0.3 * 0.75 / (4 * 0.3 + 0.75)),
    ("SetF(beta=0.5)", dict(pattern=EX81, total_rel=8), 1.5 * 0.3 * 0.75 / (0.5 * 0.3 + 0.75)),   # trec_eval's b = beta^2
    ("set_F_0.25", dict(pattern=EX81, total_rel=8), 1.25 * 0.3 * 0.75 / (0.25 * 0.3 + 0.75)),
    ("SetFbeta(beta=0.5)", dict(pattern=EX81, total_rel=8), 1.25 * 0.3 * 0.75 / (0.25 * 0.3 + 0.75)),
    ("set_F", dict(pattern=EX81, total_rel=8), 2 * 0.3 * 0.75 / (0.3 + 0.75)),
    ("SetP", dict(pattern=EX81, total_rel=8), 0.3),
    ("SetR", dict(pattern=EX81, total_rel=8), 0.75),
    ("SetRelP", dict(pattern=EX81, total_rel=8), 6 / 8),
    ("SetAP", dict(pattern=EX81, total_rel=8), 36 / (20 * 8)),
    ("AP@20", dict(pattern=EX81, total_rel=8), (1 + 1 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20) / 8),
    ("AP(norm='found')@20", dict(pattern=EX81, total_rel=8), (1 + 1 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20) / 6),
    ("RR@20", dict(pattern=EX81, total_rel=8), 1.0),
    ("IPrec@0.33", dict(pattern=EX81, total_rel=8), 4 / 11),        # 9.x: (long)(0.33*8+0.9) = 3 rel docs
    ("Success@1", dict(pattern="N R", total_rel=1), 0.0),
    ("RR@1", dict(pattern="N R", total_rel=1), 0.0),
    ("RR", dict(pattern="N R", total_rel=1), 0.5),
    ("AP", dict(pattern=SEED1), (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6),
    ("AP(norm='found')@5", dict(pattern=SEED1), (1 + 2 / 3 + 3 / 4 + 4 / 5) / 4),
    ("AP@5", dict(pattern=SEED1), (1 + 2 / 3 + 3 / 4 + 4 / 5) / 6),
    ("DCG(dcg='jk')@4", dict(pattern="", grades=GRADES), 3 + 2 + 3 / L2(3)),
    ("nDCG(dcg='jk')@4", dict(pattern="", grades=GRADES), (3 + 2 + 3 / L2(3)) / (3 + 3 + 3 / L2(3) + 2 / 2)),
    ("DCG@2", dict(pattern="", grades=GRADES), 3 + 2 / L2(3)),
    ("nDCG@2", dict(pattern="", grades=GRADES), (3 + 2 / L2(3)) / (3 + 3 / L2(3))),
    ("nDCG(dcg='exp-log2')@3", dict(pattern="", grades=GRADES),
     (7 + 3 / L2(3) + 7 / 2) / (7 + 7 / L2(3) + 7 / 2)),
    ("DCG(dcg='exp-log2')@3", dict(pattern="", grades=GRADES), 7 + 3 / L2(3) + 7 / 2),
    ("Judged@4", dict(pattern="", grades=[1, None, 0, None]), 2 / 4),
    ("Judged@10", dict(pattern="", grades=[1, None, 0, None]), 2 / 4),     # ir_measures: over min(k, |ret|)
    ("Judged", dict(pattern="", grades=[1, None, 0, None]), 2 / 4),
    ("Judged@1", dict(pattern="", grades=[1, None, 0, None]), 1.0),
    ("JudgedK@10", dict(pattern="", grades=[1, None, 0, None]), 2 / 10),  # textbook: over k
    ("Unj@4", dict(pattern="", grades=[1, None, 0, None]), 2 / 4),
    ("NumQ", dict(pattern=EX81, total_rel=8), 1),
    ("hits@5", dict(pattern=EX81, total_rel=8), 2),
    ("hits", dict(pattern=EX81, total_rel=8), 6),
    ("ERR@3", dict(pattern="", grades=GRADES), 7 / 16 + (9 / 16) * (3 / 16) / 2 + (9 / 16) * (13 / 16) * (7 / 16) / 3),
    ("ERR@1", dict(pattern="", grades=[6]), 15 / 16),                     # grades above gdeval's 4 count as 4
    ("Accuracy", dict(pattern="R N R N"), 1 - (0 + 1) / (2 * 2)),
    ("Accuracy@2", dict(pattern="R N R N"), 1.0),
    ("Accuracy", dict(pattern="N N"), 0.0),
    ("Compat", dict(pattern="N R", total_rel=1), (0.95 / 2) / (1 + 0.95 / 2)),
    ("Compat(normalize=False)", dict(pattern="N R", total_rel=1), (0.95 / 2) / (1 + 0.95)),
    ("Compat", dict(pattern="R N", total_rel=1), 1 / (1 + 0.95 / 2) * (1 + 0.95 / 2)),
    # C/W/L: W(i) = prod_{j<i} C(j) / sum over 1000 ranks of the same products; gains scaled by max_rel
    ("SDCG(max_rel=1)@2", dict(pattern="R N"), 1 / (1 + 1 / L2(3))),
    ("NERR8(max_rel=1)@3", dict(pattern="N R N"), 1 / 2),                  # C = 1, 0: P = 1, 1, 0, ...
    ("NERR9(max_rel=1)@3", dict(pattern="N R"), 0.5 / 1.5),                # C = 1/2, 0
    ("NERR10(max_rel=1)", dict(pattern="R"), 1.0),
    ("NERR11(max_rel=1)", dict(pattern="R"), 1.0),
    ("BPM(max_rel=1)@3", dict(pattern="N R N"), 1 / 2),
    ("INST(max_rel=1)", dict(pattern="R"), 1 / sum(1 / i ** 2 for i in range(1, 1001))),      # P_i = 1/i^2
    ("INSQ(max_rel=1)", dict(pattern="R"), 1 / sum(4 / (i + 1) ** 2 for i in range(1, 1001))),
    ("INST(max_rel=2)", dict(pattern="", grades=[0, 0]), 0.0),
    ("RBP(rel=1)", dict(pattern="R"), (1 - 0.8) / (1 - 0.8 ** 1000)),
    # judgment-group averages with one group (plain qrels) are the plain measures; test_measures_avgjg has the rest
    ("map_avgjg", dict(pattern=SEED1), (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6),
    ("P_avgjg@5", dict(pattern=EX81, total_rel=8), 2 / 5),
    ("Rprec_mult_avgjg(mult=0.5)", dict(pattern=EX81, total_rel=8), 2 / 4),
    # trec_eval 10.0's yaap and ideal_dcg (test_measures_trec10 has their golden outputs)
    ("yaap", dict(pattern=SEED1), math.log((1 + (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10)) /
                                           (1 + 6 - (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10)))),
    ("IDCG@2", dict(pattern="", grades=GRADES), 3 + 3 / L2(3)),
    ("NumRet", dict(pattern=EX81, total_rel=8), 20),
    ("NumRel", dict(pattern=EX81, total_rel=8), 8),
    ("NumRelRet", dict(pattern=EX81, total_rel=8), 6),
    ("NumNonRelJudgedRet", dict(pattern=EX81, total_rel=8), 14),
    ("Rprec", dict(pattern=EX81, total_rel=8), 2 / 8),
    ("Rprec(mult=2)", dict(pattern=EX81, total_rel=8), 5 / 16),
    # AUC: positives at ranks 1, 3; negatives at 2, 4 and one unretrieved judged negative (tied last)
    ("AUC", dict(pattern="R N R N", extra_judged=1), (3 + 2) / (2 * 3)),
    ("Bpref", dict(pattern="R N R N", extra_judged=1), (1 + (1 - 1 / 2)) / 2),
    ("binG", dict(pattern="R N R", total_rel=2), (1 / L2(2) + 1 / L2(3)) / 2),
    ("RBP", dict(pattern="R N R", total_rel=2), 0.1 * (1 + 0.81)),
    ("RBP(p=0.5)", dict(pattern="R N R", total_rel=2), 0.5 * (1 + 0.25)),
    ("utility", dict(pattern="R N R", total_rel=3), 2 - 1),
    ("infAP", dict(pattern="R N R", total_rel=2), (1 + 1 / 3 + (2 / 3) * (2 / 2) * ((1 + 1e-5) / (2 + 2e-5))) / 2),
]
