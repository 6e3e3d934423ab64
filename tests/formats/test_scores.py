"""read_scores: every layout it detects, files written by trec_eval, ir_measures and ranx read back to their values,
and every bad input with its exact message."""
from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.errors import UploadError
from core.formats import read_scores, scores_name

REF = Path(__file__).resolve().parents[1] / "reference" / "trec_eval_test"


def _plain(tmp_path: Path, name: str) -> Path:
    """A gzip reference file written out as plain text (ranx and ir_measures read plain files)."""
    out = tmp_path / name
    out.write_bytes(gzip.decompress((REF / f"{name}.gz").read_bytes()))
    return out


def error_of(data, filename="s.txt", **kw) -> str:
    with pytest.raises(UploadError) as info:
        read_scores(data, filename=filename, **kw)
    return str(info.value)


def values(parsed) -> dict:
    return {(r, q, m): v for r, q, m, v in parsed.frame[["run", "qid", "measure", "value"]].itertuples(index=False)}


def test_trec_eval_output_reads_as_pytrec_eval_computes_it():
    """out.test.aq is trec_eval 9.0.8's `-q -a` output (runid STANDARD); pytrec_eval computes the same values."""
    import pytrec_eval
    parsed = read_scores(REF / "out.test.aq.gz")
    assert parsed.fmt == "trec_eval -q" and parsed.runs == ["STANDARD"]
    assert "relstring" not in parsed.measures and "runid" not in parsed.measures
    qrels, run = {}, {}
    for line in gzip.decompress((REF / "qrels.test.gz").read_bytes()).decode().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    for line in gzip.decompress((REF / "results.test.gz").read_bytes()).decode().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "ndcg"}).evaluate(run)
    got = values(parsed)
    for qid, per in oracle.items():
        for m in ("map", "P_10", "ndcg"):
            assert got[("STANDARD", qid, m)] == pytest.approx(per[m], abs=5e-5)   # trec_eval prints 4 places


def test_ir_measures_cli_output_tsv_and_jsonl(tmp_path):
    import ir_measures
    qrels, run = _plain(tmp_path, "qrels.test"), _plain(tmp_path, "results.test")
    oracle = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.AP, ir_measures.nDCG @ 10], ir_measures.read_trec_qrels(str(qrels)),
        ir_measures.read_trec_run(str(run)))}
    for fmt in ("tsv", "jsonl"):
        out = subprocess.run([sys.executable, "-m", "ir_measures", str(qrels), str(run), "AP", "nDCG@10", "-q",
                              "-p", "-1", "-o", fmt], capture_output=True, check=True).stdout
        parsed = read_scores(out, filename=f"bm25.{fmt}")
        assert parsed.fmt == {"tsv": "ir_measures -q", "jsonl": "ir_measures jsonl"}[fmt]
        assert parsed.runs == ["bm25"] and set(parsed.measures) == {"AP", "nDCG@10"}
        got = values(parsed)
        assert len(got) == len(oracle)
        for (qid, m), v in oracle.items():
            assert got[("bm25", qid, m)] == pytest.approx(v, abs=1e-12)


def test_ir_measures_dataframe_as_csv_and_parquet(tmp_path):
    import ir_measures
    qrels, run = _plain(tmp_path, "qrels.test"), _plain(tmp_path, "results.test")
    qrels, run = ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run))
    df = pd.DataFrame(ir_measures.iter_calc([ir_measures.P @ 5, ir_measures.RR], qrels, run))
    df["measure"] = df["measure"].astype(str)
    csv = read_scores(df.to_csv(index=False).encode(), filename="sys.csv", name="mine")
    buf = io.BytesIO()
    df.to_parquet(buf)
    parquet = read_scores(buf.getvalue(), filename="sys.parquet")
    assert csv.fmt == "CSV table" and parquet.fmt == "Parquet table"
    assert csv.runs == ["mine"] and parquet.runs == ["sys"]
    want = {(q, m): v for q, m, v in df[["query_id", "measure", "value"]].itertuples(index=False)}
    for parsed, name in ((csv, "mine"), (parquet, "sys")):
        got = values(parsed)
        assert {(q, m): got[(name, q, m)] for q, m in want} == pytest.approx(want, abs=1e-12)


def test_ranx_per_query_scores_and_its_report_refused(tmp_path):
    import ranx
    qrels = ranx.Qrels.from_file(str(_plain(tmp_path, "qrels.test")), kind="trec")
    a = ranx.Run.from_file(str(_plain(tmp_path, "results.test")), kind="trec", name="a")
    ranx.evaluate(qrels, a, ["ndcg@10", "map"])
    parsed = read_scores(json.dumps(dict(a.scores)).encode(), filename="a.json")
    assert parsed.fmt == "ranx JSON" and parsed.runs == ["a"]
    got = values(parsed)
    for m, per in a.scores.items():
        for qid, v in per.items():
            assert got[("a", qid, m)] == v
    report = ranx.compare(qrels, [a, a], ["ndcg@10"])
    report.save(str(tmp_path / "report.json"))
    hint = ("a ranx Report holds each run's mean of each measure, not its per-query values. Export the per-query "
            "values instead: after ranx.evaluate(qrels, run, metrics), save json.dumps(dict(run.scores)) to a "
            ".json file.")
    assert error_of(tmp_path / "report.json", filename="report.json") == f"report.json: {hint}"
    csv = report.to_dataframe().to_csv(index=False).encode()
    assert error_of(csv, filename="report.csv") == f"report.csv: {hint}"


def test_long_table_of_several_runs():
    text = b"run,qid,measure,value\na,1,x,0.5\nb,1,x,0.25\na,2,x,1\nb,2,x,+2e-1\n"
    parsed = read_scores(text, filename="two.csv")
    assert parsed.runs == ["a", "b"]
    assert parsed.frame["value"].tolist() == [0.5, 0.25, 1.0, 0.2]


def test_one_line_of_ir_measures_jsonl():
    parsed = read_scores(b'{"query_id": "301", "measure": "AP", "value": 0.5}', filename="one.jsonl")
    assert (parsed.fmt, parsed.frame.values.tolist()) == ("ir_measures jsonl", [["one", "301", "AP", 0.5]])


def test_layouts_told_apart_without_marks():
    trec = read_scores(b"map 301 0.5\nmap 302 0.25\n", filename="t.txt")
    ir = read_scores(b"301 AP 0.5\n302 AP 0.25\n", filename="i.txt")
    assert (trec.fmt, trec.measures) == ("trec_eval -q", ["map"])
    assert (ir.fmt, ir.measures) == ("ir_measures -q", ["AP"])


def test_names():
    assert scores_name("dir/bm25.q.txt.gz") == "bm25.q"
    assert read_scores(b"map 301 0.5\nrunid all tagged\n", filename="f.txt").runs == ["tagged"]
    assert read_scores(b"map 301 0.5\nrunid all tagged\n", filename="f.txt", name="mine").runs == ["mine"]


def _parquet(columns: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


BAD = [
    ("not a number", b"map\t301\t0.5\nmap\t302\tabc\nrunid\tall\tbm25\n", {},
     "s.txt, line 2: value 'abc' of measure 'map' for topic '302' is not a number. Give a number such as 0.25.\n"
     "    'map\\t302\\tabc'"),
    ("infinity", b"map 301 0.5\nmap 302 1e999\n", {},
     "s.txt, line 2: value '1e999' of measure 'map' for topic '302' is not a number. Give a number such as 0.25.\n"
     "    'map 302 1e999'"),
    ("jsonl cut short", b'{"query_id": "1", "measure": "AP", "value": 0.5}\n{"query_id": "2", "measure": "AP"\n', {},
     's.txt, line 2: the line is not JSON (Expecting \',\' delimiter). Give one JSON object per line.\n'
     '    \'{"query_id": "2", "measure": "AP"\''),
    ("nan in parquet", _parquet({"qid": ["1", "2"], "measure": ["x", "x"], "value": [0.5, np.nan]}), {},
     "s.txt, row 2: value 'nan' of measure 'x' for topic '2' is not a number. Give a number such as 0.25."),
    ("topic twice", b"map\t301\t0.5\nmap\t302\t0.25\nmap\t301\t0.75\n", {},
     "s.txt, line 3: run 's' has topic '301' twice for measure 'map' (first on line 1). Keep one value per run, "
     "topic and measure.\n    'map\\t301\\t0.75'"),
    ("topic twice in one run of two", b"run,qid,measure,value\na,1,x,0.5\nb,1,x,0.5\na,1,x,0.25\n", {},
     "s.txt, line 4: run 'a' has topic '1' twice for measure 'x' (first on line 2). Keep one value per run, topic "
     "and measure.\n    'a,1,x,0.25'"),
    ("some topics", b"map\t301\t0.5\nP_10\t301\t0.5\nmap\t302\t0.5\nmap\t303\t0.1\n", {},
     "s.txt: run 's' gives measure 'P_10' for 1 of its 3 topics; it lacks 302, 303. Give the measure for every "
     "topic of the run, or leave it out."),
    ("two fields", b"map 301 0.5\nmap 302\n", {},
     "s.txt, line 2: found 2 fields where per-query scores have 3 (trec_eval: measure qid value; ir_measures: qid "
     "measure value). Give each line three fields.\n    'map 302'"),
    ("two runids", b"map 301 0.5\nrunid all a\nrunid all b\n", {},
     "s.txt, line 3: the file holds the output of 2 runs (a, b), but trec_eval's output holds one. Give each "
     "run's output as a file of its own."),
    ("summary only", b"map all 0.5\nrunid all a\n", {},
     "s.txt: the file has no per-query values (only summary lines). Write the per-query values: trec_eval -q, or "
     "ir_measures -q."),
    ("one name for two runs", b"run,qid,measure,value\na,1,x,0.5\nb,1,x,0.5\n", {"name": "n"},
     "s.txt: the file holds 2 runs (a, b), so it cannot be loaded under the one name 'n'. Leave the name out: "
     "each run keeps the name the file gives it."),
    ("parquet columns", _parquet({"qid": ["1"], "score": [0.5]}), {},
     "s.txt: the Parquet file has columns ['qid', 'score'], but per-query scores need qid, measure and value (and "
     "optionally run). Rename the columns and upload it again."),
    ("csv field count", b"qid,measure,value\n1,x,0.5\n2,x\n", {},
     "s.txt, line 3: found 2 fields but the header names 3 columns. Give every line the same columns as the "
     "header.\n    '2,x'"),
]


@pytest.mark.parametrize("case,data,kw,message", BAD, ids=[c[0] for c in BAD])
def test_bad_input_exact_message(case, data, kw, message):
    assert error_of(data, **kw) == message


def test_scores_computed_in_python_are_checked_as_a_file_is():
    from core.formats import scores_from_frame
    frame = pd.DataFrame({"run": ["a", "a", "b"], "qid": [1, 2, 1], "measure": "vital", "value": [0.5, 1 / 3, 1.0]})
    parsed = scores_from_frame(frame, file="nuggets", fmt="nuggetizer")
    assert (parsed.file, parsed.fmt, parsed.runs) == ("nuggets", "nuggetizer", ["a", "b"])
    assert parsed.frame["qid"].tolist() == ["1", "2", "1"] and parsed.frame["value"].tolist()[1] == 1 / 3
    bad = frame.assign(value=[0.5, np.nan, 1.0])
    with pytest.raises(UploadError) as info:
        scores_from_frame(bad, file="nuggets")
    assert str(info.value) == ("nuggets, row 2: value 'nan' of measure 'vital' for topic '2' is not a number. Give a "
                               "number such as 0.25.")
    with pytest.raises(UploadError) as info:
        scores_from_frame(frame.assign(run="a"), file="nuggets")
    assert str(info.value) == ("nuggets, row 3: run 'a' has topic '1' twice for measure 'vital' (first on row 1). "
                               "Keep one value per run, topic and measure.")


def test_a_damaged_parquet_file_is_named_in_words():
    """A file that starts like Parquet but is cut short: the scores reader and the run/qrels reader give one message."""
    from core.formats import read_qrels
    data = b"PAR1" + b"\x00" * 40
    for read in (read_scores, read_qrels):
        with pytest.raises(UploadError) as err:
            read(data, filename="cut.parquet")
        text = str(err.value)
        assert text.startswith("cut.parquet: the Parquet file cannot be read (") and text.endswith(
            "Upload a complete Parquet file, or a text file.")
