"""The documentation of the statistics that compare many runs at once (rank resolution, all-pairs
tests, risk), declared once like the measure registry: the Measures page renders this table and
tests/stats/test_risk.py (test_every_statistic_is_documented_and_exists) checks every entry names a formula, a
reference and an existing function."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statistic:
    name: str             # as the user meets it: CLI value or leaderboard label
    kind: str             # "rank resolution" | "all-pairs test" | "risk"
    description: str      # one line
    formula: str          # LaTeX, for st.latex
    reference: str
    function: str         # "module:function" that computes it
    option: str = ""      # how to ask for it on the command line


STATISTICS: tuple[Statistic, ...] = (
    Statistic("Rank interval", "rank resolution",
              "95% interval of a run's rank over a seeded bootstrap of the topics (the same draw for every run); "
              "shown as rank (low–high).",
              r"r_j^{(b)} = 1 + |\{i : \bar x_i^{(b)} > \bar x_j^{(b)}\}|,\quad "
              r"[\,Q_{0.025}(r_j^{(\cdot)}),\ Q_{0.975}(r_j^{(\cdot)})\,]",
              "Efron & Tibshirani, An Introduction to the Bootstrap (1993); mteb issue 5208",
              "core.stats.ranks:rank_intervals", "--ranks"),
    Statistic("Compact letters", "rank resolution",
              "Runs that share a letter are not significantly different under the chosen test and correction "
              "over all pairs; 'a' holds the best run.",
              r"\forall\, i, j \text{ sharing a letter}: \; p^{adj}_{ij} \ge \alpha",
              "Piepho, An algorithm for a letter-based representation of all-pairwise comparisons, JCGS 13(2), 2004",
              "core.stats.ranks:compact_letters", "--ranks"),
    Statistic("Tukey HSD (two-way)", "all-pairs test",
              "Tukey's honestly significant difference on the run x topic ANOVA without interaction, on the "
              "topics every run has.",
              r"q_{ab} = \frac{|\bar x_a - \bar x_b|}{\sqrt{MSE / n}},\quad p_{ab} = P(Q_{k,(k-1)(n-1)} \ge q_{ab})",
              "Carterette, Multiple testing in statistical analysis of systems-based IR experiments, TOIS 30(1), 2012; "
              "Tukey, Biometrics 5(2), 1949",
              "core.stats.multisys:tukey_hsd", "--test tukey"),
    Statistic("Randomisation, max statistic", "all-pairs test",
              "Permute each topic's values among the runs; a pair's p is the share of permutations whose range of "
              "means reaches its difference: family-wise by itself.",
              r"p_{ab} = \frac{1 + |\{b : \max_j \bar x^{(b)}_j - \min_j \bar x^{(b)}_j \ge |\bar x_a - \bar x_b|\}|}{B + 1}",
              "Carterette, TOIS 30(1), 2012; Smucker, Allan & Carterette, CIKM 2007",
              "core.stats.multisys:randomization_all", "--test randomization-all"),
    Statistic("URisk", "risk",
              "Mean per-topic difference from the baseline with every loss weighted 1 + α.",
              r"f_t = \begin{cases}\delta_t & \delta_t \ge 0\\ (1+\alpha)\,\delta_t & \delta_t < 0\end{cases},\quad "
              r"URisk = \frac{1}{n}\sum_t f_t",
              "Wang, Bennett & Collins-Thompson, SIGIR 2012; Dinçer, Macdonald & Ounis, SIGIR 2014",
              "core.stats.risk:urisk_trisk", "--risk urisk --alpha-risk A"),
    Statistic("TRisk", "risk",
              "URisk divided by its standard error: below −2 the run significantly hurts topics, above +2 it "
              "significantly helps; the chart shows each topic's share f_t / (n·SE).",
              r"TRisk = \frac{URisk}{SE(f)},\quad SE(f) = \frac{sd(f)}{\sqrt n}\ (\text{ddof} = 1)",
              "Dinçer, Macdonald & Ounis, Hypothesis testing for the risk-sensitive evaluation of retrieval systems, "
              "SIGIR 2014",
              "core.stats.risk:urisk_trisk", "--risk trisk --alpha-risk A"),
    Statistic("GeoRisk", "risk",
              "Risk against every run at once: the geometric mean of a run's effectiveness and the normal CDF of its "
              "ZRisk, where each topic's expected score comes from the runs x topics table.",
              r"e_{ti} = \frac{S_i T_t}{N},\ z_{ti} = \frac{x_{ti} - e_{ti}}{\sqrt{e_{ti}}},\ "
              r"GeoRisk_i = \sqrt{\frac{S_i}{c}\,\Phi\!\left(\frac{1}{c}\sum_t z_{ti}(1 + \alpha[z_{ti} < 0])\right)}",
              "Dinçer, Macdonald & Ounis, Risk-sensitive evaluation and learning to rank using multiple baselines, "
              "SIGIR 2016",
              "core.stats.risk:georisk", "--risk urisk|trisk"),
)


def matching(text: str) -> list[Statistic]:
    text = text.strip().lower()
    return [s for s in STATISTICS
            if not text or text in " ".join([s.name, s.kind, s.description, s.option]).lower()]


__all__ = ["Statistic", "STATISTICS", "matching"]
