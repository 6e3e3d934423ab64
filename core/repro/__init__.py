"""Reproducibility and replicability of runs, as repro_eval defines them (Breuer et al., SIGIR 2020): how alike an
original run and its reproduction order their documents (Kendall's tau union, extrapolated RBO: ordering.py) and
score (RMSE, t-tests, effect ratio, delta RI: effects.py), computed from per-topic values and rankings
(reproduce.py -> the `Reproduction` value, report.py), or from run files (files.py)."""
from core.repro.effects import delta_ri, effect_ratio, rmse
from core.repro.files import reproduce_files
from core.repro.ordering import ktu, ranked, rbo
from core.repro.report import Agreement, EffectRow, MeasureRow, Reproduction
from core.repro.reproduce import ROLES, reproduce

__all__ = ["reproduce", "reproduce_files", "Reproduction", "Agreement", "MeasureRow", "EffectRow", "ROLES", "ktu",
           "rbo", "ranked", "rmse", "effect_ratio", "delta_ri"]
