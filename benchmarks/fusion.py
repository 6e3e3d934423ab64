"""Fusing five run files into one, Rankboard's `python -m core fuse` against ranx, reading the files included.

    flock /tmp/rankboard-bench.lock python benchmarks/fusion.py [--lines 1000000] [--reps 3] [--methods rrf,wsum]
        [--label NOTE] [--print]

The runs (written once to benchmarks/work/fusion/, from a fixed seed): five TREC run files of --lines lines each,
--depth documents (default 1,000) for each of lines / depth topics, topic by topic, best first. Each topic has a
pool of 2 x depth documents that every run draws its depth documents from (so the runs overlap by about half);
run k's scores are a noisy copy of a shared relevance score on its own scale (BM25-like, cosine-like, logits), 3
decimals, with equal scores set apart by 1e-7 steps: ranx orders equal scores in no defined order (docs/fusion.md),
so untied runs let both tools give the same fused run.

Each rep runs the two tools one after the other ("pair by pair"), each in a fresh process under /usr/bin/time, with
the 1-minute load average read before it:
- rankboard: `python -m core fuse RUN x5 --method M --depth 1000000000 -o OUT` (ranx keeps every document; so
  does this depth), min-max normalisation (both tools' default);
- ranx: `Run.from_file` of each file, `ranx.fuse(runs, method=M, norm="min-max")`, `Run.save` in TREC format.
Methods: rrf (k=60, places only) and wsum (equal weights 0.2, min-max scores). One untimed run of each tool comes
first (ranx's numba functions compile and are cached on disk then). Both outputs are read back and compared: the
same (topic, document) pairs and the same scores to 1e-6. The table replaces the `fusion` section of
benchmarks/RESULTS.md (benchmarks/sections.py), unless --print, which prints it instead.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import sections  # noqa: E402

WORK = HERE / "work" / "fusion"
SEED = 20261127
N_RUNS = 5
PARAMS = {"rrf": {"k": 60}, "wsum": {"weights": [1 / N_RUNS] * N_RUNS}}

RANX = """
import sys
from ranx import Run, fuse
method, out, params, paths = sys.argv[1], sys.argv[2], __import__("json").loads(sys.argv[3]), sys.argv[4:]
runs = [Run.from_file(p, kind="trec") for p in paths]
fuse(runs=runs, norm="min-max", method=method, params=params).save(out, kind="trec")
"""


def build(lines: int, depth: int) -> list[Path]:
    """The five run files of `lines` lines, written on first use."""
    folder = WORK / f"l{lines}-d{depth}"
    paths = [folder / f"run{k}.txt" for k in range(N_RUNS)]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    topics, pool = max(1, lines // depth), 2 * depth
    merit = rng.gamma(1.5, 1.0, (topics, pool))                 # the shared relevance of each pool document
    scales = [lambda s: 4 + 3 * s, lambda s: 0.5 + 0.1 * np.tanh(s), lambda s: 2 * s - 3,
              lambda s: 10 * np.logaddexp(0, s), lambda s: 1 / (1 + np.exp(-s))]
    qid = np.repeat(np.arange(topics) + 1, depth)
    for k, path in enumerate(paths):
        docs = np.argsort(rng.random((topics, pool)), axis=1)[:, :depth]          # depth of the topic's pool
        noisy = np.take_along_axis(merit, docs, 1) + rng.normal(0, 0.7, docs.shape)
        score = np.round(scales[k](noisy), 3)
        order = np.argsort(-score, axis=1, kind="stable")
        docs, score = np.take_along_axis(docs, order, 1), np.take_along_axis(score, order, 1)
        score = score + np.arange(depth, 0, -1) * 1e-7        # equal 3-decimal scores apart, in the same order
        frame = pd.DataFrame({"qid": qid, "q0": "Q0", "docno": [f"D{t + 1}-{d}" for t, d in
                                                               zip(qid - 1, docs.ravel())],
                              "rank": np.tile(np.arange(1, depth + 1), topics), "score": score.ravel(),
                              "tag": f"run{k}"})
        tmp = path.with_suffix(".tmp")
        frame.to_csv(tmp, sep=" ", header=False, index=False, float_format="%.7f")
        tmp.rename(path)
    return paths


def timed(cmd: list[str]) -> dict:
    """Wall seconds, peak RSS (MB, /usr/bin/time) and the load average before, of one fresh process."""
    with tempfile.NamedTemporaryFile(suffix=".rss", dir=WORK, delete=False) as f:
        rss = Path(f.name)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(rss), *cmd], cwd=ROOT, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ...: exit {done.returncode}\n{done.stderr[-2000:]}")
    mb = int(rss.read_text().split()[-1]) / 1024
    rss.unlink()
    return {"wall": wall, "rss_mb": mb, "load": round(load, 2)}


def command(tool: str, method: str, paths: list[Path], out: Path) -> list[str]:
    if tool == "rankboard":
        return [sys.executable, "-m", "core", "fuse", *map(str, paths), "--method", method, "--norm", "min-max",
                "--depth", "1000000000", "-o", str(out)]
    return [sys.executable, "-c", RANX, method, str(out), json.dumps(PARAMS[method]), *map(str, paths)]


def same(a: Path, b: Path) -> bool:
    """The same (topic, document) pairs with the same scores to 1e-6."""
    cols = ["qid", "q0", "docno", "rank", "score", "tag"]
    x, y = (pd.read_csv(p, sep=r"\s+", header=None, names=cols, comment="#", dtype={"qid": str, "docno": str})
            for p in (a, b))
    both = x.merge(y, on=["qid", "docno"], how="outer", indicator=True)
    return bool((both["_merge"] == "both").all() and np.allclose(both["score_x"], both["score_y"], atol=1e-6))


def measure(method: str, paths: list[Path], reps: int) -> dict:
    outs = {tool: WORK / f"out-{tool}-{method}.txt" for tool in ("rankboard", "ranx")}
    for tool, out in outs.items():                       # untimed: ranx's numba functions compile and cache
        timed(command(tool, method, paths, out))
    taken = {tool: [] for tool in outs}
    for _ in range(reps):
        for tool, out in outs.items():                   # pair by pair: the tools alternate
            taken[tool].append(timed(command(tool, method, paths, out)))
    row = {"method": method, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "agree": same(outs["rankboard"], outs["ranx"])}
    for tool, samples in taken.items():
        row[tool] = {"wall": statistics.median(s["wall"] for s in samples),
                     "walls": [round(s["wall"], 2) for s in samples],
                     "rss_mb": statistics.median(s["rss_mb"] for s in samples), "load": [s["load"] for s in samples]}
    row["ratio"] = row["rankboard"]["wall"] / row["ranx"]["wall"]
    print(f"{method:5s} rankboard {row['rankboard']['wall']:.2f} s  ranx {row['ranx']['wall']:.2f} s  ratio "
          f"{row['ratio']:.2f}x  same scores {row['agree']}  load {row['rankboard']['load']} / "
          f"{row['ranx']['load']}", flush=True)
    return row


def table(rows: list[dict], lines: int, depth: int, label: str, git: str) -> str:
    when = max(r["when"] for r in rows)
    out = [sections.heading(f"Fusion: five {lines:,}-line runs, Rankboard's fuse against ranx", when, git), "",
           f"`{' '.join(['python benchmarks/fusion.py', *sys.argv[1:]])}`" + (f"; {label}" if label else "") + ". "
           f"Five runs of {max(1, lines // depth):,} topics x {depth:,} documents that overlap by about half (see "
           "the script's docstring), fused into one with min-max normalisation; each tool a fresh process that",
           "reads the five files and writes the fused run (every document kept), the tools alternating. wall = "
           "median of the reps (each rep's wall in brackets); MB = median peak RSS; load = the 1-minute load",
           "average before each rep; same = the same documents and scores to 1e-6.", "",
           "| method | Rankboard s | ranx s | Rankboard / ranx | Rankboard MB | ranx MB | same | measured | "
           "load (Rankboard / ranx) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a, b = r["rankboard"], r["ranx"]
        out.append(f"| {r['method']} | {a['wall']:.2f} ({', '.join(map(str, a['walls']))}) | {b['wall']:.2f} "
                   f"({', '.join(map(str, b['walls']))}) | {r['ratio']:.2f}x | {a['rss_mb']:.0f} | "
                   f"{b['rss_mb']:.0f} | {'yes' if r['agree'] else 'NO'} | {r['when']} | "
                   f"{', '.join(map(str, a['load']))} / {', '.join(map(str, b['load']))} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000, help="lines of each run (default: 1,000,000)")
    ap.add_argument("--depth", type=int, default=1000, help="documents per topic (default: 1,000)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--methods", default="rrf,wsum")
    ap.add_argument("--label", default="", help="a note printed with the table, e.g. what else ran on the machine")
    ap.add_argument("--print", action="store_true", help="print the section instead of writing it to RESULTS.md")
    args = ap.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    paths = build(args.lines, args.depth)
    rows = [measure(m, paths, args.reps) for m in args.methods.split(",") if m]
    (WORK / "fusion.json").write_text(json.dumps(rows, indent=1))
    text = table(rows, args.lines, args.depth, args.label, sections.commit())
    if args.print:
        print(text)
    else:
        sections.write("fusion", text, "benchmarks/fusion.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
