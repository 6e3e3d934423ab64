"""The golden cases: every trec_eval reference output in tests/reference (gzip-compressed), with the qrels, run,
version and options that produce it. tests/golden/test_golden.py runs them; tests/measures/test_registry.py counts
the measure families they cover."""
from __future__ import annotations

from dataclasses import dataclass, field

from core.measures import ALL_TREC_10, OFFICIAL
from tests.cases.reference import ROBUST, ROBUST_QRELS, ROBUST_RUNS

CAST = "treccast/2021"
TE = "trec_eval_test"
CAST_RUNS = ["org_convdr", "org_convdr_bert", "org_manual_ance", "org_manual_ance_bert", "org_manual_bm25"]


@dataclass(frozen=True)
class Case:
    ref: str
    qrels: str
    run: str
    compat: int = 9
    options: tuple = ()
    measures: tuple = ("all_trec",)
    per_query: bool = True
    raw_run: bool = False          # run file has trailing junk fields: load it as trec_eval does
    header: bool = True            # runid / num_q lines (printed for the official and all_trec sets)
    id: str = field(default="", compare=False)


def _cases():
    out = []
    for version, compat in (("9.0.8", 9), ("10.0", 10)):
        for run in ROBUST_RUNS:
            out.append(Case(f"{ROBUST}/reference_trec_eval_{version}/input.{run}.all_trec.q.txt.gz",
                            ROBUST_QRELS, f"{ROBUST}/runs/input.{run}.gz", compat,
                            id=f"robust-{version}-{run}"))
        for run in CAST_RUNS:
            for level in (1, 2):
                suffix = ".l2" if level == 2 else ""
                out.append(Case(f"{CAST}/reference_trec_eval_{version}/{run}.all_trec{suffix}.q.txt.gz",
                                f"{CAST}/trec-cast-qrels-docs.2021.qrel.gz", f"{CAST}/runs_doc/{run}.run.gz", compat,
                                (("rel_level", level),), id=f"cast-{version}-{run}-l{level}"))
    relstring20 = tuple("relstring_20" if n == "relstring" else n for n in ALL_TREC_10)
    out += [
        Case(f"{TE}/out.test.gz", f"{TE}/qrels.test.gz", f"{TE}/results.test.gz", 10, measures=tuple(OFFICIAL),
             per_query=False, id="te-out.test"),
        Case(f"{TE}/out.test.a.gz", f"{TE}/qrels.test.gz", f"{TE}/results.test.gz", 10, per_query=False,
             id="te-out.test.a"),
        Case(f"{TE}/out.test.aq.gz", f"{TE}/qrels.test.gz", f"{TE}/results.test.gz", 10, id="te-out.test.aq"),
        Case(f"{TE}/out.test.aqc.gz", f"{TE}/qrels.test.gz", f"{TE}/results.trunc.gz", 10, (("complete", True),),
             raw_run=True, id="te-out.test.aqc"),
        Case(f"{TE}/out.test.aqcM.gz", f"{TE}/qrels.test.gz", f"{TE}/results.trunc.gz", 10,
             (("complete", True), ("max_depth", 100)), raw_run=True, id="te-out.test.aqcM"),
        Case(f"{TE}/out.test.aql.gz", f"{TE}/qrels.rel_level.gz", f"{TE}/results.test.gz", 10, (("rel_level", 2),),
             measures=relstring20, id="te-out.test.aql"),
        Case(f"{TE}/out.test.meas_params.gz", f"{TE}/qrels.test.gz", f"{TE}/results.test.gz", 10, measures=MEAS_PARAMS,
             header=False, id="te-out.test.meas_params"),
        Case(f"{TE}/out.comment.test.gz", f"{TE}/qrels.comment.test.gz", f"{TE}/results.comment.test.gz", 10,
             measures=tuple(OFFICIAL), per_query=False, id="te-out.comment.test"),
        Case(f"{TE}/reference_all_trec/rag24.comment.all_trec.q.v9.0.8.txt.gz", f"{TE}/qrels.comment.test.gz",
             f"{TE}/results.comment.test.gz", 9, id="rag24-9.0.8"),
        Case(f"{TE}/reference_all_trec/rag24.comment.all_trec.q.v10.txt.gz", f"{TE}/qrels.comment.test.gz",
             f"{TE}/results.comment.test.gz", 10, id="rag24-10.0"),
        Case(f"{TE}/reference_all_trec/rag24.comment.all_trec.l2.q.v10.txt.gz", f"{TE}/qrels.comment.test.gz",
             f"{TE}/results.comment.test.gz", 10, (("rel_level", 2),), id="rag24-10.0-l2"),
        Case(f"{TE}/reference_all_trec/rag24_full89.comment.all_trec.q.v10.txt.gz",
             "anserini_tools/qrels/qrels.rag24.test.txt.gz", f"{TE}/results.comment.test.gz", 10,
             id="rag24-full89-10.0"),
    ]
    return out


MEAS_PARAMS = ("iprec_at_recall.0.1,.2,.25,.5,.75", "P.3,5,7", "recall.20,2000", "Rprec_mult.0.2,0.35,5.0",
               "utility.2,-1,0,0", "11pt_avg_.25,.5,.75", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23",
               "success.2,5,20")     # trec_eval's `make quicktest` parameters
CASES = _cases()
