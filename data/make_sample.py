"""Build the bundled sample collection in data/ from the reference data (seeded, reproducible).

    .venv/bin/python data/make_sample.py        # reads ../shared/reference (or $RANKBOARD_SHARED/reference)

What it writes (see data/README.md for provenance):
  runs/input.<run>.gz          5 of the 17 TREC 2003 Robust runs, each cut to depth 100 per topic.
                               The kept lines are the top 100 in trec_eval's order (score desc, docno
                               desc) and are written verbatim, in their original file order, so every
                               measure with cutoff <= 100 equals the official run's value.
  qrels.robust03.txt.gz        the official Robust 2003 qrels (NIST), unchanged.
  qrels.robust03.simulated-B.txt.gz
                               a SIMULATED second assessor ("simulated-B"), NOT a real person. See below.
  topics.robust03.txt          the <top> blocks of the 100 Robust 2003 topics, copied from topics.robust04.txt.
  sample.json                  the manifest that Store.open() reads to load a fresh store.

The simulated assessor re-judges every (topic, doc) pair in the NIST qrels, with per-topic error rates
so that some topics are contested and others are not, as secondary assessors were in Voorhees (2000),
"Variations in relevance judgments and the measurement of retrieval effectiveness", IP&M 36(5):
  * a relevant doc (grade >= 1) is judged non-relevant with probability p_miss[t] ~ Beta(3, 7)  (mean 0.30);
  * a highly relevant doc (grade 2) that stays relevant drops to grade 1 with probability 0.30;
  * a grade-1 doc that stays relevant is promoted to grade 2 with probability 0.05;
  * a non-relevant doc is judged relevant (grade 1) with probability p_fa[t] ~ Beta(1, 49)  (mean 0.02).
With these rates the overlap |A and B| / |A or B| of the relevant sets is about 0.5, in the range Voorhees
reports for TREC-4 secondary assessors (0.42-0.49 pairwise), and disagreement is concentrated among relevant docs.
"""
from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("RANKBOARD_SHARED", HERE.parent.parent / "shared"))
REF = SHARED / "reference"
ROBUST = REF / "trectools_robust03"
RUNS = ["pircRBa1", "aplrob03a", "UIUC03Rd1", "MU03rob01", "humR03dc"]
# pircRBa1/aplrob03a: the two best runs (MAP .310/.300, close: a good significance-test case);
# UIUC03Rd1: negative scores; MU03rob01: 97% of its docs in tied score groups; humR03dc: weak (MAP .125).
DEPTH = 100
SEED = 20031
COLLECTION = "robust03-sample"


def write_gz(path: Path, text: str) -> None:
    """Deterministic gzip (no timestamp, no name) so re-running the script changes nothing."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(text.encode("utf-8"))


def cut_run(src: Path, depth: int) -> str:
    lines = gzip.decompress(src.read_bytes()).decode("utf-8").splitlines()
    by_topic: dict[str, list[tuple[float, str, int]]] = {}
    for i, line in enumerate(lines):
        qid, _, docno, _, score, _ = line.split()
        by_topic.setdefault(qid, []).append((float(score), docno, i))
    keep = set()
    for rows in by_topic.values():
        rows.sort(key=lambda r: (r[0], r[1]), reverse=True)   # trec_eval: score desc, docno desc
        keep.update(i for _, _, i in rows[:depth])
    return "".join(line + "\n" for i, line in enumerate(lines) if i in keep)


def simulate_assessor(qrels_text: str, seed: int) -> str:
    rng = np.random.default_rng(seed)
    rows = [line.split() for line in qrels_text.splitlines() if line.strip()]
    qids = sorted({r[0] for r in rows})
    p_miss = dict(zip(qids, rng.beta(3, 7, len(qids))))
    p_fa = dict(zip(qids, rng.beta(1, 49, len(qids))))
    u = rng.random((len(rows), 2))
    out = []
    for (qid, it, docno, rel), (u1, u2) in zip(rows, u):
        grade = int(rel)
        if grade >= 1:
            if u1 < p_miss[qid]:
                grade = 0
            elif grade == 2 and u2 < 0.30:
                grade = 1
            elif grade == 1 and u2 < 0.05:
                grade = 2
        elif grade == 0 and u1 < p_fa[qid]:
            grade = 1
        out.append(f"{qid} {it} {docno} {grade}\n")
    return "".join(out)


def robust03_topics(qids: set[str]) -> str:
    text = (REF / "anserini_tools" / "topics" / "topics.robust04.txt").read_text()
    blocks = re.findall(r"<top>.*?</top>", text, re.S)
    keep = [b for b in blocks if re.search(r"<num>\s*Number:\s*(\d+)", b).group(1) in qids]
    assert len(keep) == len(qids), f"found {len(keep)} of {len(qids)} topics"
    return "\n\n".join(keep) + "\n"


def main() -> None:
    (HERE / "runs").mkdir(exist_ok=True)
    for run in RUNS:
        write_gz(HERE / "runs" / f"input.{run}.gz", cut_run(ROBUST / "runs" / f"input.{run}.gz", DEPTH))
    qrels = (ROBUST / "robust03_qrels.txt").read_text()
    write_gz(HERE / "qrels.robust03.txt.gz", qrels)
    write_gz(HERE / "qrels.robust03.simulated-B.txt.gz", simulate_assessor(qrels, SEED))
    qids = {line.split()[0] for line in qrels.splitlines() if line.strip()}
    (HERE / "topics.robust03.txt").write_text(robust03_topics(qids))
    manifest = {
        "collection": COLLECTION,
        "topics": "topics.robust03.txt",
        "qrels": [{"file": "qrels.robust03.txt.gz", "assessor": "NIST"},
                  {"file": "qrels.robust03.simulated-B.txt.gz", "assessor": "simulated-B"}],
        "runs": [f"runs/input.{run}.gz" for run in RUNS],
    }
    (HERE / "sample.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
