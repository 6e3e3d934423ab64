"""core/store/store."""
