"""The fusion registry: one `Method` declaration per fusion method and one `Norm` per score normalisation.

A method declares its name (ranx's), aliases, typed parameters with defaults and the grid `--tune` searches, its
default normalisation, a formula and a reference. The command line, the error suggestions, docs/fusion.md and
the ranx oracle tests all read the registry, so they cannot drift apart.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from core.errors import EvalError

__all__ = ["Param", "Method", "Norm", "METHODS", "NORMS", "register", "register_norm", "method_named", "norm_named",
           "weight_grid", "unit_grid"]

METHODS: list["Method"] = []
NORMS: list["Norm"] = []
_METHOD: dict[str, "Method"] = {}
_NORM: dict[str, "Norm"] = {}


def unit_grid(step: float = 0.01) -> tuple[float, ...]:
    """step, 2 step, ..., 1 (ranx's optimize_fusion grid for gamma, phi and sigma)."""
    n = int(round(1 / step))
    return tuple(round(i * step, 10) for i in range(1, n + 1))


def weight_grid(n_runs: int, step: float = 0.1) -> np.ndarray:
    """Every weight vector on the grid 0, step, ..., 1 whose weights sum to 1 (ranx's optimize_fusion trials), one
    per row, in ranx's order. The sum is checked on whole steps: ranx checks `sum(weights) == 1.0` in floating point,
    which drops vectors such as (0.1, 0.2, 0.7) that sum to 1.0000000000000002."""
    n = int(round(1 / step))
    if n < 1 or abs(n * step - 1) > 1e-9:
        raise EvalError(f"the weight step must divide 1 (0.1, 0.05, 0.25, ...), not {step!r}.")
    grids = np.stack(np.meshgrid(*[np.arange(n + 1)] * n_runs, indexing="ij"), -1).reshape(-1, n_runs)
    grids = grids[grids.sum(axis=1) == n]
    return np.round(grids * step, 10)


@dataclass(frozen=True)
class Param:
    name: str
    type: type                        # int or float
    default: float | None             # None: no default (ranx has none either); it must be given or tuned
    grid: tuple[float, ...]           # the values `--tune` tries (ranx's optimize_fusion grid)
    low: float
    high: float
    help: str

    def coerce(self, method: str, value) -> float:
        try:
            v = self.type(float(value)) if self.type is float else int(value)
        except (TypeError, ValueError):
            kind = "an integer" if self.type is int else "a number"
            raise EvalError(f"{method}: parameter {self.name} must be {kind}, not {value!r}. "
                            f"Give e.g. --param {self.name}={self.grid[0]}.") from None
        if not self.low <= v <= self.high:
            raise EvalError(f"{method}: parameter {self.name} must be between {self.low} and {self.high}, not "
                            f"{value}. Give a value in that range.")
        return v


@dataclass(frozen=True)
class Method:
    name: str                         # ranx's name
    fn: Callable                      # (Votes, **params) -> one score per fused document; (Votes, model, **params)
    #                                   for a method that learns
    formula: str                      # LaTeX, over the normalised scores s_r(d) and 0-based places p_r(d)
    description: str
    reference: str
    params: tuple[Param, ...] = ()
    weighted: bool = False            # takes one weight per run (--weights; equal weights by default)
    aliases: tuple[str, ...] = ()
    default_norm: str = "min-max"     # ranx's fuse(norm="min-max")
    ranx: str = ""                    # the function of ranx.fusion it follows
    train: Callable | None = None     # (Stack, qrels, **params) -> model: the methods that learn from judged topics
    learns_with: tuple[str, ...] = ()  # the parameters training depends on (the others only score)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise EvalError(f"{self.name} has no parameter {name!r} (its parameters: {known}). Drop --param {name}=...")

    def resolve(self, given: dict) -> dict:
        """The method's parameters: `given` (name -> text or number) over the defaults, checked."""
        values = {p.name: p.coerce(self.name, given[p.name]) if p.name in given else p.default for p in self.params}
        for name in given:
            self.param(name)
        missing = [n for n, v in values.items() if v is None]
        if missing:
            p = self.param(missing[0])
            raise EvalError(f"{self.name} needs {p.name} ({p.help}); ranx has no default for it. Give --param "
                            f"{p.name}=VALUE, or --tune QRELS to choose it.")
        return values


@dataclass(frozen=True)
class Norm:
    name: str
    fn: Callable                      # (Stack) -> Stack
    formula: str
    description: str
    aliases: tuple[str, ...] = ()


def _add(entry, listing: list, names: dict, kind: str):
    for name in (entry.name, *entry.aliases):
        if name in names:
            raise ValueError(f"fusion {kind} {name} registered twice")
        names[name] = entry
    listing.append(entry)
    return entry


def register(method: Method) -> Method:
    return _add(method, METHODS, _METHOD, "method")


def register_norm(norm: Norm) -> Norm:
    return _add(norm, NORMS, _NORM, "normalisation")


def _named(name: str, names: dict, kind: str, option: str):
    key = name.strip().lower()
    if key in names:
        return names[key]
    close = difflib.get_close_matches(name.lower(), list(names), n=1)
    hint = f"Did you mean {close[0]}? " if close else ""
    listed = ", ".join(dict.fromkeys(entry.name for entry in names.values()))    # registration order
    raise EvalError(f"unknown fusion {kind} {name!r}. {hint}Use {option} with one of: {listed}.")


def method_named(name: str) -> Method:
    return _named(name, _METHOD, "method", "--method")


def norm_named(name: str) -> Norm:
    return _named(name, _NORM, "normalisation", "--norm")
