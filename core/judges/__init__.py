"""core/judges/report."""
