"""The white-box MapReduce cost model (Herodotou's phase model, vectorised).

Pure: no file or network I/O, and no import of mrtune's other packages. Inputs are pydantic
models (:class:`HadoopConfig`, :class:`JobProfile`, :class:`ClusterSpec`); a
:class:`ConfigBatch` holds many configurations as arrays, and :func:`predict_job` evaluates all of
them with numpy operations. :func:`simulate_schedule` replays one configuration task by task on a
virtual cluster.
"""

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import JobPrediction, evaluate, predict_job
from mrtune.costmodel.map_task import MapTaskResult, map_task, records_per_spill
from mrtune.costmodel.merge_plans import spill_merge_plan
from mrtune.costmodel.merger import MergeResult, simulate_merge
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    CodecStats,
    CostFactors,
    DataflowStats,
    JobProfile,
)
from mrtune.costmodel.reduce_task import ReduceTaskResult, reduce_task

__all__ = [
    "CODEC_PRIORS",
    "ClusterSpec",
    "CodecStats",
    "ConfigBatch",
    "CostFactors",
    "DataflowStats",
    "HadoopConfig",
    "JobPrediction",
    "JobProfile",
    "MapTaskResult",
    "MergeResult",
    "ReduceTaskResult",
    "evaluate",
    "map_task",
    "predict_job",
    "records_per_spill",
    "reduce_task",
    "simulate_merge",
    "spill_merge_plan",
]
