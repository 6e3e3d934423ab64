"""Build the second bundled sample collection, `dl23-llmjudge`, in data/llmjudge/ (seeded, reproducible).

    .venv/bin/python data/make_llmjudge_sample.py    # reads ../shared/reference/llmjudge (or $RANKBOARD_SHARED)

From the LLMJudge challenge data (SIGIR 2024 LLM4Eval, TREC DL 2023 passages, 25 test queries, grades 0-3):
  qrels.nist.txt.gz            the NIST labels of the 4,423 test pairs (verified equal to the official DL 2023
                               qrels, see ../shared/reference/llmjudge/README.txt), ids mapped back to DL 2023 ids.
  qrels.<judge>.txt.gz         six of the 33 LLM judges' labels for exactly the same pairs, unchanged but for the ids.
  topics.dl23.tsv              the 25 queries (qid TAB text).
  runs/run.simulated-*.gz      SIMULATED runs (the challenge has no runs). NOT real systems. See `simulate_run`.
  ../sample_llmjudge.json      the manifest that Store.open() reads to load a fresh store.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from make_sample import write_gz

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("RANKBOARD_SHARED", HERE.parent.parent / "shared"))
SRC = SHARED / "reference" / "llmjudge"
OUT = HERE / "llmjudge"
SEED = 2023
DEPTH = 50
# a spread of agreement with NIST (Cohen's kappa on the 4,423 pairs): UMBRELA (0.29), h2oloo few-shot (0.28),
# Olz GPT-4o (0.26), RMITIR GPT-4o (0.24, under-rates), TREMA 4-prompts (0.18, over-rates), TREMA nuggets (0.06)
JUDGES = ["willia-umbrela1", "h2oloo-fewself", "Olz-gpt4o", "RMITIR-GPT4o", "TREMA-4prompts", "TREMA-nuggets"]
# name -> (whose labels drive the score, noise sd): the scores are label + N(0, sd) noise
RUNS = {"simulated-strong": ("nist", 0.8), "simulated-medium": ("nist", 1.4), "simulated-weak": ("nist", 2.5),
        "simulated-llm-reranker": ("willia-umbrela1", 0.8), "simulated-holes": ("nist", 1.0),
        "simulated-random": ("nist", 1e6)}
UNJUDGED = 12          # passages judged for other queries added to each topic's candidates (retrieved, unjudged)


def mapping(name: str) -> dict[str, str]:
    pairs = (line.split("\t") for line in (SRC / "id_mapping" / name).read_text().splitlines() if line)
    return {idx: real for real, idx in pairs}


def read_labels(path: Path, q: dict, d: dict) -> list[tuple[str, str, int]]:
    out = []
    for line in path.read_text().splitlines():
        qidx, _, pidx, label = line.split()
        out.append((q[qidx], d[pidx], int(label)))
    return out


def simulate_run(name: str, labels: dict, pool: dict, rng) -> str:
    """Per topic: the judged passages plus UNJUDGED passages of other topics; score = the driving labels
    (unjudged passages: a grade drawn uniformly from 0..3) + N(0, sd) noise; the top DEPTH are written.
    `simulated-holes` pushes its unjudged passages up (+1.5), so its top ranks have holes in the pool."""
    source, sd = RUNS[name]
    lines = []
    for qid in sorted(pool):
        docs = sorted(pool[qid])
        others = sorted({d for t, ds in pool.items() if t != qid for d in ds} - set(docs))
        extra = list(rng.choice(others, UNJUDGED, replace=False))
        grade = np.array([labels[source][qid, d] for d in docs] + list(rng.integers(0, 4, UNJUDGED)), float)
        if name == "simulated-holes":
            grade[len(docs):] += 1.5
        score = grade + rng.normal(0.0, sd, len(grade)) if sd < 1e5 else rng.random(len(grade))
        order = np.argsort(-score, kind="stable")[:DEPTH]
        names = docs + extra
        lines += [f"{qid} Q0 {names[i]} {r + 1} {score[i]:.4f} {name}" for r, i in enumerate(order)]
    return "\n".join(lines) + "\n"


def main() -> None:
    q, d = mapping("qid_to_qidx.txt"), mapping("docid_to_docidx.txt")
    (OUT / "runs").mkdir(parents=True, exist_ok=True)
    nist = read_labels(SRC / "human" / "llmjudge_test_qrel_idx.txt", q, d)
    sets = {"nist": nist} | {j: read_labels(SRC / "llm_judges" / f"{j}.txt", q, d) for j in JUDGES}
    for name, rows in sets.items():
        write_gz(OUT / f"qrels.{name}.txt.gz", "".join(f"{a} 0 {b} {c}\n" for a, b, c in sorted(rows)))
    texts = dict(line.split("\t", 1) for line in (SRC / "llm4eval_query_2024.txt").read_text().splitlines() if line)
    qids = sorted({a for a, _, _ in nist})
    (OUT / "topics.dl23.tsv").write_text("".join(f"{qid}\t{texts[idx].strip()}\n" for idx, qid in
                                                 sorted(((i, r) for i, r in q.items()), key=lambda x: x[1])
                                                 if qid in qids))
    labels = {name: {(a, b): c for a, b, c in rows} for name, rows in sets.items()}
    pool: dict[str, set] = {}
    for a, b, _ in nist:
        pool.setdefault(a, set()).add(b)
    rng = np.random.default_rng(SEED)
    for name in RUNS:
        write_gz(OUT / "runs" / f"run.{name}.gz", simulate_run(name, labels, pool, rng))
    manifest = {"collection": "dl23-llmjudge", "topics": "llmjudge/topics.dl23.tsv",
                "qrels": [{"file": "llmjudge/qrels.nist.txt.gz", "assessor": "NIST"}]
                + [{"file": f"llmjudge/qrels.{j}.txt.gz", "assessor": j} for j in JUDGES],
                "runs": [f"llmjudge/runs/run.{name}.gz" for name in RUNS]}
    (HERE / "sample_llmjudge.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
