"""The TRisk contributions chart colours each topic's bar by the sign of its contribution."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.colors

from dashboard.components.manysys import contributions_figure
from dashboard.components.palette import NEGATIVE, NEUTRAL, POSITIVE


def test_contribution_bars_are_red_grey_green_by_sign():
    frame = pd.DataFrame({"qid": ["1", "2", "3", "4"], "delta": [-0.2, 0.0, 0.1, 0.3], "f": [-0.4, 0.0, 0.1, 0.3],
                          "contribution": [-0.5, 0.0, 0.2, np.nan]})
    bar = contributions_figure(frame, run="b", baseline="a", measure="AP", alpha=1.0).data[0]
    scale = dict((v, c) for v, c in bar.marker.colorscale)
    lo, hi = bar.marker.cmin, bar.marker.cmax
    shown = [scale[(v - lo) / (hi - lo)] for v in bar.marker.color]      # the colour each bar gets
    assert shown == [NEGATIVE, NEUTRAL, POSITIVE, NEUTRAL]
    assert list(bar.x) == ["1", "2", "3", "4"] and len(bar.customdata) == 4
    assert plotly.colors.validate_colors([NEGATIVE, NEUTRAL, POSITIVE])
