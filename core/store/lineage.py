"""A run's lineage and cost metadata in the store (table `run_meta`, schema 5): written inside the caller's
transaction, read as one table per collection.

The keys are declared in core/formats/lineage.py (`META_KEYS`): `system`, `version`, `timestamp`, the cost keys
(`latency_ms`, `index_gb`, `cost_usd`, `energy_kwh`, `gpu`) and any free key. Values come from the run's
ir_metadata header when it is loaded, overridden by what the loader gives (`load --system/--version/--meta`), and
can be edited afterwards (`python -m core meta`, the Data page). A run with no `timestamp` is dated by its upload.
"""
from __future__ import annotations

import json
import re

import pandas as pd

from core.formats.lineage import LINEAGE_KEYS, META_KEYS, from_header

# every run of a collection with its metadata, one row per (run, key); runs without metadata once, with NULL key.
# uploaded_at holds the server's local time (now() cast to TIMESTAMP); it is read in UTC, as the runs' own
# timestamps are stored (core.formats.lineage), so that the two compare.
READ = """SELECT r.run_id, r.name AS run, timezone('UTC', r.uploaded_at::TIMESTAMPTZ) AS uploaded_at, m.key, m.value
FROM runs r LEFT JOIN run_meta m USING (run_id) WHERE r.collection_id = ? ORDER BY r.run_id, m.key"""


def write_meta(cur, run_id: int, values: dict[str, str | None]) -> None:
    """Set the run's keys to the (already checked) values; an empty value or None removes the key."""
    for key, value in values.items():
        cur.execute("DELETE FROM run_meta WHERE run_id = ? AND key = ?", [run_id, key]).fetchall()
        if value is not None and str(value) != "":
            cur.execute("INSERT INTO run_meta VALUES (?, ?, ?)", [run_id, key, str(value)]).fetchall()


def run_meta(cur, run_id: int) -> dict[str, str]:
    """The run's stored metadata, {key: value} (without the upload-time default of `timestamp`)."""
    return dict(cur.execute("SELECT key, value FROM run_meta WHERE run_id = ? ORDER BY key", [run_id]).fetchall())


def fill_from_headers(cur) -> None:
    """Read every stored run's ir_metadata header into run_meta (the schema 4 -> 5 upgrade); a value of the wrong
    type is left out (it stays in the header, runs.metadata)."""
    for run_id, filename, metadata in cur.execute("SELECT run_id, filename, metadata FROM runs").fetchall():
        try:
            parsed = json.loads(metadata) if metadata else {}
        except ValueError:
            continue
        write_meta(cur, run_id, from_header(parsed if isinstance(parsed, dict) else {}, filename or "", lenient=True))


def natural_key(version) -> tuple:
    """Sort key of a version in natural order: 'v2' < 'v10', '1.9' < '1.10'; no version sorts last."""
    if version is None or (isinstance(version, float) and pd.isna(version)) or str(version) == "":
        return (1,)
    parts = re.split(r"(\d+)", str(version).lower())
    return (0, tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p))


def read_lineage(cur, cid: int) -> pd.DataFrame:
    """One row per run of collection `cid`: run_id, run, system, version, timestamp (the run's, else its upload
    time), then the cost keys present (numbers as floats) in META_KEYS order, then the free keys in alphabetical
    order; in version order (`order_versions`)."""
    long = cur.execute(READ, [cid]).df()
    runs = long.drop_duplicates("run_id")[["run_id", "run", "uploaded_at"]].set_index("run_id")
    wide = long.dropna(subset=["key"]).pivot(index="run_id", columns="key", values="value")
    out = runs.join(wide, how="left")
    for key in LINEAGE_KEYS:
        if key not in out:
            out[key] = None
    uploaded = pd.to_datetime(out["uploaded_at"]).astype("datetime64[us]")
    stamped = pd.to_datetime(out["timestamp"], errors="coerce", format="ISO8601").astype("datetime64[us]")
    out["timestamp"] = stamped.fillna(uploaded)
    reserved = [k for k in META_KEYS if k in out and k not in LINEAGE_KEYS]
    free = sorted(c for c in out.columns if c not in META_KEYS and c not in ("run", "uploaded_at"))
    for key in reserved:
        if META_KEYS[key].kind == "number":
            out[key] = pd.to_numeric(out[key], errors="coerce")
    for key in ["system", "version", *(k for k in reserved if META_KEYS[k].kind == "text"), *free]:
        out[key] = out[key].astype(object).where(out[key].notna(), None)
    out = out.reset_index()[["run_id", "run", *LINEAGE_KEYS, *reserved, *free]]
    return order_versions(out)


def order_versions(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in version order: by system, then timestamp, then the natural order of version, then run id."""
    keys = frame["version"].map(natural_key)
    order = sorted(range(len(frame)), key=lambda i: (
        str(frame["system"].iat[i]) if pd.notna(frame["system"].iat[i]) else "\uffff",
        frame["timestamp"].iat[i], keys.iat[i], int(frame["run_id"].iat[i])))
    return frame.iloc[order].reset_index(drop=True)
