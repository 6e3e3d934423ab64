"""Statistics over per-query tables (run, qid, measure, value): paired tests, bootstrap intervals and multiple-testing
correction (paired.py), comparing runs with a baseline (compare.py -> the `Comparison` value, comparison.py), the
regression gate (gate.py -> the `Gate` value, gatereport.py), tests over every pair of runs (multisys.py,
permute.py) and how they can reach significance (reach.py), rank intervals and letters (ranks.py,
resolution.py), risk (risk.py, riskeval.py), several baselines together (baselines.py), a system over its versions
(history.py -> the `History` value), and the table that documents them (docs.py)."""
from core.stats.baselines import Report, corrected_together, report
from core.stats.compare import Comparison, ComparisonRow, compare
from core.stats.gate import Gate, GateRow, gate, gate_result
from core.stats.history import History, Step, Version, history, moved_topics
from core.stats.multisys import MULTI_TESTS
from core.stats.paired import bootstrap_ci_and_test, correct
from core.stats.reach import PairPlan, plan_pairs
from core.stats.resolution import resolve, share
from core.stats.riskeval import contributions, risk_table

__all__ = ["compare", "Comparison", "ComparisonRow", "gate", "gate_result", "Gate", "GateRow", "Report", "report",
           "corrected_together", "MULTI_TESTS", "bootstrap_ci_and_test", "correct", "PairPlan", "plan_pairs",
           "resolve", "share", "risk_table", "contributions", "history", "moved_topics", "History", "Step", "Version"]
