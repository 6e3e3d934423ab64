"""What joins the store and the engine: the `*_stored` functions that evaluate, compare and analyse stored runs
(through the store's results cache and judged rows), used by the dashboard and by `--collection` on the command
line; stored runs fused (fuse_stored), saved as a run (save_fused) and set beside their parts (fusion_report)."""
from core.service.compare import check_stored, compare_stored, does_it_matter, save_consensus
from core.service.curves import pr_curve_stored, roc_curve_stored
from core.service.diversity import evaluate_stored_diversity
from core.service.evaluate import evaluate_stored, stored_ids
from core.service.fusion import StoredFusion, check_new_name, fuse_stored, save_fused
from core.service.fusion_report import FusionReport, fusion_report
from core.service.history import history_stored, lines_of, step_topics, systems_of
from core.service.imported import imported_gaps
from core.service.judges import judges_stored, labels_of
from core.service.perquery import how_different_stored, side_by_side_stored
from core.service.repro import reproduce_stored

__all__ = ["evaluate_stored", "stored_ids", "compare_stored", "check_stored", "does_it_matter", "save_consensus",
           "pr_curve_stored", "roc_curve_stored", "evaluate_stored_diversity", "judges_stored", "labels_of",
           "how_different_stored", "side_by_side_stored", "StoredFusion", "fuse_stored", "save_fused", "check_new_name",
           "FusionReport", "fusion_report", "reproduce_stored",
           "history_stored", "systems_of", "lines_of", "step_topics", "imported_gaps"]
