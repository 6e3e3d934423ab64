"""Test cases shared by several test modules (so that no test module imports another)."""
