"""An empty run with -c (complete=True) scores 0 on every qrels topic, as ir_measures and trec_eval -c do;
without -c an empty run file is refused with the parser's message."""
from __future__ import annotations

import gzip
import subprocess
import sys

import ir_measures
import pandas as pd
import pytest

from core.errors import UploadError
from core.engine.evaluate import EvalOptions, evaluate_files, evaluate_frames

MEASURES = ["AP", "P@5", "nDCG@10", "RR", "Rprec", "Bpref", "SetF", "R@5", "NumRel", "NumRet", "NumRelRet"]


@pytest.fixture
def qrels_file(tmp_path):
    p = tmp_path / "qrels.txt"
    p.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 0\n")
    return p


def test_empty_frame_with_complete_is_zero_on_every_qrels_topic():
    qrels = pd.DataFrame({"qid": ["1", "1", "2", "3"], "docno": ["a", "b", "c", "d"], "rel": [1, 0, 2, 0]})
    run = pd.DataFrame({"qid": [], "docno": [], "score": []})
    res = evaluate_frames(qrels, run, MEASURES, EvalOptions(complete=True))
    pq = res.per_query
    assert sorted(set(pq["qid"])) == ["1", "2", "3"] and res.num_q == {"run": 3}
    numrel = pq[pq["measure"] == "NumRel"].set_index("qid")["value"].to_dict()
    assert numrel == {"1": 1.0, "2": 1.0, "3": 0.0}
    assert (pq.loc[pq["measure"] != "NumRel", "value"] == 0).all()
    # ir_measures agrees: every topic of the qrels, every value 0
    iq = [ir_measures.Qrel(q, d, int(r)) for q, d, r in qrels.itertuples(index=False)]
    for m in ["AP", "P@5", "nDCG@10", "RR", "R@5"]:
        theirs = {x.query_id: x.value for x in ir_measures.iter_calc([ir_measures.parse_measure(m)], iq, [])}
        assert theirs == {"1": 0.0, "2": 0.0, "3": 0.0}, m
        ours = pq[pq["measure"] == m].set_index("qid")["value"].to_dict()
        assert ours == {"1": 0.0, "2": 0.0, "3": 0.0}


def test_empty_frame_without_complete_evaluates_nothing_and_says_so():
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]})
    res = evaluate_frames(qrels, pd.DataFrame({"qid": [], "docno": [], "score": []}), ["AP"])
    assert res.per_query.empty and any("-c" in w for w in res.warnings)


@pytest.mark.parametrize("content", [b"", b"\n  \n", gzip.compress(b"", mtime=0)], ids=["empty", "blank", "gzip"])
def test_empty_run_file_with_c(tmp_path, qrels_file, content):
    run = tmp_path / "empty.run"
    run.write_bytes(content)
    full = tmp_path / "full.run"
    full.write_text("1 Q0 a 1 2.0 full\n2 Q0 x 1 1.0 full\n")
    res = evaluate_files(qrels_file, [run, full], ["AP", "NumRel", "P@5"], EvalOptions(complete=True))
    s = res.summary.pivot(index="run", columns="measure", values="value")
    assert s.loc["empty.run", "AP"] == 0 and s.loc["empty.run", "P@5"] == 0 and s.loc["empty.run", "NumRel"] == 2
    assert s.loc["full", "AP"] == pytest.approx(1 / 3)
    assert res.num_q == {"empty.run": 3, "full": 3}


def test_empty_run_file_without_c_is_refused(tmp_path, qrels_file):
    run = tmp_path / "empty.run"
    run.write_bytes(b"")
    with pytest.raises(UploadError, match="empty.run: the file is empty. Choose a file with at least one line of data"):
        evaluate_files(qrels_file, [run], ["AP"])


def test_cli_empty_run_with_c(tmp_path, qrels_file):
    run = tmp_path / "empty.run"
    run.write_bytes(b"")
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-c", "-m", "map", "-m", "num_rel", "-q",
                          str(qrels_file), str(run)], capture_output=True, text=True, check=True).stdout
    lines = [line.split() for line in out.splitlines()]
    assert ["map", "1", "0.0000"] in lines and ["map", "all", "0.0000"] in lines and ["num_rel", "all", "2"] in lines


def test_values_cached_by_an_older_rankboard_are_not_shown(tmp_path):
    """Judged, SetF and custom-gain nDCG changed numbers under the same names: the cache key carries the measures'
    version, so a value stored under the old key (no m=) is recomputed, not read back."""
    from core.service.evaluate import evaluate_stored
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

    with sample_store(tmp_path) as store:
        coll = SAMPLE_COLLECTION
        run_id = int(store.runs(coll)["run_id"].iloc[0])
        fresh = evaluate_stored(store, coll, [run_id], ["Judged@10"]).per_query
        old_key = EvalOptions().key().rsplit(";m=", 1)[0]
        with store.session() as con:
            qrels_id = int(con.execute("SELECT DISTINCT qrels_id FROM results").fetchone()[0])
            con.execute("DELETE FROM results")
            con.execute("INSERT INTO results SELECT $r, $q, $o, qid, 'Judged@10', 99.0 FROM "
                        "(SELECT DISTINCT qid FROM run_rows WHERE run_id = $r)", {"r": run_id, "q": qrels_id, "o": old_key})
        again = evaluate_stored(store, coll, [run_id], ["Judged@10"]).per_query
        assert (again["value"] != 99.0).all()
        assert again.sort_values("qid")["value"].tolist() == fresh.sort_values("qid")["value"].tolist()
