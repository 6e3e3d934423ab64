"""Agreement checks run inside the benchmark (untimed): every tool against pytrec-eval-terrier.

Each tool is run once more with --dump (per-query values). Rankboard must match pytrec_eval at
1e-9 on every (topic, measure) and on every mean; ranx and ir_measures disagreements are
counted and reported (ranx breaks score ties differently; ir_measures
averages over every qrels topic, i.e. trec_eval -c).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

TOL = 1e-9
# Not comparable per topic: pytrec_eval's per-topic gm_* is log(max(x, 1e-5)) (only its mean is the
# geometric mean); num_q/runid/relstring are bookkeeping or text.
SKIP_PER_QUERY = ("gm_", "num_q", "runid", "relstring")
REFERENCE = "pytrec_eval"


def check(spawn, base_args: list[str], tools: list[str], dumpdir: Path, size: int, env=None) -> dict:
    dumpdir.mkdir(parents=True, exist_ok=True)
    task = base_args[base_args.index("--task") + 1]
    dumps, summaries = {}, {}
    for tool in tools:
        if tool in ("polars", "rankboard-cli") or (task != "eval7" and tool not in ("rankboard", REFERENCE)):
            continue
        path = dumpdir / f"{size}-{task}-{tool}.parquet"
        r = spawn([tool, "evaluate", *base_args, "--dump", str(path)], env=env)
        if "error" in r:
            summaries[tool] = {"error": r["error"]}
            continue
        dumps[tool] = pd.read_parquet(path)
        summaries[tool] = r["summary"]
        path.unlink()
    if REFERENCE not in dumps:
        return {"error": f"no {REFERENCE} reference: {summaries.get(REFERENCE)}"}
    ref, ref_sum = dumps[REFERENCE], summaries[REFERENCE]
    out = {}
    for tool, df in dumps.items():
        if tool == REFERENCE:
            continue
        out[tool] = compare_tool(df, ref, summaries[tool], ref_sum)
        print_check(task, tool, out[tool])
    for tool, s in summaries.items():
        if "error" in s:
            out[tool] = {"error": s["error"]}
            print(f"    check {task} {tool}: ERROR {s['error']}")
    return out


def compare_tool(df: pd.DataFrame, ref: pd.DataFrame, summ: dict, ref_summ: dict) -> dict:
    df = df[pd.to_numeric(df["value"], errors="coerce").notna() & ~df["measure"].str.startswith(SKIP_PER_QUERY)]
    ref = ref[pd.to_numeric(ref["value"], errors="coerce").notna() & ~ref["measure"].str.startswith(SKIP_PER_QUERY)]
    m = ref.merge(df, on=["qid", "measure"], how="outer", suffixes=("_ref", "_tool"), indicator=True)
    per_measure = {}
    for name, g in m.groupby("measure"):
        both = g[g["_merge"] == "both"]
        diff = np.abs(both["value_ref"].astype(float) - both["value_tool"].astype(float))
        per_measure[name] = {
            "topics_compared": int(len(both)), "topics_differing": int((diff > TOL).sum()),
            "max_abs_diff": float(diff.max()) if len(diff) else 0.0,
            "only_in_reference": int((g["_merge"] == "left_only").sum()),
            "only_in_tool": int((g["_merge"] == "right_only").sum()),
        }
    means = {}
    for name in sorted((set(summ) | set(ref_summ)) - {"runid"}):
        a, b = ref_summ.get(name), summ.get(name)
        means[name] = {"reference": a, "tool": b,
                       "abs_diff": None if a is None or b is None else abs(float(a) - float(b))}
    shared = [v for v in means.values() if v["abs_diff"] is not None]
    pq_ok = all(v["topics_differing"] == 0 and v["only_in_reference"] == 0 and v["only_in_tool"] == 0
                for v in per_measure.values())
    mean_ok = bool(shared) and all(v["abs_diff"] <= TOL for v in shared)
    return {"per_query_agree": pq_ok, "means_agree": mean_ok, "measures_in_reference_only":
            sorted(k for k, v in means.items() if v["tool"] is None),
            "measures_in_tool_only": sorted(k for k, v in means.items() if v["reference"] is None),
            "per_measure": per_measure, "means": means}


def print_check(task: str, tool: str, c: dict) -> None:
    verdict = "AGREE" if c["per_query_agree"] and c["means_agree"] else "DIFFER"
    print(f"    check {task}: {tool} vs {REFERENCE}: {verdict} (per-query {c['per_query_agree']}, "
          f"means {c['means_agree']} at {TOL:g})", flush=True)
    for name, v in c["per_measure"].items():
        if v["topics_differing"] or v["only_in_reference"] or v["only_in_tool"]:
            print(f"      {name}: {v['topics_differing']}/{v['topics_compared']} topics differ "
                  f"(max {v['max_abs_diff']:.3g}); only in {REFERENCE}: {v['only_in_reference']}, "
                  f"only in {tool}: {v['only_in_tool']}")
    bad = {k: v for k, v in c["means"].items() if v["abs_diff"] is not None and v["abs_diff"] > TOL}
    for name, v in list(bad.items())[:12]:
        print(f"      mean {name}: {REFERENCE} {v['reference']:.6f} vs {tool} {v['tool']:.6f}")
    if c["measures_in_reference_only"]:
        print(f"      measures missing from {tool}: {', '.join(c['measures_in_reference_only'][:20])}")
    if c["measures_in_tool_only"]:
        print(f"      measures only in {tool}: {', '.join(c['measures_in_tool_only'][:20])}")
