"""core/stats/paired."""
