"""Choices offered by the pages (labels people read on a projector)."""
from __future__ import annotations

import pandas as pd

DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "R@1000", "RR"]
RECALL_DEPTH = 1000      # R@1000, TREC's usual run depth


def default_measures(depth) -> list[str]:
    """The Leaderboard's default measures for runs of at most `depth` documents a topic: recall at that depth when
    it is below 1,000 (R@100 for runs cut at 100), so no default claims a depth the runs do not have."""
    if pd.isna(depth) or depth >= RECALL_DEPTH:      # unknown (None, NA or NaN: runs with scores only), or deep enough
        return list(DEFAULT_MEASURES)
    return [f"R@{int(depth)}" if m == f"R@{RECALL_DEPTH}" else m for m in DEFAULT_MEASURES]


MORE_MEASURES = ["nDCG", "nDCG@20", "P@5", "P@20", "R@100", "Rprec", "bpref", "NumRet", "NumRelRet"]
DIVERSITY_DEFAULT = ["alpha_nDCG@20", "ERR_IA@20", "nERR_IA@20", "NRBP", "P_IA@20", "StRecall@20"]
TESTS = {"t": "Paired t-test", "wilcoxon": "Wilcoxon signed-rank", "randomization": "Randomisation (Fisher)",
         "bootstrap": "Paired bootstrap", "tukey": "Tukey HSD (all runs)",
         "randomization-all": "Randomisation, all pairs (max statistic)"}
CORRECTIONS = {"none": "None", "bonferroni": "Bonferroni", "holm": "Holm", "bh": "Benjamini-Hochberg (FDR)"}
ALPHAS = ["0.01", "0.05", "0.1"]
NO_BASELINE = ""
RISKS = {"urisk": "URisk", "trisk": "TRisk"}
RISK_ALPHAS = ["0", "1", "2", "5", "10"]
