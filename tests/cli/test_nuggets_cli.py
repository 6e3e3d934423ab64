"""`python -m core nuggets NUGGETS ASSIGNMENTS`: trec_eval's layout, csv and json, the warning of a missing topic
and one-line errors."""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from core.cli import main
from core.measures import score_nugget_files
from tests.cases import nuggets as case


@pytest.fixture()
def files(tmp_path):
    return case.write(tmp_path)


def test_trec_layout_gives_the_means_after_each_runs_topics(files, capsys):
    assert main(["nuggets", *map(str, files), "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 * (5 * 4 + 2 + 4)
    assert out[:4] == ["strict_vital          \tt1\t0.0000", "strict_all            \tt1\t0.0000",
                       "vital                 \tt1\t0.2500", "all                   \tt1\t0.1250"]
    assert out[20:26] == ["runid                 \tall\trag-bm25", "num_q                 \tall\t5",
                          "strict_vital          \tall\t0.3000", "strict_all            \tall\t0.2600",
                          "vital                 \tall\t0.3500", "all                   \tall\t0.3183"]
    for line in out:
        measure, qid, value = line.split("\t")
        if measure.strip() not in ("runid", "num_q") and qid != "all":
            assert qid in case.NUGGETS


def test_without_q_only_the_means(files, capsys):
    assert main(["nuggets", *map(str, files)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1] for line in out] == ["all"] * 18
    assert [line.split("\t")[2] for line in out if line.startswith("runid")] == list(case.RUNS)


def test_csv_and_json_give_the_values_at_full_precision(files, capsys):
    _, result = score_nugget_files(*files)
    assert main(["nuggets", *map(str, files), "-q", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"qid": str})
    pd.testing.assert_frame_equal(got, result.per_query.astype({"value": float}), check_dtype=False)
    assert main(["nuggets", *map(str, files), "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"] == result.summary.to_dict(orient="records") and payload["warnings"] == []


def test_a_run_without_a_topic_scores_0_there_with_a_warning(tmp_path, capsys):
    files = case.write(tmp_path, skip=(("rag-dense", "t3"),))
    assert main(["nuggets", *map(str, files), "-q", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "warning: run 'rag-dense' has no assignments for topic t3: it scores 0 there\n"
    got = pd.read_csv(io.StringIO(captured.out))
    assert got[(got["run"] == "rag-dense") & (got["qid"] == "t3")]["value"].tolist() == [0.0] * 4


def test_a_bad_file_is_one_error_and_status_2(tmp_path, capsys):
    nuggets, assigned = case.write(tmp_path)
    nuggets.write_text(case.nuggets_jsonl().replace('"t2"', '"t1"'))
    assert main(["nuggets", str(nuggets), str(assigned)]) == 2
    assert capsys.readouterr().err == ("error: nuggets.jsonl, line 2: topic 't1' appears twice (first on line 1). "
                                       "Keep one line per topic.\n")
    assert main(["nuggets", str(tmp_path / "none.jsonl"), str(assigned)]) == 2
    assert capsys.readouterr().err == (f"error: none.jsonl: cannot read {tmp_path / 'none.jsonl'}: no such file. "
                                       "Check the path and try again.\n")


def test_load_stores_the_nuggets_and_the_scores(tmp_path, capsys):
    nuggets, assigned = case.write(tmp_path, skip=(("rag-bm25", "t5"),))
    store = tmp_path / "s.duckdb"
    assert main(["--store", str(store), "load", "--collection", "rag", "--nuggets", str(nuggets),
                 "--assignments", str(assigned)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"Loaded 1 file(s) into collection 'rag' of {store}.\n"
    assert "  warning: run 'rag-bm25' has no assignments for topic t5: it scores 0 there\n" in captured.err
    from core.store.store import Store
    with Store.open(store) as s:
        runs = s.runs("rag")
        assert runs["name"].tolist() == list(case.RUNS)
        assert len(s.imported_scores(runs["run_id"].tolist())) == 3 * 5 * 4


def test_load_needs_both_files_and_a_bad_one_loads_nothing(tmp_path, capsys):
    nuggets, assigned = case.write(tmp_path)
    store = tmp_path / "s.duckdb"
    assert main(["--store", str(store), "load", "--nuggets", str(nuggets)]) == 2
    assert capsys.readouterr().err == ("error: --nuggets and --assignments go together: give the nuggets file and the "
                                       "assignments made from it.\n")
    topics = tmp_path / "topics.tsv"
    topics.write_text("t1\tthe capital of France\n")
    assigned.write_text(case.assignments_jsonl().replace('"partial_support"', '"maybe"', 1))
    assert main(["--store", str(store), "load", "--collection", "rag", "--topics", str(topics), "--nuggets",
                 str(nuggets), "--assignments", str(assigned)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: assignments.jsonl, line 1: nugget ") and "has assignment 'maybe'" in err
    from core.store.store import Store
    with Store.open(store) as s:
        assert s.collections().empty                     # not even the topics


def test_the_output_loads_back_with_scores(tmp_path, capsys):
    """trec_eval's layout of one run (trec_eval's output holds one run) and the csv of every run load with --scores."""
    nuggets, _ = case.write(tmp_path)
    one = tmp_path / "one.jsonl"
    one.write_text(case.assignments_jsonl([r for r in case.assignments() if r["run_id"] == "rag-dense"]))
    _, result = score_nugget_files(nuggets, one)
    trec, csv_file, store = tmp_path / "dense.trec", tmp_path / "all.csv", tmp_path / "s.duckdb"
    assert main(["nuggets", str(nuggets), str(one), "-q"]) == 0
    trec.write_text(capsys.readouterr().out)
    assert main(["nuggets", *map(str, case.write(tmp_path)), "-q", "--format", "csv"]) == 0
    csv_file.write_text(capsys.readouterr().out)
    assert main(["--store", str(store), "load", "--collection", "t", "--scores", str(trec)]) == 0
    assert main(["--store", str(store), "load", "--collection", "c", "--scores", str(csv_file)]) == 0
    from core.store.store import Store
    _, every = score_nugget_files(*case.write(tmp_path))
    with Store.open(store) as s:
        for collection, expected, tolerance in (("t", result, 5e-5), ("c", every, 0)):
            runs = s.runs(collection)
            names = dict(zip(runs["run_id"], runs["name"]))
            got = s.imported_scores(runs["run_id"].tolist())
            stored = {(names[r], q, m): v for r, q, m, v in zip(got["run_id"], got["qid"], got["measure"],
                                                                  got["value"])}
            want = {(r, q, m): v for r, q, m, v in expected.per_query.itertuples(index=False)}
            assert stored.keys() == want.keys()
            assert all(abs(stored[k] - want[k]) <= tolerance for k in want)
