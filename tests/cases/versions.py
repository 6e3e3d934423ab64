"""Four versions of one system, built from the bundled sample run pircRBa1 cut to its first 20 topics, as run files:
v1 is the run; v2 swaps the top two documents of every other topic (a small change); v9 lifts every relevant
document the run retrieved to the top (a large gain on nearly every topic: a significant step); v10 is v9 with
v2's swap. The versions' natural order (v1, v2, v9, v10) differs from their text order (v1, v10, v2, v9)."""
from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = "bm25"
VERSIONS = ("v1", "v2", "v9", "v10")
TOPICS = 20


def _run() -> pd.DataFrame:
    rows = [line.split() for line in gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes())
            .decode().splitlines() if line.strip()]
    df = pd.DataFrame(rows, columns=["qid", "q0", "docno", "rank", "score", "tag"])
    df["score"] = df["score"].astype(float)
    keep = list(dict.fromkeys(df["qid"]))[:TOPICS]
    return df[df["qid"].isin(keep)].reset_index(drop=True)


def _relevant() -> set[tuple[str, str]]:
    lines = gzip.decompress((ROOT / "data/qrels.robust03.txt.gz").read_bytes()).decode().split("\n")
    return {(p[0], p[2]) for p in (line.split() for line in lines) if len(p) == 4 and int(p[3]) > 0}


def _swap_top_two(df: pd.DataFrame, every_other: int) -> pd.DataFrame:
    """Swap the scores of each chosen topic's top two documents (topics 0, 2, 4 ... or 1, 3, 5 ...)."""
    df = df.sort_values(["qid", "score", "docno"], ascending=[True, False, False]).reset_index(drop=True)
    place = df.groupby("qid").cumcount().to_numpy()
    topic = pd.factorize(df["qid"])[0]
    chosen = topic % 2 == every_other
    first, second = (chosen & (place == 0)).nonzero()[0], (chosen & (place == 1)).nonzero()[0]
    scores = df["score"].to_numpy().copy()
    scores[first], scores[second] = df["score"].to_numpy()[second], df["score"].to_numpy()[first]
    return df.assign(score=scores)


def versions() -> dict[str, pd.DataFrame]:
    v1 = _run()
    relevant = _relevant()
    lifted = v1.assign(score=v1["score"] + [1000.0 if (q, d) in relevant else 0.0
                                             for q, d in zip(v1["qid"], v1["docno"])])
    return {"v1": v1, "v2": _swap_top_two(v1, 0), "v9": lifted, "v10": _swap_top_two(lifted, 1)}


def write_versions(folder: Path) -> dict[str, Path]:
    """version -> run file (tag bm25-<version>) in `folder`."""
    out = {}
    for version, df in versions().items():
        path = Path(folder) / f"{SYSTEM}-{version}.run"
        path.write_text("".join(f"{q} Q0 {d} {i} {s:.4f} {SYSTEM}-{version}\n" for i, (q, d, s) in
                                enumerate(zip(df["qid"], df["docno"], df["score"]))))
        out[version] = path
    return out


def load_args(folder: Path) -> list[str]:
    """`python -m core load` arguments for the four versions (each with --system and --version)."""
    args = []
    for version, path in write_versions(folder).items():
        args += ["--run", str(path), "--name", f"{SYSTEM}-{version}", "--system", SYSTEM, "--version", version]
    return args


def add_versions(store, collection: str, folder: Path, *, system: str = SYSTEM) -> dict[str, int]:
    """Load the four versions into a store (Store.add_run with their system and version); version -> run id."""
    out = {}
    for version, path in write_versions(folder).items():
        out[version] = store.add_run(collection, str(path), name=f"{system}-{version}",
                                     meta={"system": system, "version": version}).id
    return out
