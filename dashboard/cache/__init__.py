"""dashboard/cache."""
