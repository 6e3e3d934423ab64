"""The Dask engine: the driver (driver.py: global steps, the topic split's shuffle), what a worker runs (tasks.py,
kernel.py), reaching a cluster (cluster.py), and run files converted to Parquet (convert.py). dask and distributed
are imported only when a cluster is asked for."""
from core.distributed.convert import to_parquet
from core.distributed.driver import evaluate_distributed, evaluate_rankings_on_cluster, run_distributed

__all__ = ["evaluate_distributed", "run_distributed", "evaluate_rankings_on_cluster", "to_parquet"]
