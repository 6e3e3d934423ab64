"""Store helpers for every part's tests.

    from tests.fixtures_store import fresh_store, sample_store

    def test_something(tmp_path):
        with sample_store(tmp_path) as store:          # the bundled robust03-sample collection
            runs = store.runs("robust03-sample")

`fresh_store(tmp_path)` is an empty store (schema only). `sample_store(tmp_path)` holds the sample
collection from data/ (5 runs at depth 100, NIST + simulated-B qrels, 100 topics); it is built once
per test process and copied, so it costs a file copy per test. Both return an open `Store` (a
context manager that closes it). The pytest fixtures `empty_store` and `seeded_store` wrap them.
`snapshot(store)` is every row of every table (to check that a failed write changed nothing), `file_rows(path)` the
same for a store file without its timestamps (to compare two loads);
`assert_derived(store)` checks run_topics and judged_rows against their defining SQL.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from core.store.store import Store

SAMPLE_COLLECTION = "robust03-sample"
_template: Path | None = None


def fresh_store(tmp_path: Path, name: str = "fresh.duckdb") -> Store:
    """An empty store (schema only, no sample) in tmp_path."""
    return Store.open(Path(tmp_path) / name, load_sample=False)


def _sample_template() -> Path:
    global _template
    if _template is None or not _template.exists():
        path = Path(tempfile.mkdtemp(prefix="rankboard-sample-")) / "sample.duckdb"
        Store.open(path, load_sample=True).close()
        _template = path
    return _template


def sample_store(tmp_path: Path, name: str = "sample.duckdb") -> Store:
    """A store holding the sample collection from data/, in tmp_path."""
    target = Path(tmp_path) / name
    shutil.copyfile(_sample_template(), target)
    return Store.open(target, load_sample=False)


@pytest.fixture
def empty_store(tmp_path):
    store = fresh_store(tmp_path)
    yield store
    store.close()


@pytest.fixture
def seeded_store(tmp_path):
    store = sample_store(tmp_path)
    yield store
    store.close()


# RANKBOARD_STREAM_MIN_MB for the two ways a run is loaded: every run read in pieces, or every run parsed whole
STREAM_WAYS = {"pieces": "0", "whole": "100000"}


def file_rows(path) -> dict:
    """Every row of every table of the store file at `path`, timestamps left out (they differ between two loads)."""
    with Store.open(path) as store, store.session() as con:
        cur = con.cursor()
        tables = [r[0] for r in cur.execute("SELECT table_name FROM information_schema.tables "
                                            "WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        out = {}
        for t in tables:
            cols = [r[0] for r in cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                              "AND data_type NOT LIKE 'TIMESTAMP%' ORDER BY ordinal_position",
                                              [t]).fetchall()]
            out[t] = cur.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY ALL").fetchall()
        return out


def snapshot(store) -> dict:
    """Every row of every table, so a test can check that nothing changed."""
    cur = store.cursor()
    tables = [r[0] for r in cur.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
    return {t: cur.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}


TOPICS = "SELECT run_id, qid, n FROM run_topics ORDER BY ALL"
WANT_TOPICS = "SELECT run_id, qid, CAST(count(*) AS INTEGER) FROM run_rows GROUP BY ALL ORDER BY ALL"
JUDGED = "SELECT run_id, qrels_id, qid, rank, rel FROM judged_rows ORDER BY ALL"
WANT_JUDGED = """SELECT r.run_id, q.qrels_id, r.qid, r.rank, q.rel
    FROM run_rows r JOIN runs USING (run_id) JOIN qrels_sets s ON s.collection_id = runs.collection_id
    JOIN qrels q ON q.qrels_id = s.qrels_id AND q.qid = r.qid AND q.docno = r.docno ORDER BY ALL"""


def assert_derived(store) -> list:
    cur = store.cursor()
    try:
        assert cur.execute(TOPICS).fetchall() == cur.execute(WANT_TOPICS).fetchall()
        judged = cur.execute(JUDGED).fetchall()
        assert judged == cur.execute(WANT_JUDGED).fetchall()
        return judged
    finally:
        cur.close()


def pairs(judged) -> set:
    return {(r[0], r[1]) for r in judged}


def cli(*argv: str) -> int:
    """The same wiring as core/cli/__init__.py, limited to the load and list commands."""
    import argparse

    from core.cli import listing as cli_list
    from core.cli import load as cli_load
    from core.errors import RankboardError
    parser = argparse.ArgumentParser(prog="python -m core")
    parser.add_argument("--store")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module in (("load", cli_load), ("list", cli_list)):
        p = sub.add_parser(name)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    try:
        return args._run(args)
    except RankboardError as exc:
        print(f"error: {exc}")
        return 2
