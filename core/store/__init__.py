"""The store: one DuckDB file shared by the dashboard, the command line and scripts. `Store` (store.py) opens it and
owns its transactions; processes take turns on the file (access.py, connections.py); the schema and its
migrations (schema.py); what it holds, read and edited by name (catalogue.py, edits.py); loading files (prepare.py
before the store is taken, ingest.py inside the transaction); diversity qrels sets (diversity.py); the per-query
results cache (results.py); per-query scores imported from other tools (scores.py); damaged files (health.py) and
faults with a way back (faults.py)."""
from core.store.diversity import add_diversity_qrels, diversity_sets, insert_diversity_qrels
from core.store.scores import ScoresReport, insert_scores, read_imported
from core.store.store import DEFAULT_PATH, Store, resolve_path, sample_names

__all__ = ["Store", "resolve_path", "sample_names", "DEFAULT_PATH", "add_diversity_qrels", "insert_diversity_qrels",
           "diversity_sets", "ScoresReport", "insert_scores", "read_imported"]
