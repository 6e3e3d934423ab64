"""Run files to Parquet, for the Dask engine: `python -m core convert RUN [RUN ...] --out DIR`.

A worker reads a converted run straight into Arrow, with no text to split or numbers to parse (the file is
checked once, here, by the same reader `evaluate` uses). The file holds qid, docno, score and tag (the run's
name, dictionary-encoded, so it costs a few bytes) and the mark core.distributed.tasks looks for. Every engine reads
it: `evaluate` gives the same numbers and the same run name as for the text file.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from core.distributed.tasks import PARQUET_MARK, ROWS


def parquet_name(path) -> str:
    """input.run1.gz -> input.run1.parquet; run.txt -> run.parquet."""
    name = Path(str(path)).name
    for suffix in (".gz", ".txt", ".tsv", ".csv", ".run", ".parquet"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name + ".parquet"


def to_parquet(path, out_dir, *, row_group: int = 1 << 20) -> Path:
    """Check run file `path` (any format `evaluate` reads; errors name the file and line) and write it to
    `out_dir` as Parquet; returns the new file's path. Written to a temporary name, then renamed."""
    import pyarrow.parquet as pq

    from core.formats import read_run

    parsed = read_run(path, filename=Path(str(path)).name)
    table = parsed.table.select(["qid", "docno", "score"]).cast(ROWS)
    if parsed.tag is not None:
        table = table.append_column("tag", pa.array([parsed.tag] * table.num_rows, pa.string()).dictionary_encode())
    table = table.replace_schema_metadata({PARQUET_MARK: b"1"})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / parquet_name(path)
    tmp = target.with_name(target.name + ".part")
    pq.write_table(table, tmp, row_group_size=row_group, compression="zstd")
    tmp.replace(target)
    return target
