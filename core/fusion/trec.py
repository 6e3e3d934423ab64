"""A fused run as TREC run text, its provenance in an ir_metadata header that core.formats reads back.

    # ir_metadata.start
    # tag: rrf
    # method:
    #   fusion:
    #     method: rrf
    #     norm: min-max
    #     params:
    #       k: 60
    #     runs:
    #       - bm25.run
    #     run_sha256:
    #       - 9f86d081884c...
    # ir_metadata.end
    301 Q0 FBIS3-10082 1 0.0327868852459016 rrf

Scores are written with the fewest digits that read back as the same number, so the file ranks as the fused
run does.
"""
from __future__ import annotations

import json
import re

import pyarrow as pa
import pyarrow.compute as pc

from core.fusion.fuse import Fused

__all__ = ["header", "trec_text", "described"]

_PLAIN = re.compile(r"^[A-Za-z0-9_.,+@/=()\-]+$")


def _value(value) -> str:
    text = str(value)
    return text if _PLAIN.match(text) else '"' + text.replace('"', "'") + '"'


def _lines(key: str, value, indent: int) -> list[str]:
    pad = "  " * indent
    if isinstance(value, dict):
        return [f"{pad}{key}:"] + [line for k, v in value.items() for line in _lines(k, v, indent + 1)]
    if isinstance(value, (list, tuple)):
        return [f"{pad}{key}:"] + [f"{pad}  - {_value(v)}" for v in value]
    return [f"{pad}{key}: {_value(value)}"]


def header(provenance: dict, name: str, versions: list[str] | None = None) -> str:
    """The ir_metadata comment lines: the tag, and the fusion's method, normalisation, parameters, weights, runs
    and (when given) each run file's sha256."""
    fusion = dict(provenance)
    if versions:
        fusion["run_sha256"] = list(versions)
    body = _lines("tag", name, 0) + _lines("method", {"fusion": fusion}, 0)
    return "".join(f"# {line}\n" for line in ["ir_metadata.start", *body, "ir_metadata.end"])


def trec_text(fused: Fused, name: str, versions: list[str] | None = None) -> str:
    """The whole run file: header, then `qid Q0 docno rank score name` lines in the fused order."""
    t = fused.table
    score = pc.cast(pa.array(t["score"].to_numpy(float)), pa.string()).to_numpy(zero_copy_only=False)
    rows = (t["qid"].astype(str) + " Q0 " + t["docno"].astype(str) + " " + t["rank"].astype(str) + " " + score
            + " " + name)
    body = "\n".join(rows.tolist())
    return header(fused.provenance, name, versions) + (body + "\n" if body else "")


def described(metadata) -> str:
    """One line of a stored run's fusion provenance (its ir_metadata, a dict or JSON text): "rrf (min-max, k=60)
    of bm25, dense"; "" for a run that was not fused."""
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return ""
    fusion = (metadata or {}).get("method", {}) if isinstance(metadata, dict) else {}
    fusion = fusion.get("fusion") if isinstance(fusion, dict) else None
    if not isinstance(fusion, dict) or "method" not in fusion:
        return ""
    how = [str(fusion.get("norm", ""))] if fusion.get("norm") else []
    params = fusion.get("params")
    how += [f"{k}={v}" for k, v in params.items()] if isinstance(params, dict) else []
    if isinstance(fusion.get("weights"), list):
        how.append("weights " + ",".join(map(str, fusion["weights"])))
    if isinstance(fusion.get("tune"), dict):
        how.append(f"tuned on {fusion['tune'].get('measure', '')}, {fusion['tune'].get('folds', '')} folds")
    runs = fusion.get("runs") if isinstance(fusion.get("runs"), list) else []
    text = str(fusion["method"]) + (f" ({', '.join(how)})" if how else "")
    return text + (f" of {', '.join(map(str, runs))}" if runs else "")
