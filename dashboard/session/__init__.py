"""dashboard/session."""
