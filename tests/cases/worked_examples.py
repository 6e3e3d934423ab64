"""The worked examples and exercises of the seed documents as rows: source, ranking, total relevant, measure, and the
expected value written as the arithmetic of the measure's definition (tests/golden/test_worked_examples.py runs them
and gives the conventions). The seeds are the lecture notes and exercise sheets Rankboard is built from; they are not
in this repository, and no test reads them: a row's source names the seed and its section, or the textbook.

    000  blog post: P@K, MAP, MRR, DCG (textbook form rel_1 + sum_{i>=2} rel_i/log2(i)) and NDCG
    001  notes: MAP, P@K, R@K, MAP@K (AP@K over the relevant documents in the top K), MRR
    002  lecture: precision and recall, the recall-precision table, interpolated curves, R-precision, MAP, F and E,
         break-even point, CG, DCG (both forms), NDCG
    003  the blog post of 000, as rendered HTML text
    004  exercise sheet: recall, precision, F, recall@K capped by min(#rel, K), MRR, MAP, nDCG with gain
         (2^r - 1)/log2(i+1), Cohen's kappa with pooled marginals, and exercises 8/1 to 8/4

The seeds' own arithmetic is wrong in places (their errata, numbered as the rows cite them). The rows hold the value
derived from the definition, and their source says which erratum they correct:

    ERRATA 1  001 §MAP prints MAP = (0.78 + 0.52) / 2 = 1.3, the sum; the mean is 0.65.
    ERRATA 2  002 §Averaging Recall/Precision values prints the mean of 20 and 5 as 11.5; it is 12.5.
    ERRATA 3  000/002/003 §NDCG print NDCG@4 of 3,2,3,0,0,1,2,2,3,0 as 0.76; DCG@4 = 6.89 and the ideal DCG@4 = 8.89,
              so it is 0.775. The ideal DCG@6 is printed as 10.52 (the errata say 10.525); it is 10.5278.
    ERRATA 4  004 exercise 8/1 says "20 letters ... 6 relevant" but prints RRNNNNNNRRNRNNNRNNNNR (21 letters, 7 Rs);
              the rows use the list of the textbook exercise it was copied from, R R N N N N N N R N R N N N R N N N N
              R (relevant at 1, 2, 9, 11, 15, 20), with 8 relevant in the collection.
    ERRATA 5  002's recall/precision table and its R-precision slide list the same run with different tails (d48 at
              11 and d3 at 14; d38 at 11, d48 at 12, d3 at 15): two rankings, T002 and S002 below.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from core.measures import parse_measure

log2 = math.log2


@dataclass(frozen=True)
class Row:
    source: str
    ranking: str | tuple[int, ...]
    total_rel: int | None
    measure: str
    expected: float


@dataclass(frozen=True)
class MultiRow:
    """A mean over queries (the summary line), e.g. MAP or MRR of two rankings."""
    source: str
    queries: tuple[tuple[str, int], ...]
    measure: str
    expected: float


# ---------------------------------------------------------------- the rankings

# 000/003 "Precision@K" and "Mean Average Precision" (the figure): P@3 = 2/3, P@4 = 2/4, P@5 = 3/5
# and AP = (1/1 + 2/3 + 3/5)/3 put the relevant documents at ranks 1, 3, 5, with 3 relevant.
S000 = "R N R N R"
# 000/002/003 "DCG Examples": grades of 10 ranked documents on a 0-3 scale.
G = (3, 2, 3, 0, 0, 1, 2, 2, 3, 0)
G_IDEAL = (3, 3, 3, 2, 2, 2, 1, 0, 0, 0)
# 001 "MAP" figure: the precisions 1.0 .67 .75 .8 .83 .6 and .5 .4 .5 .57 .56 .6 put the six
# relevant documents at ranks 1,3,4,5,6,10 (R#1) and 2,5,6,7,9,10 (R#2).
R1 = "R N R R R R N N N R"
R2 = "N R N N R R R N R R"
# 002 "Recall / Precision" table: d123 d84 d56 d6 d8 d9 d511 d129 d187 d25 d48 d250 d113 d3,
# relevant set {d3,d5,d9,d25,d39,d44,d56,d71,d89,d123} (10 relevant).
T002 = "R N R N N R N N N R N N N R"
# 002 "R-Precision" slide (ERRATA 5: a different tail): ... d25 d38 d48 d250 d113 d3.
S002 = "R N R N N R N N N R N N N N R"
# same slide, relevant set {d3, d56, d129}: ranks 3, 8, 15.
S002B = "N N R N N N N R N N N N N N R"
# 002 "Mean Average Precision": relevant docs ranked at 1, 5, 10.
M002 = "R N N N R N N N N R"
# 004 exercise 8/1, the intended list of ERRATA 4: relevant at 1, 2, 9, 11, 15, 20; 8 relevant.
E81 = "R R N N N N N N R N R N N N R N N N N R"
E82 = "R N N R R"                 # 004 8/2: 5 relevant in a collection of 100
E83A, E83B = "N R N R R N", "N N R R R"   # 004 8/3: 10 and 20 relevant

ROWS: list[Row] = [
    # ---- 000/003: P@K, MAP, MRR --------------------------------------------------------
    Row("000 §Precision@K example", S000, 3, "P@3", 2 / 3),
    Row("000 §Precision@K example", S000, 3, "P@4", 2 / 4),
    Row("000 §Precision@K example", S000, 3, "P@5", 3 / 5),
    Row("000 §Mean Average Precision example", S000, 3, "AP", (1 / 1 + 2 / 3 + 3 / 5) / 3),
    Row("000 §Mean Reciprocal Rank (first relevant at rank 1)", S000, 3, "RR", 1 / 1),
    Row("003 §Precision@K (same post as 000)", S000, 3, "P@1", 1 / 1),
    # ---- 000/002/003: DCG, textbook form rel_1 + sum_{i>=2} rel_i/log2(i) ---------------
    Row("000 §DCG Examples, DCG@1", G, None, "DCG(dcg='jk')@1", 3),
    Row("000 §DCG Examples, DCG@2", G, None, "DCG(dcg='jk')@2", 3 + 2 / log2(2)),
    Row("000 §DCG Examples, DCG@3", G, None, "DCG(dcg='jk')@3", 3 + 2 / log2(2) + 3 / log2(3)),
    Row("000 §DCG Examples, DCG@5", G, None, "DCG(dcg='jk')@5", 3 + 2 / log2(2) + 3 / log2(3) + 0 + 0),
    Row("000 §DCG Examples, DCG@6", G, None, "DCG(dcg='jk')@6",
        3 + 2 / log2(2) + 3 / log2(3) + 1 / log2(6)),
    Row("000 §DCG Examples, DCG@7", G, None, "DCG(dcg='jk')@7",
        3 + 2 / log2(2) + 3 / log2(3) + 1 / log2(6) + 2 / log2(7)),
    Row("000 §DCG Examples, DCG@8", G, None, "DCG(dcg='jk')@8",
        3 + 2 / log2(2) + 3 / log2(3) + 1 / log2(6) + 2 / log2(7) + 2 / log2(8)),
    Row("000 §DCG Examples, DCG@10", G, None, "DCG(dcg='jk')@10",
        3 + 2 / log2(2) + 3 / log2(3) + 1 / log2(6) + 2 / log2(7) + 2 / log2(8) + 3 / log2(9)),
    # ideal DCG of the perfect ranking 3,3,3,2,2,2,1,0,0,0 (002 §NDCG; ERRATA 3)
    Row("002 §NDCG ideal DCG@4 (ERRATA 3)", G_IDEAL, None, "DCG(dcg='jk')@4",
        3 + 3 / log2(2) + 3 / log2(3) + 2 / log2(4)),
    Row("002 §NDCG ideal DCG@6 (ERRATA 3: 10.5278, not 10.52 nor 10.525)", G_IDEAL, None,
        "DCG(dcg='jk')@6", 3 + 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 2 / log2(6)),
    Row("002 §NDCG ideal DCG@7", G_IDEAL, None, "DCG(dcg='jk')@7",
        3 + 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 2 / log2(6) + 1 / log2(7)),
    # NDCG of the actual ranking: actual DCG / ideal DCG at each rank
    Row("000/002 §NDCG @1", G, None, "nDCG(dcg='jk')@1", 3 / 3),
    Row("000/002 §NDCG @2", G, None, "nDCG(dcg='jk')@2", (3 + 2) / (3 + 3)),
    Row("000/002 §NDCG @3", G, None, "nDCG(dcg='jk')@3", (3 + 2 + 3 / log2(3)) / (3 + 3 + 3 / log2(3))),
    Row("000/002 §NDCG @4 (ERRATA 3: 0.775, printed 0.76)", G, None, "nDCG(dcg='jk')@4",
        (3 + 2 + 3 / log2(3) + 0) / (3 + 3 + 3 / log2(3) + 2 / log2(4))),
    Row("000/002 §NDCG @5", G, None, "nDCG(dcg='jk')@5",
        (3 + 2 + 3 / log2(3)) / (3 + 3 + 3 / log2(3) + 2 / log2(4) + 2 / log2(5))),
    Row("000/002 §NDCG @6", G, None, "nDCG(dcg='jk')@6",
        (3 + 2 + 3 / log2(3) + 1 / log2(6))
        / (3 + 3 + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 2 / log2(6))),
    Row("000/002 §NDCG @8", G, None, "nDCG(dcg='jk')@8",
        (3 + 2 + 3 / log2(3) + 1 / log2(6) + 2 / log2(7) + 2 / log2(8))
        / (3 + 3 + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 2 / log2(6) + 1 / log2(7))),
    Row("000/002 §NDCG @10", G, None, "nDCG(dcg='jk')@10",
        (3 + 2 + 3 / log2(3) + 1 / log2(6) + 2 / log2(7) + 2 / log2(8) + 3 / log2(9))
        / (3 + 3 + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 2 / log2(6) + 1 / log2(7))),
    # 002 §Discounted Cumulative Gain: "the discount at rank 4 is 1/2, and at rank 8 it is 1/3"
    Row("002 §DCG discount at rank 4", (0, 0, 0, 1), None, "DCG(dcg='jk')@4", 1 / log2(4)),
    Row("002 §DCG discount at rank 8", (0, 0, 0, 0, 0, 0, 0, 1), None, "DCG(dcg='jk')@8", 1 / log2(8)),
    # 002 §NDCG - Example, 4 documents: ground truth 2,2,1,0; RF1 2,2,1,0; RF2 2,1,2,0
    Row("002 §NDCG-Example DCG_GT", (2, 2, 1, 0), None, "DCG(dcg='jk')@4", 2 + 2 / log2(2) + 1 / log2(3) + 0),
    Row("002 §NDCG-Example NDCG_RF1", (2, 2, 1, 0), None, "nDCG(dcg='jk')@4", 1.0),
    Row("002 §NDCG-Example DCG_RF2", (2, 1, 2, 0), None, "DCG(dcg='jk')@4", 2 + 1 / log2(2) + 2 / log2(3) + 0),
    Row("002 §NDCG-Example NDCG_RF2", (2, 1, 2, 0), None, "nDCG(dcg='jk')@4",
        (2 + 1 / log2(2) + 2 / log2(3)) / (2 + 2 / log2(2) + 1 / log2(3))),
    # trec_eval's form rel_i/log2(i+1) on the same grades (ERRATA "several ways": DCG@k, nDCG@k)
    Row("002 §DCG (trec_eval form rel_i/log2(i+1))", G, None, "DCG@3", 3 / log2(2) + 2 / log2(3) + 3 / log2(4)),
    Row("002 §DCG (trec_eval form rel_i/log2(i+1))", G, None, "DCG@10",
        3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 1 / log2(7) + 2 / log2(8) + 2 / log2(9) + 3 / log2(10)),
    Row("002 §NDCG (trec_eval form)", G, None, "nDCG@10",
        (3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 1 / log2(7) + 2 / log2(8) + 2 / log2(9) + 3 / log2(10))
        / (3 / log2(2) + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 2 / log2(6) + 2 / log2(7) + 1 / log2(8))),
    # 002 "alternative formulation" (2^rel - 1)/log(1+i) = 004 Definition 8 (base 2)
    Row("002 §DCG alternative / 004 Def 8, nDCG@3", G, None, "nDCG(dcg='exp-log2')@3",
        (7 / log2(2) + 3 / log2(3) + 7 / log2(4)) / (7 / log2(2) + 7 / log2(3) + 7 / log2(4))),
    Row("002 §DCG alternative / 004 Def 8, nDCG@5", G, None, "nDCG(dcg='exp-log2')@5",
        (7 / log2(2) + 3 / log2(3) + 7 / log2(4) + 0 + 0)
        / (7 / log2(2) + 7 / log2(3) + 7 / log2(4) + 3 / log2(5) + 3 / log2(6))),
    Row("002 §DCG alternative / 004 Def 8, nDCG@10", G, None, "nDCG(dcg='exp-log2')@10",
        (7 / log2(2) + 3 / log2(3) + 7 / log2(4) + 1 / log2(7) + 3 / log2(8) + 3 / log2(9) + 7 / log2(10))
        / (7 / log2(2) + 7 / log2(3) + 7 / log2(4) + 3 / log2(5) + 3 / log2(6) + 3 / log2(7) + 1 / log2(8))),
    Row("004 Def 8 on 002's RF2, nDCG@4", (2, 1, 2, 0), None, "nDCG(dcg='exp-log2')@4",
        (3 / log2(2) + 1 / log2(3) + 3 / log2(4)) / (3 / log2(2) + 3 / log2(3) + 1 / log2(4))),
    # ---- 001: MAP, P@K, R@K, MAP@K (normalised by relevant found in top K), MRR ----------
    Row("001 §MAP AP_R#1", R1, 6, "AP", (1 / 1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6),
    Row("001 §MAP AP_R#2", R2, 6, "AP", (1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6),
    Row("001 §Precision@K on R#1", R1, 6, "P@5", 4 / 5),
    Row("001 §Recall@K on R#1 (denominator: the relevant documents)", R1, 6, "R@5", 4 / 6),
    Row("001 §Precision@K on R#2", R2, 6, "P@5", 2 / 5),
    Row("001 §Recall@K on R#2", R2, 6, "R@5", 2 / 6),
    Row("001 §MAP@K on R#1, AP@5 / relevant in top 5", R1, 6, "AP(norm='found')@5",
        (1 / 1 + 2 / 3 + 3 / 4 + 4 / 5) / 4),
    Row("001 §MAP@K on R#2, AP@5 / relevant in top 5", R2, 6, "AP(norm='found')@5", (1 / 2 + 2 / 5) / 2),
    Row("001 §MAP@K contrast: trec_eval map_cut divides by R", R1, 6, "AP@5",
        (1 / 1 + 2 / 3 + 3 / 4 + 4 / 5) / 6),
    Row("001 §MAP@K with no relevant in the top K", R2, 6, "AP(norm='found')@1", 0.0),
    Row("001 §Mean Reciprocal Rank R#1", R1, 6, "RR", 1 / 1),
    Row("001 §Mean Reciprocal Rank R#2", R2, 6, "RR", 1 / 2),
    # ---- 002: recall/precision table, P@k, R-precision, MAP, F, E, break-even ----------
    Row("002 §Recall/Precision table d123", T002, 10, "P@1", 1 / 1),
    Row("002 §Recall/Precision table d123", T002, 10, "R@1", 1 / 10),
    Row("002 §Recall/Precision table d56", T002, 10, "P@3", 2 / 3),
    Row("002 §Recall/Precision table d56", T002, 10, "R@3", 2 / 10),
    Row("002 §Recall/Precision table d9", T002, 10, "P@6", 3 / 6),
    Row("002 §Recall/Precision table d9", T002, 10, "R@6", 3 / 10),
    Row("002 §Recall/Precision table d25", T002, 10, "P@10", 4 / 10),
    Row("002 §Recall/Precision table d25", T002, 10, "R@10", 4 / 10),
    Row("002 §Recall/Precision table d3 (35.71%)", T002, 10, "P@14", 5 / 14),
    Row("002 §Recall/Precision table d3", T002, 10, "R@14", 5 / 10),
    Row("002 §Recall/Precision table, whole list", T002, 10, "SetP", 5 / 14),
    Row("002 §Recall/Precision table, whole list", T002, 10, "SetR", 5 / 10),
    Row("002 §Interpolated PR: 10% recall", T002, 10, "IPrec@0.1", max(1 / 1, 2 / 3, 3 / 6, 4 / 10, 5 / 14)),
    Row("002 §Interpolated PR: 20% recall", T002, 10, "IPrec@0.2", max(2 / 3, 3 / 6, 4 / 10, 5 / 14)),
    Row("002 §Interpolated PR: 40% recall", T002, 10, "IPrec@0.4", max(4 / 10, 5 / 14)),
    Row("002 §Interpolated PR: 50% recall", T002, 10, "IPrec@0.5", 5 / 14),
    Row("002 §Interpolated PR: 60% recall never reached", T002, 10, "IPrec@0.6", 0.0),
    Row("002 §MAP of the table's ranking", T002, 10, "AP", (1 / 1 + 2 / 3 + 3 / 6 + 4 / 10 + 5 / 14) / 10),
    Row("002 §R-Precision, 10 relevant", S002, 10, "Rprec", 4 / 10),
    Row("002 §R-Precision, Rq = {d3, d56, d129}", S002B, 3, "Rprec", 1 / 3),
    Row("002 §R-Precision ranking, AP", S002, 10, "AP", (1 / 1 + 2 / 3 + 3 / 6 + 4 / 10 + 5 / 15) / 10),
    Row("002 §Mean Average Precision, relevant at 1, 5, 10", M002, 3, "AP", (1 / 1 + 2 / 5 + 3 / 10) / 3),
    Row("002 §F measure F(3)", T002, 10, "F@3", 2 * (2 / 3) * (2 / 10) / (2 / 3 + 2 / 10)),
    Row("002 §F measure F(10), break-even P = R", T002, 10, "F@10", 2 * (4 / 10) * (4 / 10) / (4 / 10 + 4 / 10)),
    Row("002 §F measure F(14)", T002, 10, "F@14", 2 * (5 / 14) * (5 / 10) / (5 / 14 + 5 / 10)),
    Row("002 §F measure, F = 0 when nothing relevant retrieved", "N N R", 4, "F@2", 0.0),
    Row("002 §E measure b=1 (complement of F)", T002, 10, "E(beta=1)@10",
        1 - (1 + 1) * (4 / 10) * (4 / 10) / (1 * (4 / 10) + 4 / 10)),
    Row("002 §E measure b=2 (recall-oriented)", T002, 10, "E(beta=2)@14",
        1 - (1 + 4) * (5 / 14) * (5 / 10) / (4 * (5 / 14) + 5 / 10)),
    Row("002 §E measure b=0.5 (precision-oriented)", T002, 10, "E(beta=0.5)@3",
        1 - (1 + 0.25) * (2 / 3) * (2 / 10) / (0.25 * (2 / 3) + 2 / 10)),
    Row("002 §F_beta (b=2)", T002, 10, "F(beta=2)@14", (1 + 4) * (5 / 14) * (5 / 10) / (4 * (5 / 14) + 5 / 10)),
    Row("002 §Break-even point: P@R = R@R = R-precision", T002, 10, "Rprec", 4 / 10),
    # ---- 004: definitions 1-8 --------------------------------------------------------
    Row("004 Def 1 recall on 8/2", E82, 5, "SetR", 3 / 5),
    Row("004 Def 2 precision on 8/2", E82, 5, "SetP", 3 / 5),
    Row("004 Def 3 F on 8/2", E82, 5, "SetF", 2 * (3 / 5) * (3 / 5) / (3 / 5 + 3 / 5)),
    Row("004 Def 5 recall@K capped by min(#rel, K), K=2", E81, 8, "Rcap@2", 2 / min(8, 2)),
    Row("004 Def 5 recall@K capped, K=5", E81, 8, "Rcap@5", 2 / min(8, 5)),
    Row("004 Def 5 recall@K capped, K=10", E81, 8, "Rcap@10", 3 / min(8, 10)),
    Row("004 Def 5 recall@K capped, K=20", E81, 8, "Rcap@20", 6 / min(8, 20)),
    Row("004 Def 5 contrast: trec_eval recall@5 divides by #rel", E81, 8, "R@5", 2 / 8),
    Row("004 Def 6 reciprocal rank 8/3 first query", E83A, 10, "RR", 1 / 2),
    Row("004 Def 6 reciprocal rank 8/3 second query", E83B, 20, "RR", 1 / 3),
    # ---- 004 exercise 8/1 (ERRATA 4 list) ----------------------------------------------
    Row("004 8/1 a) precision on the first 20", E81, 8, "P@20", 6 / 20),
    Row("004 8/1 b) F on the first 20", E81, 8, "F@20", 2 * (6 / 20) * (6 / 8) / (6 / 20 + 6 / 8)),
    Row("004 8/1 b) F of the whole (20-document) list", E81, 8, "SetF", 2 * (6 / 20) * (6 / 8) / (6 / 20 + 6 / 8)),
    Row("004 8/1 c) precision at 25% recall (2 of 8 relevant, rank 2)", E81, 8, "P@2", 2 / 2),
    Row("004 8/1 d) interpolated precision at 33% recall", E81, 8, "IPrec@0.33",
        max(3 / 9, 4 / 11, 5 / 15, 6 / 20)),
    Row("004 8/1 e) MAP@20, the 20 are the whole list", E81, 8, "AP",
        (1 / 1 + 2 / 2 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20) / 8),
    Row("004 8/1 e) MAP@20", E81, 8, "AP@20", (1 / 1 + 2 / 2 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20) / 8),
    Row("004 8/1 f) highest MAP: the 2 missing relevant at 21, 22", E81 + " R R", 8, "AP",
        (1 / 1 + 2 / 2 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20 + 7 / 21 + 8 / 22) / 8),
    Row("004 8/1 g) lowest MAP: the 2 missing relevant at 9999, 10000", E81 + " N" * 9978 + " R R", 8, "AP",
        (1 / 1 + 2 / 2 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20 + 7 / 9999 + 8 / 10000) / 8),
    Row("004 8/1 h) MRR@20", E81, 8, "RR@20", 1 / 1),
    # ---- 004 exercise 8/2 --------------------------------------------------------------
    Row("004 8/2 a) F on the first 5", E82, 5, "F@5", 2 * (3 / 5) * (3 / 5) / (3 / 5 + 3 / 5)),
    Row("004 8/2 b) MAP, the 5 are the whole list", E82, 5, "AP", (1 / 1 + 2 / 4 + 3 / 5) / 5),
    Row("004 8/2 c) highest MAP: relevant at 6, 7", E82 + " R R", 5, "AP",
        (1 / 1 + 2 / 4 + 3 / 5 + 4 / 6 + 5 / 7) / 5),
    Row("004 8/2 c) lowest MAP: relevant at 99, 100", E82 + " N" * 93 + " R R", 5, "AP",
        (1 / 1 + 2 / 4 + 3 / 5 + 4 / 99 + 5 / 100) / 5),
    # ---- 004 exercise 8/3 (per query) ------------------------------------------------------
    Row("004 8/3 F, first query", E83A, 10, "SetF", 2 * (3 / 6) * (3 / 10) / (3 / 6 + 3 / 10)),
    Row("004 8/3 F, second query", E83B, 20, "SetF", 2 * (3 / 5) * (3 / 20) / (3 / 5 + 3 / 20)),
    Row("004 8/3 AP, first query", E83A, 10, "AP", (1 / 2 + 2 / 4 + 3 / 5) / 10),
    Row("004 8/3 AP, second query", E83B, 20, "AP", (1 / 3 + 2 / 4 + 3 / 5) / 20),
    # ---- 004 exercise 8/4 b, c (system returns docs 4..8; kappa part a is elsewhere) ----------
    Row("004 8/4 b) relevant if both judges agree ({3,4}): recall", "R N N N N", 2, "SetR", 1 / 2),
    Row("004 8/4 b) precision", "R N N N N", 2, "SetP", 1 / 5),
    Row("004 8/4 b) F", "R N N N N", 2, "SetF", 2 * (1 / 5) * (1 / 2) / (1 / 5 + 1 / 2)),
    Row("004 8/4 c) relevant if either judge says so (docs 3-12): recall", "R R R R R", 10, "SetR", 5 / 10),
    Row("004 8/4 c) precision", "R R R R R", 10, "SetP", 5 / 5),
    Row("004 8/4 c) F", "R R R R R", 10, "SetF", 2 * 1 * (5 / 10) / (1 + 5 / 10)),
]

MULTI_ROWS: list[MultiRow] = [
    MultiRow("001 §MAP (ERRATA 1: the mean is 0.65, not 1.3)", ((R1, 6), (R2, 6)), "AP",
             ((1 / 1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6
              + (1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6) / 2),
    MultiRow("001 §MAP@K", ((R1, 6), (R2, 6)), "AP(norm='found')@5",
             ((1 / 1 + 2 / 3 + 3 / 4 + 4 / 5) / 4 + (1 / 2 + 2 / 5) / 2) / 2),
    MultiRow("001 §Mean Reciprocal Rank", ((R1, 6), (R2, 6)), "RR", (1 / 1 + 1 / 2) / 2),
    MultiRow("004 Def 6 MRR of 8/3", ((E83A, 10), (E83B, 20)), "RR", (1 / 2 + 1 / 3) / 2),
    MultiRow("004 8/3 MAP", ((E83A, 10), (E83B, 20)), "AP",
             ((1 / 2 + 2 / 4 + 3 / 5) / 10 + (1 / 3 + 2 / 4 + 3 / 5) / 20) / 2),
    MultiRow("004 8/3 F (mean over the two queries)", ((E83A, 10), (E83B, 20)), "SetF",
             (2 * (3 / 6) * (3 / 10) / (3 / 6 + 3 / 10) + 2 * (3 / 5) * (3 / 20) / (3 / 5 + 3 / 20)) / 2),
    # 002 §Averaging Recall/Precision values: each query's precision is realised as P@20 with
    # 20*p relevant documents in the top 20; the summary is the mean over the two queries.
    MultiRow("002 §Averaging table, 10% recall (80, 60)",
             (("R " * 16 + "N " * 4, 16), ("R " * 12 + "N " * 8, 12)), "P@20", (80 + 60) / 2 / 100),
    MultiRow("002 §Averaging table, 50% recall (40, 25)",
             (("R " * 8 + "N " * 12, 8), ("R " * 5 + "N " * 15, 5)), "P@20", (40 + 25) / 2 / 100),
    MultiRow("002 §Averaging table, 90% recall (ERRATA 2: 12.5, not 11.5)",
             (("R " * 4 + "N " * 16, 4), ("R " * 1 + "N " * 19, 1)), "P@20", (20 + 5) / 2 / 100),
    MultiRow("002 §Averaging table, 100% recall (ERRATA 2)",
             (("R " * 4 + "N " * 16, 4), ("R " * 1 + "N " * 19, 1)), "P@20", (20 + 5) / 2 / 100),
]

# canonical names (default parameters left out: "E(beta=1)@10" is "E@10")
WORKED_EXAMPLE_MEASURES: set[str] = {parse_measure(r.measure).name for r in [*ROWS, *MULTI_ROWS]}

# ---------------------------------------------------------------- agreement between two judges
# 004 exercise 8/4 (Table 1): two judges label documents 1-12 for one query (0 non-relevant, 1 relevant); the system
# returns documents 4-8. tests/agreement/test_agreement_seed.py works out kappa, and P, R and F when a document is
# relevant if the judges agree (b) or if either says so (c).
EX84_JUDGE_1 = (0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
EX84_JUDGE_2 = (0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1)
EX84_RETRIEVED = frozenset({"4", "5", "6", "7", "8"})
# Manning, Raghavan & Schuetze (2008), Introduction to Information Retrieval, Table 8.2: 400 documents,
# (judge 1, judge 2) -> number of documents.
MANNING_TABLE_8_2 = {(1, 1): 300, (1, 0): 20, (0, 1): 10, (0, 0): 70}
