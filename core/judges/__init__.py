"""Many judges (human or LLM) against one reference qrels set: the `JudgeReport` (report.py) from one engine pass
over every judge and run (scores.py), label agreement (labels.py) and ranking stability (ranking.py) of all judges
at once."""
from core.judges.report import DEFAULT_MEASURE, JudgeReport, compute, judges_frames

__all__ = ["JudgeReport", "judges_frames", "compute", "DEFAULT_MEASURE"]
