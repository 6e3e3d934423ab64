"""The score-combining methods: CombSUM and its family, and the weighted ones (ranx.fusion.comb_*, wsum, wmnz,
mixed). A document a run did not retrieve adds nothing to a sum, and is left out of a count, a mean, a median, a
maximum or a minimum, as in ranx."""
from __future__ import annotations

import numpy as np

from core.fusion.registry import Method, Param, register, unit_grid
from core.fusion.votes import Votes

FOX = ("Fox and Shaw, Combination of Multiple Searches, TREC-2 (1993), "
       "https://trec.nist.gov/pubs/trec2/papers/txt/23.txt")
LEE = "Lee, Analyses of Multiple Evidence Combination, SIGIR 1997, https://doi.org/10.1145/258525.258587"
WU = "Wu and Crestani, Data fusion with estimated weights, CIKM 2002, https://doi.org/10.1145/584792.584908"
GAMMA = Param("gamma", float, None, unit_grid(), 0.0, 1e9, "the exponent of the number of runs")


def _sum(v: Votes) -> np.ndarray:
    return v.total(v.stack.score)


def _mnz(v: Votes) -> np.ndarray:
    return v.total(v.stack.score) * v.count


def _anz(v: Votes) -> np.ndarray:
    return v.total(v.stack.score) / v.count


def _gmnz(v: Votes, gamma: float) -> np.ndarray:
    return v.total(v.stack.score) * v.count.astype(float) ** gamma


def _max(v: Votes) -> np.ndarray:
    return v.reduce(np.maximum, v.stack.score)


def _min(v: Votes) -> np.ndarray:
    return v.reduce(np.minimum, v.stack.score)


def _med(v: Votes) -> np.ndarray:
    return v.median(v.stack.score)


def _wsum(v: Votes) -> np.ndarray:
    return v.total(v.w * v.stack.score)


def _wmnz(v: Votes) -> np.ndarray:
    return v.total(v.stack.score) * v.total(v.w)


def _mixed(v: Votes) -> np.ndarray:
    return v.total(v.w * v.stack.score) * np.sqrt(v.count)


S = r"\sum_{r \ni d} s_r(d)"
register(Method("sum", _sum, S, "CombSUM: the sum of the scores.", FOX, aliases=("combsum", "comb_sum"),
                ranx="comb_sum"))
register(Method("mnz", _mnz, S + r" \cdot |\{r \ni d\}|", "CombMNZ: the sum times the number of runs that "
                "retrieved the document.", FOX, aliases=("combmnz", "comb_mnz"), ranx="comb_mnz"))
register(Method("anz", _anz, S + r" \,/\, |\{r \ni d\}|", "CombANZ: the mean score over the runs that retrieved "
                "the document.", FOX, aliases=("combanz", "comb_anz"), ranx="comb_anz"))
register(Method("gmnz", _gmnz, S + r" \cdot |\{r \ni d\}|^{\gamma}", "CombGMNZ: CombMNZ with the count raised to "
                "gamma.", LEE, params=(GAMMA,), aliases=("combgmnz", "comb_gmnz"), ranx="comb_gmnz"))
register(Method("max", _max, r"\max_{r \ni d} s_r(d)", "CombMAX: the highest score.", FOX,
                aliases=("combmax", "comb_max"), ranx="comb_max"))
register(Method("min", _min, r"\min_{r \ni d} s_r(d)", "CombMIN: the lowest score among the runs that retrieved "
                "the document.", FOX, aliases=("combmin", "comb_min"), ranx="comb_min"))
register(Method("med", _med, r"\operatorname{median}_{r \ni d} s_r(d)", "CombMED: the median score among the "
                "runs that retrieved the document.", FOX, aliases=("combmed", "comb_med"), ranx="comb_med"))
register(Method("wsum", _wsum, r"\sum_{r \ni d} w_r s_r(d)", "Weighted sum of the scores (ranx's default "
                "method).", "ranx (Bassani, ECIR 2022), ranx.fusion.wsum", weighted=True, aliases=("weighted_sum",),
                ranx="wsum"))
register(Method("wmnz", _wmnz, S + r" \cdot \sum_{r \ni d} w_r", "Weighted MNZ: the sum of the scores times "
                "the sum of the weights of the runs that retrieved the document.", WU, weighted=True, ranx="wmnz"))
register(Method("mixed", _mixed, r"\sum_{r \ni d} w_r s_r(d) \cdot \sqrt{|\{r \ni d\}|}", "Mixed: the weighted "
                "sum times the square root of the number of runs that retrieved the document.", WU, weighted=True,
                ranx="mixed"))
