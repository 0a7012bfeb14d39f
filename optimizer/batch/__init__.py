"""Batch tuning of job catalogs (``mrtune batch``), locally or on a Dask cluster.

:func:`discover` lists a catalog's jobs (``.jhist`` histories, SWIM trace rows, JSONL
profiles); :func:`run_batch` tunes each with a lean vectorised search (:func:`tune_job`),
stores results incrementally in SQLite (resumable), chooses one cluster-wide configuration
(:func:`choose_cluster_config`) and writes per-job CSV/JSONL, a summary, ``mapred-site.xml``
and plots.
"""

from mrtune.optimizer.batch._catalog import JobRef, discover
from mrtune.optimizer.batch._cluster import ClusterChoice, choose_cluster_config
from mrtune.optimizer.batch._executors import DaskExecutor, InlineExecutor, LocalPoolExecutor
from mrtune.optimizer.batch._run import BatchReport, run_batch
from mrtune.optimizer.batch._store import ResultStore
from mrtune.optimizer.batch._tune import PER_JOB_KNOBS, JobTuning, tune_job
from mrtune.optimizer.batch._worker import BatchSettings, load_ref, tune_ref
from mrtune.profiling.swim import hive_reducers, swim_profile
from mrtune.readers.swim import parse_swim_line

__all__ = [
    "PER_JOB_KNOBS",
    "BatchReport",
    "BatchSettings",
    "ClusterChoice",
    "DaskExecutor",
    "InlineExecutor",
    "JobRef",
    "JobTuning",
    "LocalPoolExecutor",
    "ResultStore",
    "choose_cluster_config",
    "discover",
    "hive_reducers",
    "load_ref",
    "parse_swim_line",
    "run_batch",
    "swim_profile",
    "tune_job",
    "tune_ref",
]
