"""A nuggets file and an assignments file in nuggetizer's formats: 3 runs (RAG answers) and 5 topics.

Topic t2 has no vital nugget (and one whose text is markdown and HTML, to be shown literally), t3 has the same nugget twice, t4 has a long nugget (to wrap in the dashboard), t5 has
no nugget at all. The labels are drawn with a fixed seed; one is "failed", as nuggetizer writes when its model
gives none. Run rag-dense lists the nuggets of t1 in another order than the nuggets file.
"""
from __future__ import annotations

import json

import numpy as np

LONG = ("The 2019 survey of retrieval-augmented generation systems found that answers which cite the passages they "
        "draw on are judged more trustworthy by assessors, even when the cited passages are only partly relevant, "
        "and that this effect is strongest for questions about medicine and law where errors are costly")
MARKUP = "Black tea is *fully* oxidised, <b>not</b> green :tea: -> www.example.com [1](#x)"
NUGGETS = {
    "t1": [("Paris is the capital of France", "vital"), ("The Seine flows through Paris", "vital"),
           ("Paris has about two million inhabitants", "okay"), ("The Louvre is in Paris", "okay")],
    "t2": [("Tea originated in China", "okay"), ("Green tea is not fermented", "okay"),
           (MARKUP, "okay")],
    "t3": [("BM25 is a bag-of-words ranking function", "vital"), ("BM25 saturates term frequency", "vital"),
           ("It is used by Lucene", "okay"), ("It is used by Lucene", "okay"), ("k1 is usually 1.2", "okay")],
    "t4": [(LONG, "vital"), ("Citations help assessors", "vital")],
    "t5": [],
}
RUNS = ("rag-bm25", "rag-dense", "rag-hybrid")
LABELS = ("support", "partial_support", "not_support")


def assignments(seed: int = 7, skip: tuple[tuple[str, str], ...] = ()) -> list[dict]:
    """nuggetizer's assign output: one record per run and topic (those in `skip`, (run, qid), left out)."""
    rng = np.random.default_rng(seed)
    records = []
    for run in RUNS:
        for qid, nuggets in NUGGETS.items():
            labels = rng.choice(LABELS, size=len(nuggets)).tolist()
            given = [{"text": t, "importance": i, "assignment": a} for (t, i), a in zip(nuggets, labels)]
            if (run, qid) == ("rag-dense", "t1"):
                given = given[::-1]
            if (run, qid) == ("rag-hybrid", "t3"):
                given[0]["assignment"] = "failed"
            if (run, qid) not in skip:
                records.append({"query": f"question {qid}", "qid": qid, "answer_text": f"answer of {run}",
                                "response_length": 42, "run_id": run, "nuggets": given})
    return records


def nuggets_jsonl() -> str:
    return "".join(json.dumps({"query": f"question {qid}", "qid": qid,
                               "nuggets": [{"text": t, "importance": i} for t, i in nuggets]}) + "\n"
                   for qid, nuggets in NUGGETS.items())


def assignments_jsonl(records: list[dict] | None = None) -> str:
    return "".join(json.dumps(r) + "\n" for r in (assignments() if records is None else records))


def write(folder, skip: tuple[tuple[str, str], ...] = ()):
    """Both files in `folder` -> (nuggets path, assignments path)."""
    nuggets, assigned = folder / "nuggets.jsonl", folder / "assignments.jsonl"
    nuggets.write_text(nuggets_jsonl())
    assigned.write_text(assignments_jsonl(assignments(skip=skip)))
    return nuggets, assigned
