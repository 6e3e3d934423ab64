"""trec_eval's judgment-group averages (-R qrels_jg): P_avgjg, map_avgjg, Rprec_mult_avgjg.

A qrels_jg file (`qid jg docno rel`) holds several sets of judgments per topic, one per judgment group (assessor).
Each measure is the plain measure under each group's judgments, averaged over the topic's groups
(m_P_avgjg.c, m_map_avgjg.c, m_Rprec_mult_avgjg.c). core.engine.jg evaluates every (topic, group) as a ranking of
its own with these families (whose compute is the plain measure's) and averages per topic.
"""
from __future__ import annotations

from core.measures.ap import _ap
from core.measures.base import Family, Param, register
from core.measures.precision import CUTS, TREC, _p, _rprec

AVG = " Averaged over the topic's judgment groups (trec_eval -R qrels_jg)."

register(Family("P_avgjg", "Precision at k." + AVG, r"\frac{1}{|J|}\sum_{j \in J} P_j@k", TREC + " (m_P_avgjg.c)",
                _p, cutoff="required", trec=("P_avgjg_{cutoff}",), trec_defaults=CUTS))
register(Family("map_avgjg", "Average precision." + AVG, r"\frac{1}{|J|}\sum_{j \in J} AP_j",
                TREC + " (m_map_avgjg.c)", _ap, trec=("map_avgjg",)))
register(Family("Rprec_mult_avgjg", "Precision at rank mult*R." + AVG,
                r"\frac{1}{|J|}\sum_{j \in J} P_j@\lfloor mult \cdot R_j + 0.9 \rfloor", TREC + " (m_Rprec_mult_avgjg.c)",
                _rprec, params=(Param("mult", float, 1.0, minimum=0.0),), trec=("Rprec_mult_avgjg_{mult:.2f}",)))
