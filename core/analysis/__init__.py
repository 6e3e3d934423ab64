"""Analysis of rankings: precision-recall and ROC curves (curves.py), and per-query differences between two runs
(perquery.py), and the Pareto front of runs over a measure and a cost (pareto.py)."""
from core.analysis.curves import iprec_measures, pr_curve, pr_curve_frames, pr_points, roc_auc, roc_curve
from core.analysis.pareto import Pareto, dominated, pareto
from core.analysis.perquery import how_different, query_deltas, ranking_differences, side_by_side

__all__ = ["pr_curve", "pr_curve_frames", "pr_points", "roc_curve", "roc_auc", "iprec_measures", "query_deltas",
           "how_different", "ranking_differences", "side_by_side", "Pareto", "pareto", "dominated"]
