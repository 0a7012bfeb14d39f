"""Adapter: per-job task counts and task times from the white-box cost model.

The workflow core works on plain numbers (:class:`~mrtune.costmodel.workflow.JobTasks`); this module
asks :func:`mrtune.costmodel.predict_job` for them, one vectorised call per job for a whole batch of
configurations (DESIGN decision 5), and applies the workflow's own map/reduce capacity (the
seed's allocation ``(S_M^W, S_R^W)``) instead of the cluster's when one is given.

The analytical model predicts one time per task; when the profile holds observed task times the
ratio longest/mean of those is kept as the spread of the bounds' ``max`` (seed §3.2.2 uses the
measured average and maximum task durations).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.job import predict_job
from mrtune.costmodel.workflow._jobs import JobTasks, stage_durations_batch

if TYPE_CHECKING:
    from mrtune.costmodel.cluster import ClusterSpec
    from mrtune.costmodel.config import HadoopConfig
    from mrtune.costmodel.profile import JobProfile


@dataclass(frozen=True)
class TaskArrays:
    """One job under ``n`` configurations: every field an ndarray of shape (n,)."""

    n_maps: NDArray[np.int64]
    n_reduces: NDArray[np.int64]
    map_task_ms: NDArray[np.float64]
    reduce_task_ms: NDArray[np.float64]
    map_slots: NDArray[np.int64]
    reduce_slots: NDArray[np.int64]
    map_stage_ms: NDArray[np.float64] | None = None
    job_ms: NDArray[np.float64] | None = None
    map_spread: float = 1.0
    reduce_spread: float = 1.0

    def __len__(self) -> int:
        return int(self.n_maps.shape[0])

    def stage_durations(
        self, estimate: str = "average"
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(T^M, T^R)`` for every configuration, each of shape (n,)."""
        if estimate == "model":
            if self.map_stage_ms is None or self.job_ms is None:
                estimate = "waves"  # not from the cost model: its own waves
            else:
                return self.map_stage_ms, np.maximum(self.job_ms - self.map_stage_ms, 0.0)
        return stage_durations_batch(
            self.n_maps,
            self.n_reduces,
            self.map_task_ms,
            self.reduce_task_ms,
            self.map_slots,
            self.reduce_slots,
            estimate,
            map_spread=self.map_spread,
            reduce_spread=self.reduce_spread,
        )

    def job(self, i: int, name: str) -> JobTasks:
        """Configuration ``i`` as a :class:`JobTasks`."""
        return JobTasks(
            name=name,
            n_maps=int(self.n_maps[i]),
            n_reduces=int(self.n_reduces[i]),
            map_task_ms=float(self.map_task_ms[i]),
            reduce_task_ms=float(self.reduce_task_ms[i]),
            map_slots=int(self.map_slots[i]),
            reduce_slots=int(self.reduce_slots[i]),
            map_max_ms=float(self.map_task_ms[i]) * self.map_spread,
            reduce_max_ms=float(self.reduce_task_ms[i]) * self.reduce_spread,
            model_map_stage_ms=None if self.map_stage_ms is None else float(self.map_stage_ms[i]),
            model_reduce_stage_ms=None
            if self.job_ms is None or self.map_stage_ms is None
            else max(float(self.job_ms[i] - self.map_stage_ms[i]), 0.0),
        )


def observed_spread(profile: JobProfile, kind: str) -> float:
    """Longest / mean duration of the profile's observed ``kind`` tasks (1.0 with < 2 tasks)."""
    durations = np.array(
        [t.finish_ms - t.start_ms for t in profile.observed if t.kind == kind], dtype=np.float64
    )
    durations = durations[durations > 0]
    if durations.size < 2:
        return 1.0
    return float(max(1.0, durations.max() / durations.mean()))


def predict_tasks(
    profile: JobProfile,
    configs: Sequence[HadoopConfig] | ConfigBatch,
    cluster: ClusterSpec,
    *,
    map_capacity: int | None = None,
    reduce_capacity: int | None = None,
    use_observed_spread: bool = True,
) -> TaskArrays:
    """Task counts and times of ``profile`` under each configuration (one cost-model call).

    Task times include the cluster's per-task start-up and scheduling delay, as the job model's
    waves do (``ClusterSpec.task_startup_ms + heartbeat_ms``).
    """
    batch = configs if isinstance(configs, ConfigBatch) else ConfigBatch.from_configs(configs)
    res = predict_job(profile, batch, cluster)
    n = len(batch)

    def column(values: object, dtype: type) -> NDArray:
        return np.broadcast_to(np.asarray(values, dtype=dtype), (n,)).copy()

    startup = cluster.task_startup_ms + cluster.heartbeat_ms
    n_reduces = column(res.num_reducers, np.int64)
    reduce_ms = np.where(n_reduces > 0, column(res.reduce_task_ms, np.float64) + startup, 0.0)
    map_slots = column(res.map_slots if map_capacity is None else map_capacity, np.int64)
    reduce_slots = column(
        res.reduce_slots if reduce_capacity is None else reduce_capacity, np.int64
    )
    return TaskArrays(
        n_maps=column(res.num_maps, np.int64),
        n_reduces=n_reduces,
        map_task_ms=column(res.map_task_ms, np.float64) + startup,
        reduce_task_ms=reduce_ms,
        map_slots=np.maximum(map_slots, 1),
        reduce_slots=np.maximum(reduce_slots, 1),
        map_stage_ms=column(res.map_stage_ms, np.float64),
        job_ms=column(res.job_ms, np.float64),
        map_spread=observed_spread(profile, "map") if use_observed_spread else 1.0,
        reduce_spread=observed_spread(profile, "reduce") if use_observed_spread else 1.0,
    )
