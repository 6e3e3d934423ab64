"""The measure registry: one `Family` declaration per measure family, and `Measure` values.

A family declares its name, aliases, typed parameters with defaults, its trec_eval name(s), a
one-line description, a formula and a reference. The parser, the help page, the error
suggestions and the golden tests all read the registry, so they cannot drift apart.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from core.errors import EvalError

REGISTRY: list["Family"] = []
MEASURES_VERSION = 2
_BY_NAME: dict[str, "Family"] = {}


@dataclass(frozen=True)
class EvalOptions:
    """trec_eval's switches. `compat` 9 = trec_eval 9.0.8 (default), 10 = trec_eval 10.0."""
    rel_level: int = 1            # -l
    complete: bool = False        # -c : qrels topics missing from the run count (with nothing retrieved)
    max_depth: int | None = None  # -M
    judged_only: bool = False     # -J
    num_docs: int | None = None   # -N collection size
    compat: int = 9

    def __post_init__(self):
        if self.compat not in (9, 10):
            raise EvalError(f"compat must be 9 or 10, not {self.compat!r}. Use --compat 9 or --compat 10.")
        if self.max_depth is not None and int(self.max_depth) < 1:
            raise EvalError(f"max_depth (-M) must be a positive number of documents, not {self.max_depth!r}.")
        if self.num_docs is not None and int(self.num_docs) < 0:
            raise EvalError(f"num_docs (-N) must not be negative, not {self.num_docs!r}.")

    def key(self) -> str:
        """Stable string used as the cache key in the `results` table. `m` is the measures' version: raised when a
        measure's number changes under the same name (2: Judged, SetF and custom-gain nDCG follow the peers), so
        values cached by an older Rankboard are recomputed instead of shown."""
        return (f"l={self.rel_level};c={int(self.complete)};M={self.max_depth or 0};"
                f"J={int(self.judged_only)};N={self.num_docs or 0};v={self.compat};m={MEASURES_VERSION}")


@dataclass(frozen=True)
class Param:
    name: str
    type: type                    # int, float or str
    default: object
    choices: tuple = ()
    minimum: float | None = None
    help: str = ""
    pattern: str | None = None    # regex for this value inside a trec_eval name (str params)
    convert: Callable | None = None   # another accepted spelling -> this type (e.g. ir_measures' gains dict)
    required: bool = False        # must be given (ir_measures' max_rel for the C/W/L family)

    def coerce(self, family: str, value):
        if self.convert is not None and not isinstance(value, self.type):
            value = self.convert(family, value)
        try:
            if self.type is str:
                if not isinstance(value, str):
                    raise ValueError
                v = value
            elif self.type is bool:
                v = value if isinstance(value, bool) else {"true": True, "false": False, "1": True, "0": False}[
                    str(value).lower()]
            elif self.type is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                v = int(value)
            else:
                v = float(value)
        except (TypeError, ValueError, KeyError):
            raise EvalError(f"{family}: parameter {self.name} must be {self.type.__name__}, got {value!r}.") from None
        if self.choices and v not in self.choices:
            raise EvalError(f"{family}: parameter {self.name}={v!r} is not one of {', '.join(map(repr, self.choices))}.")
        if self.minimum is not None and v < self.minimum:
            raise EvalError(f"{family}: parameter {self.name} must be >= {self.minimum}, got {v!r}.")
        return v


@dataclass(frozen=True)
class Family:
    name: str                                   # ir_measures-style name: "P", "nDCG", "infAP"
    description: str                            # one line
    formula: str                                # text/LaTeX, for the generated help page
    reference: str
    compute: Callable                           # (ctx, measure) -> per-query numpy array
    params: tuple[Param, ...] = ()
    cutoff: str = "none"                        # "none" | "optional" | "required"
    cutoff_type: type = int
    aliases: tuple[str, ...] = ()
    trec: tuple[str, ...] = ()                  # trec_eval name templates, e.g. ("P_{cutoff}",)
    trec_defaults: tuple = ()                   # trec_eval's default cutoffs (for `-m P`)
    agg: str = "mean"                           # "mean" | "sum" | "gm" (geometric, floored) | "text"
    summary_only: bool = False                  # trec_eval prints it only in the summary
    ints: bool = False                          # printed without decimals
    rel_param: bool = False                     # accepts rel=<level> overriding -l

    def param(self, name):
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Measure:
    family: Family
    params: tuple[tuple[str, object], ...] = ()   # non-default params only, sorted by name
    cutoff: float | int | None = None

    def get(self, name):
        given = dict(self.params)
        if name in given:
            return given[name]
        p = self.family.param(name)
        return p.default if p else None

    @property
    def name(self) -> str:
        s = self.family.name
        if self.params:
            s += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            s += "@" + _fmt(self.cutoff)
        return s

    @property
    def trec_name(self) -> str | None:
        return trec_name_of(self)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Measure({self.name!r})"


def _fmt(v) -> str:
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, float):
        return format(v, "g")
    return str(v)


def make(family: Family, params: dict | None = None, cutoff=None) -> Measure:
    """Validate params/cutoff and build the canonical Measure (defaults dropped)."""
    params = dict(params or {})
    clean = {}
    for k, v in params.items():
        if k == "rel" and family.rel_param:
            p = Param("rel", int, None)
        else:
            p = family.param(k)
        if p is None:
            known = [q.name for q in family.params] + (["rel"] if family.rel_param else [])
            raise EvalError(f"{family.name} has no parameter {k!r}. Known parameters: {', '.join(known) or 'none'}.")
        v = p.coerce(family.name, v)
        if v != p.default:
            clean[k] = v
    missing = [p.name for p in family.params if p.required and p.name not in clean]
    if missing:
        raise EvalError(f"{family.name} needs {missing[0]}=..., e.g. {family.name}({missing[0]}=3) for grades 0-3.")
    if cutoff is not None:
        if family.cutoff == "none":
            raise EvalError(f"{family.name} takes no @cutoff. Write {family.name} alone.")
        try:
            typed = family.cutoff_type(cutoff)
            if family.cutoff_type is int and float(cutoff) != typed:   # int(10.5) is 10: refuse, do not round
                raise ValueError
        except (TypeError, ValueError):
            raise EvalError(f"{family.name}: cutoff must be {family.cutoff_type.__name__}, got {cutoff!r}.") from None
        cutoff = typed
        if cutoff < 0 or (family.cutoff_type is int and cutoff < 1):
            raise EvalError(f"{family.name}: cutoff must be positive, got {cutoff!r}.")
    elif family.cutoff == "required":
        raise EvalError(f"{family.name} needs a cutoff, e.g. {family.name}@10.")
    return Measure(family, tuple(sorted(clean.items())), cutoff)


JUDGED_ONLY = Param("judged_only", bool, False,
                    help="ir_measures' judged_only: drop unjudged documents first (trec_eval -J for this measure)")


class _JudgedOnlyAware:
    """A family's compute that honours judged_only=True (a class, not a closure, so Measures pickle)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __call__(self, ctx, m):
        if m.get("judged_only"):
            ctx = ctx.d.judged_only().ctx(ctx.L)
        return self.fn(ctx, m)

    def __eq__(self, other):
        return isinstance(other, _JudgedOnlyAware) and other.fn is self.fn

    def __hash__(self):
        return hash(self.fn)


def register(family: Family) -> Family:
    if family.param("judged_only") is not None:
        family = replace(family, compute=_JudgedOnlyAware(family.compute))
    if family.name in _BY_NAME:
        raise ValueError(f"duplicate measure family {family.name}")
    REGISTRY.append(family)
    for n in (family.name,) + family.aliases:
        _BY_NAME[n] = family
    return family


def family_named(name: str) -> Family | None:
    return _BY_NAME.get(name)


# --- trec_eval names -------------------------------------------------------------------------

_FIELD = re.compile(r"\{(\w+)(?::([^}]*))?\}")


def _render(template: str, values: dict) -> str | None:
    out = template
    for m in _FIELD.finditer(template):
        key, spec = m.group(1), m.group(2)
        if values.get(key) is None:
            return None
        v = values[key]
        out = out.replace(m.group(0), format(v, spec) if spec else str(v))
    return out


def trec_name_of(m: Measure) -> str | None:
    """The trec_eval name of a measure, when trec_eval computes exactly this."""
    extra = {k for k, _ in m.params}
    for t in m.family.trec:
        fields = {f.group(1) for f in _FIELD.finditer(t)}
        if extra - fields:
            continue
        if ("cutoff" in fields) != (m.cutoff is not None):
            continue
        values = {"cutoff": m.cutoff, **{k: m.get(k) for k in fields if k != "cutoff"}}
        name = _render(t, values)
        if name:
            return name
    return None


def trec_patterns(family: Family) -> list[re.Pattern]:
    """A compiled regex per trec_eval name template, to parse trec_eval names back into measures."""
    out = []
    for t in family.trec:
        rx, pos = "", 0
        for f in _FIELD.finditer(t):
            rx += re.escape(t[pos:f.start()])
            p = None if f.group(1) == "cutoff" else family.param(f.group(1))
            typ = family.cutoff_type if p is None else p.type
            body = p.pattern if p is not None and p.pattern else (
                r"\d+" if typ is int else r"-?\d*\.?\d+" if typ is float else r"\S+")
            rx += f"(?P<{f.group(1)}>" + body + ")"
            pos = f.end()
        rx += re.escape(t[pos:])
        out.append(re.compile(rx + r"\Z"))
    return out


def all_names() -> list[str]:
    """Every spelling the parser knows, for "did you mean" suggestions."""
    names = []
    for f in REGISTRY:
        names.append(f.name + ("@10" if f.cutoff == "required" else ""))
        names += list(f.aliases)
        for t in f.trec:
            names.append(_render(t, {"cutoff": f.trec_defaults[1] if len(f.trec_defaults) > 1 else (f.trec_defaults[0] if f.trec_defaults else 10),
                                     **{p.name: p.default for p in f.params}}) or t)
    return [n for n in names if n]


__all__ = ["REGISTRY", "EvalOptions", "Family", "Measure", "Param", "JUDGED_ONLY", "make", "register", "family_named",
           "trec_name_of", "trec_patterns", "all_names"]
