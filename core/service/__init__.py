"""core/service."""
