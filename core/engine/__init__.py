"""core/engine."""
