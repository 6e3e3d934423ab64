"""The TRisk contributions chart colours each topic's bar by the sign of its contribution, one trace per colour
(so the legend names them), with the topics in the frame's order."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.colors

from dashboard.components.manysys import contributions_figure
from dashboard.components.palette import NEGATIVE, NEUTRAL, POSITIVE


def test_contribution_bars_are_red_grey_green_by_sign():
    frame = pd.DataFrame({"qid": ["1", "2", "3", "4"], "delta": [-0.2, 0.0, 0.1, 0.3], "f": [-0.4, 0.0, 0.1, 0.3],
                          "contribution": [-0.5, 0.0, 0.2, np.nan]})
    fig = contributions_figure(frame, run="b", baseline="a", measure="AP", alpha=1.0)
    shown = {bar.name: (bar.marker.color, list(bar.x), len(bar.customdata)) for bar in fig.data}
    assert shown == {"run wins": (POSITIVE, ["3"], 1), "run loses": (NEGATIVE, ["1"], 1),
                     "tied": (NEUTRAL, ["2", "4"], 2)}
    assert list(fig.layout.xaxis.categoryarray) == ["1", "2", "3", "4"] and fig.layout.showlegend
    assert plotly.colors.validate_colors([NEGATIVE, NEUTRAL, POSITIVE])
