"""core/distributed/driver."""
