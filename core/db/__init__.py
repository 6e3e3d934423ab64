"""core/db."""
