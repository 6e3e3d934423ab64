"""core/analysis."""
