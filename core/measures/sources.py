"""Which peer each measure family comes from, and the deliberate differences from those peers.

A family's sources: "trec_eval" when it has a trec_eval name, "ir_measures" when ir_measures has the same name
(tests/measures/test_measures_ir_measures.py compares them), "ranx" when a ranx metric name maps onto it (parse.RANX),
"textbook" otherwise or when it is a textbook form that a peer computes differently.
"""
from __future__ import annotations

from core.measures.base import Family
from core.measures.parse import RANX
from core.measures.prefs import PREFS_FAMILIES, SOURCE as PREFS_SOURCE

# ir_measures 0.4.3's registry names that Rankboard computes with ir_measures' number
IR_MEASURES = frozenset({
    "AP", "P", "R", "RR", "Rprec", "Bpref", "infAP", "IPrec", "NumRel", "NumRet", "NumRelRet", "NumQ", "nDCG",
    "SetP", "SetR", "SetF", "SetAP", "SetRelP", "Success", "Judged", "ERR", "Compat", "Accuracy", "RBP",
    "INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11",
    "alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall",
})
# the program ir_measures runs for a family, shown after its name: "ir_measures (ndeval)"
VIA = {n: "ndeval" for n in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA",
                             "StRecall")}
TEXTBOOK = frozenset({"F", "E", "SetFbeta", "JudgedK", "DCG", "AUC", "alpha_DCG_raw"})
ORDER = ("trec_eval", "ir_measures", "ranx", "textbook")

# Where a peer's number differs on purpose (shown on the Measures page and in docs/measures.md)
DIFFERENCES = (
    "Score ties: every measure ranks by score descending, then docno descending (trec_eval). ir_measures' judged, "
    "compat and accuracy providers and ranx break ties otherwise; on tied scores their numbers can differ.",
    "Topics missing from the run under -c: Rankboard (like trec_eval -c) reports NumRel and NumQ for them; "
    "ir_measures reports 0 for every measure there.",
    "nDCG(gains={...}) takes grades >= 0 only: ir_measures remaps negative grades, trec_eval reads -1 as unjudged "
    "and -2 as a negative grade (ndcg_-1=x,-2=y keeps trec_eval's meaning). Gains less than 1 apart are ordered by "
    "value in the ideal ranking; trec_eval's comparator truncates their difference to 0.",
    "Accuracy is 1 when the top k holds no non-relevant document (ir_measures divides by zero there) and 0 when it "
    "holds no relevant one (ir_measures reports nothing).",
    "Compat puts unretrieved relevant documents after the retrieved ones of their grade; ir_measures gives them "
    "score 0, which differs only for runs with negative scores.",
    "ERR counts grades above 4 as 4 (gdeval refuses them).",
    "RBP: the bare name is trec_eval 10.0's rbp (default p=0.9, grades scaled by the topic's top grade); RBP(rel=r) "
    "is ir_measures' (binary gain, default p=0.8, cwl_eval's weights over 1000 ranks); ranx's rbp.95 is "
    "RBP(gain='grade',p=0.95) (raw grades).",
    "The C/W/L family cuts rankings at 1000 documents, as cwl_eval does when ir_measures runs it.",
    "Diversity family (ndeval through pyndeval, as ir_measures runs it): rankings break score ties by docno "
    "ascending (pyndeval's sort; ndeval's command line sorts by the rank column, or like trec_eval with "
    "-traditional). alpha_DCG@k and ERR_IA@k are ndeval's collection-independent values (divided by the "
    "ideal-ideal, except at rank 1, so @1 can exceed 1), not the raw textbook sums: alpha_DCG_raw@k is Clarke et "
    "al.'s plain alpha-DCG (any depth), and Chapelle et al.'s ERR-IA with equal intents and binary grades is 0.5/S "
    "times ndeval's undivided ERR-IA sum at alpha 0.5. alpha_nDCG, nERR_IA and nNRBP "
    "divide by ndeval's greedy ideal ranking. Cutoffs stop at 20 (ndeval's depth). A topic without a relevant "
    "subtopic scores 0 (pyndeval's nNRBP is NaN there). judged_only=True keeps the documents with a line in the "
    "subtopic qrels (ir_measures 0.4.3 fails on it). nNRBP's ideal stops once the ranks left could add less than "
    "1e-17.",
    "Preference measures (-R prefs / -R qrels_prefs, prefs_*): a prefs file is refused when a document appears twice "
    "in one (topic, jg, jsg) (trec_eval counts such a line twice), and contradicting preferences within a judgment "
    "group are an error (trec_eval aborts). prefs_avgjg_Rnonrel with negative rel_levels: when a group's lowest "
    "level holds fewer documents than the group has relevant ones, trec_eval reads past the end of that level (undefined "
    "memory); Rankboard uses the whole level. Computed from run files and in the API (core.engine.prefs.evaluate); the dashboard "
    "store does not hold prefs files yet.",
    "ranx: bare recall keeps trec_eval's -m recall meaning (recall at its cutoffs; ranx's bare recall is SetR); "
    "@0 is refused (write the name without @k); -lN works for measures with rel=, not for ndcg/dcg.",
)


def sources(family: Family) -> tuple[str, ...]:
    if family.name in PREFS_FAMILIES:
        return (PREFS_SOURCE,)
    found = set()
    if family.trec:
        found.add("trec_eval")
    if family.name in IR_MEASURES:
        found.add("ir_measures")
    ranx_targets = {form.split("(")[0].split("@")[0] for pair in RANX.values() for form in pair if form}
    if family.name in ranx_targets:
        found.add("ranx")
    if family.name in TEXTBOOK or not found:
        found.add("textbook")
    return tuple(f"{s} ({VIA[family.name]})" if s == "ir_measures" and family.name in VIA else s
                 for s in ORDER if s in found)
