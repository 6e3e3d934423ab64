"""Choices offered by the pages (labels people read on a projector)."""
DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "R@1000", "RR"]
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
