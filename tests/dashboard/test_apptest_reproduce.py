"""AppTest: the Reproduce page on the sample store: KTU and RBO per pair and topic, RMSE and p per measure, the effects
with both baselines, the tooltips, the URL and the CSV; its numbers are core.service.reproduce_stored's."""
from __future__ import annotations

import pytest

from dashboard.components.repro import MEANING
from tests.apptest_kit import assert_clean, frame, open_page, texts, url
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.xdist_group("apptest")


def _reproduction(store_path, roles: dict[str, str], measures, rbo_p=0.8):
    from core.service import reproduce_stored
    from core.store import Store
    with Store.open(store_path, read_only=True) as store:
        runs = store.runs("robust03-sample")
        ids = dict(zip(runs["name"], runs["run_id"].astype(int)))
        return reproduce_stored(store, "robust03-sample", {r: ids[n] for r, n in roles.items()}, measures,
                                rbo_p=rbo_p)


def test_the_page_shows_the_pair_and_its_numbers(app, store_path):
    at = open_page(app, "reproduce", original="pircRBa1", reproduced="aplrob03a", measures=["AP", "P@10"])
    assert_clean(at)
    assert at.title[0].value == "Reproducibility"
    want = _reproduction(store_path, {"original": "pircRBa1", "reproduced": "aplrob03a"}, ["AP", "P@10"])
    metrics = {m.label: m for m in at.metric}
    assert metrics["KTU · Run"].value == f"{want.agreement[0].ktu:.4f}"
    assert metrics["KTU · Run"].help == MEANING["ktu"]
    assert metrics["RBO (p = 0.8) · Run"].value == f"{want.agreement[0].rbo:.4f}"
    per_topic = frame(at, "rp_orderings_table")
    assert len(per_topic) == want.agreement[0].n_topics
    table = frame(at, "rp_measures_table")
    assert list(table["measure"]) == ["AP", "P@10"]
    assert list(table["rmse"]) == pytest.approx([m.rmse for m in want.measures])
    assert list(table["p_value"]) == pytest.approx([m.p_value for m in want.measures])
    assert "Pick both baselines (the original's and the reproduced one's)" in texts(at)
    assert at.get("download_button")[0].proto.label == "Download CSV"


def test_baselines_add_the_effects_and_p_changes_rbo(app, store_path):
    at = open_page(app, "reproduce", original="pircRBa1", reproduced="aplrob03a", original_baseline="MU03rob01",
                   reproduced_baseline="humR03dc", measures=["AP"], rbo_p="0.95")
    assert_clean(at)
    roles = {"original": "pircRBa1", "reproduced": "aplrob03a", "original_baseline": "MU03rob01",
             "reproduced_baseline": "humR03dc"}
    want = _reproduction(store_path, roles, ["AP"], rbo_p=0.95)
    effects = frame(at, "rp_effects")
    assert effects["effect_ratio"].iloc[0] == pytest.approx(want.effects[0].effect_ratio)
    assert effects["delta_ri"].iloc[0] == pytest.approx(want.effects[0].delta_ri)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["RBO (p = 0.95) · Baseline"] == f"{want.agreement[1].rbo:.4f}"
    at.selectbox(key="rp_rbo_p").set_value("0.5").run()
    assert_clean(at)
    assert url(at, "rbo_p") == ["0.5"]
    assert {m.label for m in at.metric} >= {"RBO (p = 0.5) · Run", "RBO (p = 0.5) · Baseline"}


def test_one_baseline_alone_is_not_used(app):
    at = open_page(app, "reproduce", original="pircRBa1", reproduced="aplrob03a", original_baseline="MU03rob01")
    assert_clean(at)
    assert "Pick both baselines, or neither" in texts(at)
    assert url(at, "original_baseline") == ["MU03rob01"]
    at.selectbox(key="rp_reproduced").set_value("humR03dc").run()
    assert_clean(at)
    assert url(at, "reproduced") == ["humR03dc"]
