"""Agreement between assessors and between system orderings: the kappa family and Krippendorff's alpha of qrels
(qrels.py, kappa.py), consensus qrels from several assessors (consensus.py), and rank correlations (rankcorr.py)."""
from core.agreement.consensus import consensus, to_trec_text
from core.agreement.qrels import agreement, kappa_by_threshold, multi_agreement
from core.agreement.rankcorr import DoesItMatter, correlation_table, kendall_tau, tau_ap

__all__ = ["agreement", "multi_agreement", "kappa_by_threshold", "consensus", "to_trec_text", "kendall_tau", "tau_ap",
           "correlation_table", "DoesItMatter"]
