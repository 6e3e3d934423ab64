"""The fusion registry: names and aliases, parameters and their checks, weights, topics a run lacks, depth."""
from __future__ import annotations

import pandas as pd
import pytest

from core.errors import EvalError
from core.fusion import METHODS, fuse, method_named, norm_named, weight_grid

A = pd.DataFrame({"qid": ["1", "1", "1", "2"], "docno": ["a", "b", "c", "a"], "score": [3.0, 2.0, 1.0, 5.0]})
B = pd.DataFrame({"qid": ["1", "1"], "docno": ["c", "d"], "score": [10.0, 0.0]})


def test_every_method_is_found_by_its_name_and_aliases():
    for m in METHODS:
        for name in (m.name, *m.aliases, m.name.upper()):
            assert method_named(name) is m
    assert method_named("combmnz").name == "mnz" and norm_named("min_max").name == "min-max"


def test_an_unknown_method_is_refused_with_a_suggestion():
    with pytest.raises(EvalError) as e:
        method_named("rrff")
    assert str(e.value).startswith("unknown fusion method 'rrff'. Did you mean rrf? Use --method with one of: sum, ")
    with pytest.raises(EvalError, match=r"^unknown fusion normalisation 'minmax'. Did you mean min_max\? Use --norm"):
        norm_named("minmax")


def test_parameters_are_checked():
    with pytest.raises(EvalError) as e:
        fuse([A, B], "rbc")
    assert str(e.value) == ("rbc needs phi (the persistence of the user); ranx has no default for it. Give --param "
                            "phi=VALUE, or --tune QRELS to choose it.")
    with pytest.raises(EvalError, match=r"^rbc: parameter phi must be between 0.0 and 1.0, not 2. "):
        fuse([A, B], "rbc", params={"phi": "2"})
    with pytest.raises(EvalError, match=r"^rrf has no parameter 'phi' \(its parameters: k\)\. Drop --param phi="):
        fuse([A, B], "rrf", params={"phi": 0.5})
    with pytest.raises(EvalError, match=r"^rrf: parameter k must be an integer, not 'x'\. Give e\.g\. --param k=10\.$"):
        fuse([A, B], "rrf", params={"k": "x"})


def test_weights_are_checked():
    with pytest.raises(EvalError, match=r"^1 weights for 2 runs\. Give one weight per run"):
        fuse([A, B], "wsum", weights=[1.0])
    with pytest.raises(EvalError, match=r"^rrf takes no weights\. Drop --weights"):
        fuse([A, B], "rrf", weights=[0.5, 0.5])


def test_a_topic_one_run_lacks_is_fused_from_the_others():
    table = fuse([A, B], "sum", depth=None).table
    assert table[table["qid"] == "2"][["docno", "score"]].values.tolist() == [["a", 0.0]]
    borda = fuse([A, B], "bordafuse", depth=None).table.set_index(["qid", "docno"])["score"]
    # topic 2: one candidate; A ranks it first (1 point), B lacks the topic: (1 - 0 + 1) / 2 = 1 point
    assert borda[("2", "a")] == 2.0


def test_depth_cuts_every_topic():
    table = fuse([A, B], "sum", depth=2).table
    assert table.groupby("qid").size().to_dict() == {"1": 2, "2": 1}
    assert table["rank"].tolist() == [1, 2, 1]
    with pytest.raises(EvalError, match=r"^the depth must be a positive number of documents, not 0"):
        fuse([A, B], "sum", depth=0)


def test_the_weight_grid_keeps_every_vector_summing_to_one():
    grid = weight_grid(3, 0.1)
    assert len(grid) == 66 and (abs(grid.sum(axis=1) - 1) < 1e-9).all()
    assert [0.1, 0.2, 0.7] in grid.tolist()
    with pytest.raises(EvalError, match=r"^the weight step must divide 1"):
        weight_grid(2, 0.3)


def test_provenance_names_the_method_its_parameters_and_the_runs():
    fused = fuse([A, B], "wsum", weights=[0.25, 0.75], names=["a.run", "b.run"])
    assert fused.provenance == {"method": "wsum", "norm": "min-max", "weights": [0.25, 0.75],
                                "runs": ["a.run", "b.run"]}
    assert fuse([A, B], "rrf", norm="rank").provenance["params"] == {"k": 60}


@pytest.mark.parametrize("method", ["wsum", "mnz", "rrf", "bordafuse", "condorcet", "w_bordafuse", "isr"])
def test_fusing_no_run_says_so(method):
    with pytest.raises(EvalError) as e:
        fuse([], method)
    assert str(e.value) == "fusion needs at least one run. Give two or more run files."
