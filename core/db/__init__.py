"""The bottom layer: DuckDB helpers. Scratch connections and their temporary folders (scratch.py), identifiers into
SQL text, the first-row helper and tables registered under a fresh name (sqltext.py), and the named .sql files
(sql/)."""
from core.db.scratch import scratch, shared_cursor, sweep, temp_directory, temp_folder
from core.db.sql import sql
from core.db.sqltext import ident, int_list, one, registered, statement

__all__ = ["scratch", "shared_cursor", "sweep", "temp_directory", "temp_folder", "sql", "ident", "int_list", "one",
           "registered", "statement"]
