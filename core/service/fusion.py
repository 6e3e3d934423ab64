"""Fusion of stored runs: the runs read from the store (`Store.run_rows`, the one reader of a stored run's rows),
fused by core.fusion, and the fused run either returned or stored in the collection through the normal ingest path
(`Store.add_run`: one transaction, nothing written when it fails), its provenance in its ir_metadata (with the
parts' versions, from their lineage, when they have any).

    stored = fuse_stored(store, "robust03", ["bm25", "dense"], "rrf")           # StoredFusion(fused, report, runs)
    save_fused(store, "robust03", stored, "rrf-bm25-dense")                    # IngestReport of the new run
"""
from __future__ import annotations

import numbers
from contextlib import closing
from dataclasses import dataclass, replace

from core.errors import EvalError
from core.fusion import Fused, fuse_or_tune, method_named
from core.fusion.trec import trec_text
from core.store import edits
from core.store.ingest import collection_id, default_qrels_id

__all__ = ["StoredFusion", "fuse_stored", "save_fused", "check_new_name"]


@dataclass(frozen=True)
class StoredFusion:
    fused: Fused
    report: str | None          # --tune's report (None when not tuned)
    runs: tuple[str, ...]       # the parts' stored names, in the order fused
    run_ids: tuple[int, ...]
    qrels_id: int | None = None  # the qrels set tuned or trained on (None when neither)


def _parts(store, collection, runs) -> tuple[int, list[int], list[str]]:
    """(collection id, the runs' ids, their stored names), or an EvalError naming what is unknown."""
    with closing(store.cursor()) as cur:
        cid = collection_id(cur, collection)
        rows = cur.execute("SELECT run_id, name, n_rows FROM runs WHERE collection_id = ?", [cid]).fetchall()
        names = {r: n for r, n, _ in rows}
        ids = [int(r) if isinstance(r, numbers.Integral) and int(r) in names      # an id (the dashboard's)
               else edits.run_id(cur, cid, str(collection), str(r)) for r in runs]
        if len(set(ids)) != len(ids):
            raise EvalError("the same run is named twice. Give each stored run once.")
        if len(ids) < 2:
            raise EvalError("fusion needs at least two runs. Give two or more stored runs after --stored.")
        unranked = [str(names[r]) for r, _, n in rows if not n and r in ids]
        if unranked:
            raise EvalError(f"{', '.join(unranked)}: per-query scores only, no ranking to fuse. Fuse runs loaded "
                            "from run files.")
        return cid, ids, [str(names[i]) for i in ids]


def _qrels(store, cid: int, collection, qrels_id):
    """(the qrels set's id, its judgments, its name for the provenance: its assessor, else its file name):
    `qrels_id`, else the collection's default set."""
    with closing(store.cursor()) as cur:
        if qrels_id is None:
            qrels_id = default_qrels_id(cur, cid)
        if qrels_id is None:
            raise EvalError(f"Collection '{collection}' has no qrels to tune or train on. Load some with "
                            f"`python -m core load --collection {collection} --qrels FILE`.")
        row = cur.execute("SELECT coalesce(assessor, filename) FROM qrels_sets WHERE qrels_id = ?",
                          [int(qrels_id)]).fetchone()
    name = str(row[0]) if row and row[0] is not None else f"qrels {qrels_id}"
    return int(qrels_id), store.qrels(int(qrels_id)), name


def fuse_stored(store, collection, runs, method: str, *, norm: str | None = None, params: dict | None = None,
                weights=None, depth: int | None = 1000, tune: bool = False, train: bool = False,
                qrels_id: int | None = None, measure: str = "nDCG@10", folds: int = 5, seed: int = 0,
                step: float = 0.1) -> StoredFusion:
    """Fuse the stored `runs` (names, or ints: run ids) of `collection` with `method` (core.fusion.fuse's arguments).
    `tune` chooses the parameters by cross-validation over the topics of the qrels set `qrels_id` (None: the
    collection's default set, core.fusion.tune); `train` gives a learning method those topics to learn from."""
    m = method_named(method)
    if tune and train:
        raise EvalError("--train and --tune both ask for qrels: --tune learns on each fold's other topics. Give one.")
    with store.session():      # everything read in one turn on the store; the fusing is done after it
        cid, ids, names = _parts(store, collection, runs)
        versions = _versions(store, cid, ids)
        frames = [store.run_rows(i)[["qid", "docno", "score"]] for i in ids]
        qrels_id, qrels, set_name = _qrels(store, cid, collection, qrels_id) if tune or train else (None,) * 3
    fused, report = fuse_or_tune(frames, m.name, qrels, qrels_name=set_name, tune=tune, measure=measure,
                                 folds=folds, seed=seed, step=step, norm=norm, params=params, weights=weights,
                                 depth=depth, names=names)
    if versions:
        fused = replace(fused, provenance={**fused.provenance, "run_versions": versions})
    return StoredFusion(fused, report, tuple(names), tuple(ids), qrels_id)


def _versions(store, cid: int, ids: list[int]) -> list[str] | None:
    """The parts' versions (their lineage's `version`, "" for a part without one), in the order fused; None when no
    part has one."""
    lineage = store.lineage(cid)
    by_id = dict(zip(lineage["run_id"].astype(int), lineage["version"]))
    got = [by_id.get(i) for i in ids]
    return [str(v) if v else "" for v in got] if any(got) else None


def check_new_name(store, collection, name: str) -> None:
    """An EvalError when `name` cannot name a new run of `collection`: not one word, or taken."""
    if not name or not name.strip() or len(name.split()) != 1:
        raise EvalError(f"{name!r}: a run's name is one word, without spaces. Give e.g. rrf-fused.")
    with closing(store.cursor()) as cur:
        cid = collection_id(cur, collection)
        if cur.execute("SELECT 1 FROM runs WHERE collection_id = ? AND name = ?", [cid, name]).fetchone():
            raise EvalError(f"Collection '{collection}' already has a run named '{name}'. Choose another name, or "
                            f"delete that run first.")


def save_fused(store, collection, stored: StoredFusion, name: str):
    """Store the fused run in `collection` as run `name` (its tag too), its provenance in its metadata, through
    `Store.add_run` (one transaction: a failed write leaves the store unchanged). Returns the IngestReport."""
    check_new_name(store, collection, name)
    text = trec_text(stored.fused, name)
    return store.add_run(collection, text.encode(), filename=f"{name}.run", name=name)
