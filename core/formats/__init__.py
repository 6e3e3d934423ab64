"""Parsers for the files people upload: runs, qrels, topics, documents, per-query scores, and RAG nuggets with their
assignments.

Every reader takes a path, bytes or a file object plus the file name to use in messages,
detects gzip by its magic bytes, keeps qid and docno as strings, and raises only UploadError.
Large run files are read a piece at a time by the one reader, `RunSource` (pieces.py). A run's lineage and cost
metadata keys are declared once in lineage.py (`META_KEYS`), with how they are read from an ir_metadata header.
"""
from core.formats.lineage import (COST_KEYS, LINEAGE_KEYS, META_KEYS, NUMERIC_COST_KEYS, MetaKey, check_key,
                                  check_value, from_header, parse_pair, parse_pairs)
from core.formats.nuggetmatch import MatchedNuggets, match_assignments
from core.formats.nuggets import ASSIGNMENT, IMPORTANCE, ParsedNuggets, read_assignments, read_nuggets
from core.formats.pieces import RunSource, pieces_min_bytes
from core.formats.qrels import ParsedQrels, read_qrels
from core.formats.runs import ParsedRun, read_run, read_run_unchecked
from core.formats.scores import ParsedScores, read_scores, scores_from_frame, scores_name
from core.formats.topics import read_documents, read_topics
from core.formats._fast import unique
from core.formats._text import (GZIP_MAGIC, file_error, is_empty_file, max_line_bytes, max_text_bytes, source_name,
                                too_big)

__all__ = ["ASSIGNMENT", "IMPORTANCE", "MatchedNuggets", "ParsedNuggets", "match_assignments", "read_assignments",
           "read_nuggets", "ParsedQrels", "ParsedRun", "read_documents", "read_qrels", "read_run", "read_run_unchecked",
           "read_topics", "RunSource",
           "ParsedScores", "read_scores", "scores_from_frame", "scores_name",
           "pieces_min_bytes", "unique", "GZIP_MAGIC", "file_error", "is_empty_file", "max_line_bytes", "max_text_bytes",
           "source_name", "too_big", "COST_KEYS", "LINEAGE_KEYS", "META_KEYS", "NUMERIC_COST_KEYS", "MetaKey", "check_key",
           "check_value", "from_header", "parse_pair", "parse_pairs"]
