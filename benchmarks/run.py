"""Rankboard against its peers on synthetic TREC collections.

    python benchmarks/run.py [--sizes 500,5000] [--reps 3] [--tasks eval7,official,all_trec,ingest,reeval,compare]

Every measurement is one fresh child process (`benchmarks/tools.py`), timed from outside
(wall clock around the whole process, imports included, like a user at a shell) and from
inside (`op`: the operation alone). Peak memory is the child's own max RSS (os.wait4).
Each figure is the median of --reps repetitions. The results go to the `peers` section of benchmarks/RESULTS.md
(plus benchmarks/work/results.json, merged across invocations, so sizes can be run separately); the other
sections of RESULTS.md are left as they are.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402
import report  # noqa: E402
import sections  # noqa: E402
import verify  # noqa: E402

TASKS = ["eval7", "official", "all_trec", "ingest", "reeval", "compare"]
TOOLS = {  # task -> tools timed on it (rankboard first; the floor last)
    "eval7": ["rankboard", "rankboard-cli", "pytrec_eval", "ir_measures", "ranx", "polars"],
    "official": ["rankboard", "pytrec_eval"],
    "all_trec": ["rankboard", "pytrec_eval"],
    "ingest": ["rankboard"],
    "reeval": ["rankboard"],
    "compare": ["rankboard", "ranx"],
}
N_COMPARE_RUNS = 10


def spawn(args: list[str], env=None, timeout=3600, tree: Path | None = None) -> dict:
    """Run tools.py (of the checkout `tree`, default this one) in a fresh process; wall seconds, peak RSS (MB), CPU
    seconds and the child's JSON."""
    with tempfile.NamedTemporaryFile(suffix=".json", dir=WORK, delete=False) as f:
        out = f.name
    rssf = out + ".rss"
    # /usr/bin/time reports the max RSS of the tool itself. (os.wait4 on a child forked from this
    # process would not do: Linux carries the pre-exec RSS of the forked parent into ru_maxrss.)
    tree = Path(tree) if tree is not None else ROOT
    cmd = ["/usr/bin/time", "-f", "%M", "-o", rssf, sys.executable, str(tree / "benchmarks" / "tools.py"), *args,
           "--out", out]
    t0 = time.perf_counter()
    errf = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=errf, start_new_session=True)
    killed, done = [], threading.Event()

    def watch():   # a child that outgrows the RAM cap is stopped before it hurts the machine
        while not done.wait(0.05):
            rss = tree_rss_mb(proc.pid)
            if rss > RSS_CAP_MB and not killed:
                killed.append(rss)
                os.killpg(proc.pid, 9)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    pid, status, ru = os.wait4(proc.pid, 0)   # blocks until the child ends: the wall time is exact
    wall = time.perf_counter() - t0           # (a 50 ms poll used to add 0-50 ms to every tool's time)
    done.set()
    watcher.join()
    killed = killed[0] if killed else None
    errf.seek(0)
    stderr = errf.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    Path(rssf).unlink(missing_ok=True) if killed is not None or proc.returncode != 0 else None
    if killed is not None:
        Path(out).unlink(missing_ok=True)
        return {"error": f"stopped at {killed / 1024:.1f} GB resident (cap {RSS_CAP_MB / 1024:.0f} GB)",
                "wall": wall, "rss_mb": killed}
    if proc.returncode != 0:
        Path(out).unlink(missing_ok=True)
        tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {proc.returncode}", "wall": wall}
    data = json.loads(Path(out).read_text())
    Path(out).unlink()
    try:
        rss_kb = int(Path(rssf).read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        rss_kb = ru.ru_maxrss
    Path(rssf).unlink(missing_ok=True)
    data.update(wall=wall, rss_mb=rss_kb / 1024, cpu=ru.ru_utime + ru.ru_stime)   # user + system, every thread
    return data


RSS_CAP_MB = 8 * 1024   # never let one tool use more than ~8 GB of the shared machine


def tree_rss_mb(pid: int) -> float:
    """Resident MB of a process and its children (from /proc)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return total


def measure(args, reps: int, env=None, before=None) -> dict:
    """Median over reps of wall/op/rss (+ extras); `before()` prepares each rep (untimed)."""
    samples = []
    for _ in range(reps):
        if before:
            before()
        s = spawn(args, env=env)
        if "error" in s:
            print(f"    ! {args[0]} {args[1]}: {s['error']}", flush=True)
            return s
        samples.append(s)
    med = {k: statistics.median(s[k] for s in samples) for k in ("wall", "op", "rss_mb")}
    for k in samples[0].get("extra", {}):
        vals = [s["extra"][k] for s in samples if isinstance(s["extra"].get(k), (int, float))]
        if vals:
            med[k] = statistics.median(vals)
    med["summary"] = samples[0]["summary"]
    med["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    med["walls"] = [round(s["wall"], 3) for s in samples]
    return med


def ensure_data(size: int, n_runs: int) -> Path:
    d = WORK / f"t{size}"
    have = [r for r in range(n_runs) if (d / f"run{r:02d}.txt").exists()]
    if not (d / "qrels.txt").exists() or len(have) < n_runs:
        t0 = time.perf_counter()
        counts = generate.generate(d, size, runs=[r for r in range(n_runs) if r not in have],
                                   qrels=not (d / "qrels.txt").exists())
        print(f"  generated {d} ({counts}) in {time.perf_counter() - t0:.1f} s", flush=True)
    return d


def lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(buf.count(b"\n") for buf in iter(lambda: f.read(1 << 24), b""))


def template_store(d: Path, runs: list[Path], name: str) -> Path:
    """A store with collection 'bench', the qrels and `runs`, built once (not timed)."""
    import hashlib
    code = b"".join((ROOT / "core" / f).read_bytes() for f in ("store.py", "ingest.py") if (ROOT / "core" / f).exists())
    path = d / f"{name}-{hashlib.sha1(code).hexdigest()[:8]}.duckdb"   # rebuilt when the store code changes
    if not path.exists():
        for old in d.glob(f"{name}-*.duckdb*"):
            old.unlink()
        tmp = d / f"{name}.building.duckdb"
        for p in (tmp, Path(str(tmp) + ".wal")):
            p.unlink(missing_ok=True)
        r = spawn(["rankboard", "prepare", "--qrels", str(d / "qrels.txt"), "--store", str(tmp),
                   "--runs", *map(str, runs)])
        if "error" in r:
            raise RuntimeError(f"building {path.name}: {r['error']}")
        tmp.rename(path)
    return path


def fresh_copy(template: Path, dest: Path):
    def before():
        for p in (dest, Path(str(dest) + ".wal")):
            p.unlink(missing_ok=True)
        shutil.rmtree(Path(str(dest) + ".tmp"), ignore_errors=True)
        shutil.copyfile(template, dest)
    return before


def bench_size(size: int, tasks: list[str], reps: int, tools_filter, ranx_cold: bool, do_verify: bool) -> dict:
    print(f"\n== {size:,} topics ==", flush=True)
    need_runs = N_COMPARE_RUNS if "compare" in tasks else 1
    d = ensure_data(size, need_runs)
    qrels, run0 = d / "qrels.txt", d / "run00.txt"
    out = {"size": size, "run_lines": lines(run0), "qrels_lines": lines(qrels), "tasks": {}, "checks": {}}
    base = ["--qrels", str(qrels), "--run", str(run0)]
    numba_warm = None   # ranx: the default numba cache (site-packages __pycache__), warmed below
    for task in tasks:
        res = out["tasks"].setdefault(task, {})
        tools = [t for t in TOOLS[task] if not tools_filter or t in tools_filter]
        if size > 5000 and not tools_filter:   # peers need 8.8-16 GB at 50,000 topics: not here
            tools = [t for t in tools if t in ("rankboard", "polars")]
        if task in ("eval7", "official", "all_trec"):
            if do_verify and size <= 5000:
                out["checks"][task] = verify.check(spawn, base + ["--task", task], tools, WORK / "dumps", size,
                                                   env=numba_warm)
            for tool in tools:
                if tool == "ranx" and ranx_cold:
                    cold = Path(tempfile.mkdtemp(dir=WORK, prefix="numba-cold-"))
                    res["ranx (cold JIT)"] = measure([tool, "evaluate", *base, "--task", task], 1,
                                                     env={**os.environ, "NUMBA_CACHE_DIR": str(cold)})
                    shutil.rmtree(cold, ignore_errors=True)
                    report.line(task, "ranx (cold JIT)", res["ranx (cold JIT)"])
                env = numba_warm if tool == "ranx" else None
                if tool == "ranx":   # warm the JIT cache (untimed)
                    spawn([tool, "evaluate", *base, "--task", task], env=env)
                res[tool] = measure([tool, "evaluate", *base, "--task", task], reps, env=env)
                report.line(task, tool, res[tool])
        elif task == "ingest":
            tpl = template_store(d, [], "qrels-only")
            dest = WORK / "ingest.duckdb"
            res["rankboard"] = measure(["rankboard", "ingest", "--run", str(run0), "--store", str(dest)], reps,
                                       before=fresh_copy(tpl, dest))
            report.line(task, "rankboard", res["rankboard"])
        elif task == "reeval":
            tpl = template_store(d, [run0], "one-run")
            dest = WORK / "reeval.duckdb"
            res["rankboard"] = measure(["rankboard", "reeval", "--store", str(dest)], reps,
                                       before=fresh_copy(tpl, dest))
            report.line(task, "rankboard", res["rankboard"])
        elif task == "compare":
            runs = [d / f"run{r:02d}.txt" for r in range(N_COMPARE_RUNS)]
            if "rankboard" in tools:
                tpl = template_store(d, runs, "ten-runs")
                dest = WORK / "compare.duckdb"
                res["rankboard"] = measure(["rankboard", "compare", "--store", str(dest)], reps,
                                           before=fresh_copy(tpl, dest))
                report.line(task, "rankboard", res["rankboard"])
            if "ranx" in tools and size <= 500:   # 45 pairs x 10,000 permutations: minutes at 500 topics already
                spawn(["ranx", "compare", "--qrels", str(qrels), "--runs", *map(str, runs[:2])], env=numba_warm)
                res["ranx"] = measure(["ranx", "compare", "--qrels", str(qrels), "--runs", *map(str, runs)],
                                      1, env=numba_warm)   # ~4 min a run: one repetition
                report.line(task, "ranx", res["ranx"])
    for p in WORK.glob("*.duckdb*"):
        if p.is_file():
            p.unlink()
        else:
            shutil.rmtree(p, ignore_errors=True)
    return out


def main(argv=None) -> int:
    global WORK
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="500,5000", help="topics per collection, comma-separated")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tasks", default=",".join(TASKS), help=",".join(TASKS))
    ap.add_argument("--tools", default="", help="only these tools (comma-separated)")
    ap.add_argument("--work", type=Path, default=HERE / "work")
    ap.add_argument("--ranx-cold", action="store_true", help="also time ranx once on an empty numba cache")
    ap.add_argument("--no-verify", action="store_true", help="skip the agreement checks")
    ap.add_argument("--fresh", action="store_true", help="forget earlier results in work/results.json")
    args = ap.parse_args(argv)
    WORK = args.work
    WORK.mkdir(parents=True, exist_ok=True)
    db = WORK / "results.json"
    allres = {} if args.fresh or not db.exists() else json.loads(db.read_text())
    allres.setdefault("sizes", {})
    tasks = [t for t in args.tasks.split(",") if t]
    tools = set(t for t in args.tools.split(",") if t)
    for size in [int(s) for s in args.sizes.split(",") if s]:
        load = os.getloadavg()
        r = bench_size(size, tasks, args.reps, tools, args.ranx_cold, not args.no_verify)
        r["load_before"] = load
        r["load_after"] = os.getloadavg()
        r["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        r["command"] = "python benchmarks/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
        old = allres["sizes"].get(str(size), {})
        for task, v in r["tasks"].items():    # merge: keep tools/tasks not re-run this time
            old.setdefault("tasks", {}).setdefault(task, {}).update(v)
        old.setdefault("checks", {}).update(r["checks"])
        old.update({k: v for k, v in r.items() if k not in ("tasks", "checks")})
        allres["sizes"][str(size)] = old
        db.write_text(json.dumps(allres, indent=1, default=str))
    lb = WORK / "leaderboard.json"
    if lb.exists():
        allres["leaderboard"] = json.loads(lb.read_text())
    allres["leaderboard_other"] = [json.loads(p.read_text()) for p in sorted(WORK.glob("leaderboard-*.json"))]
    allres["machine"] = machine()
    text = report.render(allres)
    print("\n" + text)
    sections.write("peers", text, "benchmarks/run.py")     # every other section of RESULTS.md stays as it is
    return 0


def machine() -> dict:
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
        except Exception:
            return "?"
    versions = {}
    for pkg in ("duckdb", "pyarrow", "numpy", "pandas", "pytrec-eval-terrier", "ir-measures", "ranx", "numba",
                "polars"):
        try:
            from importlib.metadata import version
            versions[pkg] = version(pkg)
        except Exception:
            versions[pkg] = "not installed"
    return {"nproc": os.cpu_count(), "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
            "memory": sh("free -g | awk '/Mem:/{print $2\" GB\"}'"), "python": platform.python_version(),
            "os": platform.platform(), "versions": versions, "git": sections.commit()}


WORK = HERE / "work"

if __name__ == "__main__":
    raise SystemExit(main())
