"""dashboard/components/leaderboard.py: the Leaderboard's styled table against its plain form."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.stats.compare import compare
from core.stats.resolution import resolve
from dashboard.components import leaderboard as lb


def _plain_styled(summary, *, runs, measures, comparison=None, judged=None, resolution=None, costs=None):
    """The plain form of styled_table: labels as pandas gives them (Arrow strings), the colours set with one
    .loc assignment per cell."""
    table = lb.in_rank_order(lb.means_table(summary, runs=runs, measures=measures))
    measures = list(table.columns)
    ranked = [lb.RANK, lb.GROUP] if resolution is not None else []
    if resolution is not None:
        known = set(resolution.runs)
        table.insert(0, lb.RANK, [resolution.label(r) if r in known else "" for r in table.index])
        table.insert(1, lb.GROUP, [resolution.of(r)["group"] if r in known else "" for r in table.index])
    baseline = comparison.baseline if comparison is not None else None
    if judged is not None:
        table["Judged@10"] = judged.reindex(table.index)
    wtl = None
    if comparison is not None and measures:
        wtl = f"W/T/L {measures[0]}"
        rows = {r.run: r for r in comparison.rows if r.measure == measures[0]}
        table[wtl] = [f"{rows[r].wins}/{rows[r].ties}/{rows[r].losses}"
                      if r in rows and rows[r].wins is not None else "" for r in table.index]
    cost_keys = [] if costs is None else [c for c in costs.columns if c not in table.columns]
    for c in cost_keys:
        table[c] = ["–" if not lb._ok(v) else f"{v:g}" if isinstance(v, float) else str(v)
                    for v in costs[c].reindex(table.index)]
    table.index = [f"{r} (baseline)" if r == baseline else r for r in table.index]
    table.index.name = "Run"
    numeric = [c for c in table.columns if c != wtl and c not in ranked and c not in cost_keys]
    styler = table.style.format("{:.4f}", na_rep="–", subset=numeric)
    css = pd.DataFrame("", index=table.index, columns=table.columns, dtype=object)
    if comparison is not None:
        marked = {}
        for (run, m), (marker, sign) in lb._cell_marks(comparison, measures).items():
            if run in table.index and m in table.columns:
                css.loc[run, m] = lb._BG.get(marker) or lb._TEXT.get(sign, "")
                if marker:
                    marked.setdefault((m, marker), []).append(run)
        for (m, marker), rows in marked.items():
            styler = styler.format(lambda v, mk=marker: f"{v:.4f} {mk}", subset=pd.IndexSlice[rows, [m]],
                                   na_rep="–")
    if judged is not None:
        css["Judged@10"] = ["color: #b45309; font-weight: bold" if lb._ok(v) and v < lb.JUDGED_ENOUGH else ""
                            for v in table["Judged@10"]]
    return table, styler.apply(lambda _frame: css, axis=None)


def _case(seed: int, n_runs: int = 9, n_topics: int = 30):
    rng = np.random.default_rng(seed)
    runs = [f"run<{i}>" if i == 3 else f"r{i}" for i in range(n_runs)]
    strength = dict(zip(runs, rng.uniform(0.1, 0.7, n_runs)))
    rows = [(r, f"q{t}", m, float(np.clip(strength[r] + 0.15 * rng.standard_normal(), 0, 1)))
            for r in runs for t in range(n_topics) for m in ("AP", "P@10", "nDCG@10")]
    pq = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    summary = pq.groupby(["run", "measure"], as_index=False)["value"].mean()
    summary = summary[~((summary["run"] == runs[-1]) & (summary["measure"] == "P@10"))]   # a hole: shows '–'
    judged = pd.Series(rng.uniform(0.7, 1.0, n_runs), index=runs)
    costs = pd.DataFrame({"latency_ms": [float(10 * i) if i % 3 else math.nan for i in range(n_runs)]}, index=runs)
    return pq, summary, runs, judged, costs


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("with_baseline", [False, True])
def test_the_styled_table_renders_as_its_plain_form(seed, with_baseline):
    pq, summary, runs, judged, costs = _case(seed)
    measures = ["AP", "P@10", "nDCG@10"]
    comparison = compare(pq, baseline=runs[0], measures=measures, intervals=False) if with_baseline else None
    resolution = resolve(pq, measures=["AP"], runs=runs, n_resamples=200)["AP"]
    args = dict(comparison=comparison, judged=judged, resolution=resolution, costs=costs)
    table, styler = lb.styled_table(lb.ranked(summary, runs=runs, measures=measures), **args)
    plain_table, plain_styler = _plain_styled(summary, runs=runs, measures=measures, **args)
    pd.testing.assert_frame_equal(table, plain_table, check_index_type=False, check_column_type=False)
    html = styler.set_uuid("t").to_html()
    assert html == plain_styler.set_uuid("t").to_html()
    if with_baseline:                     # the case shows what the comparison is for: markers and colours
        assert lb.UP in html or lb.DOWN in html
        assert "(baseline)" in html and "background-color" in html
    assert "–" in html and "color: #b45309" in html


def _plain_means(summary, *, runs, measures):
    wide = summary.pivot_table(index="run", columns="measure", values="value", aggfunc="first")
    return wide.reindex(index=runs, columns=[m for m in measures if m in wide.columns])


@pytest.mark.parametrize("seed", range(6))
def test_the_means_table_is_the_plain_pivot(seed):
    """Runs the summary lacks, measures no run has or has only as NaN, repeated (run, measure) rows (the first with
    a value counts)."""
    rng = np.random.default_rng(seed)
    names = [f"r{i}" for i in range(8)]
    rows = [(str(rng.choice(names)), str(rng.choice(["AP", "P@10", "RR", "Judged@10"])), float(rng.random()))
            for _ in range(40)]
    summary = pd.DataFrame(rows, columns=["run", "measure", "value"])
    summary.loc[summary.index[::7], "value"] = np.nan
    if seed % 2:
        summary.loc[summary["measure"] == "RR", "value"] = np.nan      # a measure without a value: left out
    runs = [str(r) for r in rng.permutation(names + ["absent"])[:7]]
    measures = ["RR", "nDCG@10", "AP", "P@10"][: 2 + seed % 3]
    got = lb.means_table(summary, runs=runs, measures=measures)
    want = _plain_means(summary, runs=runs, measures=measures)
    pd.testing.assert_frame_equal(got, want, check_index_type=False, check_column_type=False)
