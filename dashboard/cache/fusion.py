"""The Fusion page's core calls, cached: stored runs fused (core.service.fuse_stored) and the fused run beside its
parts (core.service.fusion_report), keyed on the store, the run ids, every choice and the store's data version.
Both are st.cache_resource: one value shared by every session, read and never changed."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import catalogue
from dashboard.cache import store as store_resource
from dashboard.cache.results import SPIN


@st.cache_resource(show_spinner=SPIN, max_entries=16)
def _fused(_store, store_key: str, cid: int, run_ids: tuple, method: str, norm: str, params: tuple, weights,
           mode: str, folds: int, measure: str, version: str):
    from core.service.fusion import fuse_stored
    return fuse_stored(_store, cid, list(run_ids), method, norm=norm, params=dict(params),
                       weights=list(weights) if weights else None, tune=mode == "tune", train=mode == "train",
                       measure=measure or "nDCG@10", folds=folds)


def fused(cid: int, run_ids, *, method: str, norm: str, params: dict, weights, mode: str, folds: int,
          measure: str, ver: str):
    """core.service.fusion.StoredFusion of the stored runs `run_ids`: `mode` "set" (the parameters given), "train"
    (a learning method learns from the default qrels set) or "tune" (cross-validation over its topics)."""
    store = store_resource.get_store()
    return _fused(store, str(store.path), int(cid), tuple(int(r) for r in run_ids), method, norm,
                  tuple(sorted(params.items())), tuple(weights) if weights else None, mode, int(folds), measure, ver)


@st.cache_resource(show_spinner=SPIN, max_entries=16)
def _report(_store, _stored, store_key: str, cid: int, key: tuple, measures: tuple, name: str, test: str,
            correction: str, alpha: float, version: str):
    from core.service.fusion_report import fusion_report
    with store_resource.db_lock():    # evaluating the parts writes the results cache: one writer at a time
        return fusion_report(_store, cid, _stored, list(measures), name=name, test=test, correction=correction,
                             alpha=alpha)


def report(cid: int, run_ids, fusion: dict, *, measures, name: str, test: str, correction: str, alpha: float,
           ver: str):
    """core.service.fusion_report.FusionReport of the run `fused(cid, run_ids, **fusion, ver=ver)` beside its
    parts, every run compared with the best part by the paired `test`."""
    store = store_resource.get_store()
    stored = fused(cid, run_ids, **fusion, ver=ver)
    key = (tuple(int(r) for r in run_ids), tuple((k, repr(v)) for k, v in sorted(fusion.items())))
    return _report(store, stored, str(store.path), int(cid), key, tuple(measures), name, test, correction,
                   float(alpha), ver)


def save(collection: str, stored, name: str):
    """Store the fused run in `collection` (its name, for the messages) as `name` (core.service.fusion.save_fused: one transaction, nothing
    written when it fails), then drop the cached catalogue so every page lists it. Returns the IngestReport."""
    from core.service.fusion import save_fused
    try:
        with store_resource.db_lock():
            return save_fused(store_resource.get_store(), collection, stored, name)
    finally:
        catalogue.changed()
