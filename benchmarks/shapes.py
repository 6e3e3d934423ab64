"""Evaluate (7 measures) on five shapes of a ~5M-line run, Rankboard against pytrec_eval.

    flock /tmp/rankboard-bench.lock python benchmarks/shapes.py [--reps 3] [--shapes ties,shuffled] [--label NOTE]
        [--before TREE]

Shapes, all from fixed seeds (written once to benchmarks/work/shapes/):
- ties:     generate.py's 5,000-topic run 0: topics one after another, 3-decimal scores, ties listed in pool
            order (not trec_eval's docno-descending order)
- shuffled: the same lines in a random order (topics interleaved)
- gzip:     the ties file, gzip-compressed
- msmarco:  the same rankings as MS MARCO's 3 tab-separated columns (qid, docno, rank)
- robust:   the 17 TREC 2003 Robust runs of tests/reference/trectools_robust03, copy k of the topics
            renamed '<qid>-<k>' and served by run k mod 17, up to ~5M lines (qrels copied alike)

pytrec_eval reads each file line by line into dicts, as its users do (tools.py pytrec_eval_lines). The library
floor (tools.py library_floor) is the least any pipeline on Rankboard's libraries does for the same answer.
Each figure: the median wall time of --reps fresh processes (the tools alternating), peak RSS, and the load
average before it. With --before TREE, Rankboard as checked out in TREE (another commit, e.g. a `git worktree`)
alternates with the others too, and its own column is added: the same shapes, before and after a change. The
table replaces the `shapes` section of benchmarks/RESULTS.md (benchmarks/sections.py), its
heading naming the date and the commit measured; benchmarks/work/shapes.json keeps every run's rows.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402
import run as runner  # noqa: E402
import sections  # noqa: E402

WORK = HERE / "work" / "shapes"
SHAPES = ["ties", "shuffled", "gzip", "msmarco", "robust"]
SEED = 20261124
ROBUST = HERE.parent / "tests" / "reference" / "trectools_robust03"
TARGET_LINES = 5_000_000


def _base() -> Path:
    base = WORK / "base"
    if not (base / "run00.txt").exists():
        generate.generate(base, 5000, 1)
    return base


def build(shape: str) -> tuple[Path, Path]:
    """(qrels, run) files of a shape, written on first use."""
    WORK.mkdir(parents=True, exist_ok=True)
    if shape == "robust":
        return _robust()
    base = _base()
    qrels, src = base / "qrels.txt", base / "run00.txt"
    out = WORK / {"ties": "ties.txt", "shuffled": "shuffled.txt", "gzip": "ties.txt.gz", "msmarco": "msmarco.tsv"}[shape]
    if out.exists():
        return qrels, out
    tmp = out.with_suffix(out.suffix + ".tmp")
    if shape == "ties":
        shutil.copyfile(src, tmp)
    elif shape == "gzip":
        with open(src, "rb") as f, gzip.open(tmp, "wb", compresslevel=6) as g:
            shutil.copyfileobj(f, g, 1 << 24)
    elif shape == "shuffled":
        lines = src.read_bytes().splitlines()
        order = np.random.default_rng(SEED).permutation(len(lines))
        tmp.write_bytes(b"\n".join(lines[i] for i in order) + b"\n")
        del lines
    else:   # msmarco: qid, docno, the file's rank
        t = pacsv.read_csv(src, read_options=pacsv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score", "tag"]),
                           parse_options=pacsv.ParseOptions(delimiter=" "),
                           convert_options=pacsv.ConvertOptions(column_types={"qid": pa.string(), "docno": pa.string()}))
        pacsv.write_csv(t.select(["qid", "docno", "rank"]), tmp,
                        pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none"))
    tmp.rename(out)
    return qrels, out


def _robust() -> tuple[Path, Path]:
    """Fields are rejoined with single spaces (some of the runs separate them with tabs)."""
    qrels_out, run_out = WORK / "robust_qrels.txt", WORK / "robust_run.txt"
    if run_out.exists():
        return qrels_out, run_out
    runs = [[line.split() for line in gzip.open(p, "rt")] for p in sorted((ROBUST / "runs").glob("input.*.gz"))]
    qrels = [line.split() for line in gzip.open(ROBUST / "robust03_qrels.txt.gz", "rt")]
    n, k = 0, 0
    with open(run_out.with_suffix(".tmp"), "w") as rw, open(qrels_out, "w") as qw:
        while n < TARGET_LINES:
            rw.writelines(f"{f[0]}-{k} {' '.join(f[1:])}\n" for f in runs[k % len(runs)])
            qw.writelines(f"{f[0]}-{k} {' '.join(f[1:])}\n" for f in qrels)
            n += len(runs[k % len(runs)])
            k += 1
    run_out.with_suffix(".tmp").rename(run_out)
    return qrels_out, run_out


def _lines(path: Path) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))


def measure(shape: str, reps: int, before: Path | None = None) -> dict:
    qrels, run = build(shape)
    row = {"shape": shape, "lines": _lines(run), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    tools = ("rankboard", "pytrec_eval-lines", "library-floor") + (("rankboard-before",) if before else ())
    taken = {tool: [] for tool in tools}
    for _ in range(reps):                    # the tools alternate, so a drift of the machine touches them alike
        for tool in tools:
            load = os.getloadavg()
            name, tree = ("rankboard", before) if tool == "rankboard-before" else (tool, None)
            s = runner.spawn([name, "evaluate", "--task", "eval7", "--qrels", str(qrels), "--run", str(run)],
                             tree=tree)
            if "error" in s:
                raise SystemExit(f"{tool} on {shape}: {s['error']}")
            taken[tool].append((s, load))
    for tool, samples in taken.items():
        row[tool] = {"wall": statistics.median(s["wall"] for s, _ in samples),
                     "walls": [round(s["wall"], 2) for s, _ in samples],
                     "rss_mb": statistics.median(s["rss_mb"] for s, _ in samples),
                     "cpu": statistics.median(s["cpu"] for s, _ in samples),
                     "load": [round(x[0], 2) for _, x in samples], "summary": samples[0][0]["summary"]}
    a, b = row["rankboard"]["summary"], row["pytrec_eval-lines"]["summary"]
    row["agree"] = all(abs(a[m] - b[m]) < 1e-6 for m in b if m in a) and set(b) <= set(a)
    row["ratio"] = row["rankboard"]["wall"] / row["pytrec_eval-lines"]["wall"]
    r, p, f = row["rankboard"], row["pytrec_eval-lines"], row["library-floor"]
    print(f"{shape:9s} {row['lines']:>9,} lines  rankboard {r['wall']:.2f} s (CPU {r['cpu']:.2f} s) "
          f"{r['rss_mb']:.0f} MB  "
          f"pytrec_eval {p['wall']:.2f} s {p['rss_mb']:.0f} MB  ratio {row['ratio']:.2f}x  agree {row['agree']}  "
          f"library floor {f['wall']:.2f} s ({f['wall'] / p['wall']:.2f}x)  "
          + (f"before {row['rankboard-before']['wall']:.2f} s  " if before else "")
          + f"load {r['load']} / {p['load']} / {f['load']}", flush=True)
    return row


def table(rows: dict, label: str, git: str) -> str:
    """The `shapes` section of RESULTS.md: the shapes measured in this run (`rows`: shape -> measure()'s row)."""
    when = max((r["when"] for r in rows.values()), default="?")
    worst = max((r["ratio"] for r in rows.values()), default=0)
    out = [sections.heading("Run shapes: evaluate (7 measures), Rankboard against pytrec_eval", when, git), "",
           f"`{' '.join(['python benchmarks/shapes.py', *sys.argv[1:]])}`" + (f"; {label}" if label else "") + ". "
           "pytrec_eval reads each file line by line into dicts (see the script's docstring for the shapes).",
           "wall = median of the reps, each a fresh process, the tools alternating; peak MB = max RSS; load = the",
           "1-minute load average before each rep (loads above ~1 inflate every tool's time). The worst ratio is in",
           "bold. Rankboard CPU s = median user + system seconds over all its threads; floor = that CPU spread",
           "perfectly over the 2 cores (CPU / 2), as a ratio to pytrec_eval's wall: no schedule of the same work can",
           "go below it. library floor = the wall time of the least any pipeline on these libraries does for the",
           "same answer (tools.py `library_floor`: DuckDB reads run and qrels, checks that no document repeats in a",
           "topic, as trec_eval requires, and joins them; no ranking, measures or result frame), and its ratio to",
           "pytrec_eval's wall.", "",
           "| shape | lines | Rankboard s | pytrec_eval s | ratio | Rankboard CPU s | floor | library floor s | "
           "Rankboard / library floor | Rankboard before s | "
           "Rankboard MB | pytrec_eval MB | same values | measured | load (Rankboard / pytrec_eval / library floor) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for shape in SHAPES:
        r = rows.get(shape)
        if r is None:
            continue
        a, b = r["rankboard"], r["pytrec_eval-lines"]
        ratio = f"**{r['ratio']:.2f}x**" if r["ratio"] == worst else f"{r['ratio']:.2f}x"
        cpu, floor = (f"{a['cpu']:.2f}", f"{a['cpu'] / 2 / b['wall']:.2f}x") if "cpu" in a else ("-", "-")
        lib = r.get("library-floor")
        over = f"{a['wall'] / lib['wall']:.2f}x" if lib else "-"
        lib = f"{lib['wall']:.2f} ({lib['wall'] / b['wall']:.2f}x)" if lib else "-"
        old = r.get("rankboard-before")
        old = f"{old['wall']:.2f} ({', '.join(map(str, old['walls']))})" if old else "-"
        out.append(f"| {shape} | {r['lines']:,} | {a['wall']:.2f} ({', '.join(map(str, a['walls']))}) | "
                   f"{b['wall']:.2f} ({', '.join(map(str, b['walls']))}) | {ratio} | {cpu} | {floor} | {lib} | "
                   f"{over} | {old} | "
                   f"{a['rss_mb']:.0f} | {b['rss_mb']:.0f} | {'yes' if r['agree'] else 'NO'} | {r['when']} | "
                   f"{' / '.join(', '.join(map(str, t['load'])) for t in (a, b, r.get('library-floor')) if t)} |")
    if rows:
        out += ["", f"Worst shape: {max(rows.values(), key=lambda r: r['ratio'])['shape']} at {worst:.2f}x "
                    "pytrec_eval's wall time."]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="", help="a note printed with the table, e.g. what else ran on the machine")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--before", type=Path, default=None, metavar="TREE",
                    help="also time Rankboard as checked out in TREE (another commit), alternating with the others")
    args = ap.parse_args(argv)
    shapes = [s for s in args.shapes.split(",") if s]
    if args.build_only:
        for s in shapes:
            print(s, *build(s))
        return 0
    store = WORK / "shapes.json"
    results = json.loads(store.read_text()) if store.exists() else {}
    git = sections.commit()
    key = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} {git}"
    rows = results.setdefault(key, {})
    for s in shapes:
        rows[s] = measure(s, args.reps, args.before)
        store.write_text(json.dumps(results, indent=1))
    sections.write("shapes", table(rows, args.label, git), "benchmarks/shapes.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
