"""The measure registry and name parser.

    from core.measures import parse_measure, parse_measures, REGISTRY, Measure
    parse_measure("nDCG@10").trec_name == "ndcg_cut_10"
    parse_measures(["all_trec"], compat=9)   # trec_eval's nickname sets

Each family is declared once, in the module of its kind (precision, ap, gain, misc). nuggetizer's four scores of
RAG answers are declared in nuggets.py (NUGGET_SCORES): they score assignments, not rankings.
"""
from core.measures import ap, avgjg, cwl, diversity, gain, misc, peers, precision, prefs  # noqa: F401  (registers the families)
from core.measures.base import REGISTRY, EvalOptions, Family, Measure
from core.measures.parse import ALL_TREC_9, ALL_TREC_10, OFFICIAL, labelled, parse_measure, parse_measures
from core.measures.sources import DIFFERENCES, sources
from core.measures.nuggets import (NUGGET_SCORES, NUGGET_SOURCE, NuggetResult, nugget_scores,
                                   score_nugget_files)

__all__ = ["REGISTRY", "EvalOptions", "Family", "Measure", "parse_measure", "parse_measures", "labelled",
           "OFFICIAL", "ALL_TREC_9", "ALL_TREC_10", "DIFFERENCES", "sources", "NUGGET_SCORES", "NUGGET_SOURCE",
           "NuggetResult", "nugget_scores", "score_nugget_files"]
