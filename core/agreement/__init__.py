"""core/agreement/qrels."""
