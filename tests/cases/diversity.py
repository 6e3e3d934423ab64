"""Diversity test data: random subtopic qrels and runs (`random_case`), the diversity names compared with
ir_measures itself, and an example worked by hand from ndeval's definitions (tests/engine/test_measures_diversity.py checks it;
tests/measures/test_registry.py counts the families it covers).

Topic 1 has subtopics a and b (S = 2): A is relevant to a, B and C to b, D is judged non-relevant to a. The run ranks
A (3.0), then B and Z tied at 2.0 (pyndeval: docno ascending, so B first), then C (1.0).
Gains (alpha = 0.5): A 1, B 1, Z 0 (unjudged), C (1 - 0.5)^1 = 0.5, since B covered b.
The greedy ideal: A, B, C all gain 1 at rank 1, the tie goes to the larger docno (C); then A (1) beats B (0.5).
Ideal gains: 1, 1, 0.5.
- alpha_DCG@2 = (1 + 1/log2 3) / (2 + 2 * 0.5/log2 3): ndeval divides by the ideal-ideal (S (1-alpha)^(i-1)).
- alpha_DCG@1 = 1: ndeval does not divide at rank 1.
- alpha_DCG_raw@4 (Clarke et al.'s plain sum) = 1 + 1/log2 3 + 0 + 0.5/log2 5.
- alpha_nDCG@3 = (1 + 1/log2 3) / (1 + 1/log2 3 + 0.5/2).
- ERR_IA@4 = (1 + 1/2 + 0 + 0.5/4) / (2 + 1/2 + 0.5/3 + 0.25/4);  nERR_IA@4 = 1.625 / (1 + 1/2 + 0.5/3) = 0.975.
- NRBP = (1 - 0.5 * 0.5)/2 * (1 + 0.5 + 0 + 0.5 * 0.5^3) = 0.375 * 1.5625;  nNRBP = 1.5625 / (1 + 0.5 + 0.5 * 0.25).
- AP_IA = (AP_a + AP_b)/2 = (1/1 + (1/2 + 2/4)/2) / 2 = 0.75;  P_IA@3 = 2 / (3 * 2);  StRecall@1 = 1/2.
"""
from __future__ import annotations

import math

import numpy as np

QRELS = [("1", "a", "A", 1), ("1", "b", "B", 1), ("1", "b", "C", 2), ("1", "a", "D", 0)]
RUN = [("1", "A", 3.0), ("1", "Z", 2.0), ("1", "B", 2.0), ("1", "C", 1.0)]
L3 = 1 / math.log2(3)
WORKED = {
    "alpha_DCG@2": (1 + L3) / (2 + L3), "alpha_DCG@1": 1.0, "alpha_DCG_raw@4": 1 + L3 + 0.5 / math.log2(5),
    "alpha_nDCG@3": (1 + L3) / (1 + L3 + 0.25),
    "ERR_IA@4": 1.625 / (2 + 0.5 + 0.5 / 3 + 0.25 / 4), "nERR_IA@4": 1.625 / (1 + 0.5 + 0.5 / 3),
    "NRBP": 0.375 * 1.5625, "nNRBP": 1.5625 / 1.625, "AP_IA": 0.75, "P_IA@3": 1 / 3, "StRecall@1": 0.5,
}


# every diversity spelling of ir_measures' registry, as compared with ir_measures itself below
IR_MEASURES_NAMES = ["alpha_nDCG@5", "alpha_nDCG(alpha=0.3)@20", "α_nDCG@10", "alpha_DCG@3", "α_DCG@10", "ERR_IA@20",
                     "nERR_IA@10", "NRBP", "nNRBP(alpha=0.4,beta=0.7)", "AP_IA", "MAP_IA", "P_IA@5", "StRecall@10",
                     "alpha_nDCG(rel=2)@10", "nERR_IA(rel=2)@5"]


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    subs = [str(s) for s in rng.permutation(8)]                  # shared subtopic ids, in a random first order
    docs = [f"d{i}" for i in range(int(rng.integers(3, 25)))] + ["D1", "a", "z9"]
    qrels, run = [], []
    for q in ["1", "2", "3", "q4"][: int(rng.integers(1, 5))]:
        for s in rng.choice(subs, size=int(rng.integers(1, 6)), replace=False):
            for d in rng.choice(docs, size=int(rng.integers(0, len(docs))), replace=False):
                qrels.append((q, str(s), str(d), int(rng.choice([-1, 0, 0, 1, 1, 1, 2]))))
    order = rng.permutation(len(qrels))                           # the file's line order decides subtopic numbers
    qrels = [qrels[i] for i in order]
    for q in ["1", "2", "3", "q4", "x"]:
        if rng.random() < 0.2:
            continue                                              # a topic missing from the run
        for d in rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False):
            run.append((q, str(d), float(rng.integers(0, 6)) if rng.random() < 0.5 else float(rng.random())))
    return qrels, run
