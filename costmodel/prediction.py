"""The analytic job model's answer (reference §6.1): :class:`JobPrediction`.

One array per output, shape (n_configs,): the job's tasks, slots, waves, stage ends and totals
that :func:`~mrtune.costmodel.job.predict_job` computes, plus the per-phase and counter views
read from its task results on demand (the counters only when asked: a search needs the job
time and GB·s alone). Counter names are Hadoop's ``TaskCounter`` / ``FileSystemCounter``
names, job totals as ``JobHistory`` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.map_groups import MapGroup, total
from mrtune.costmodel.map_task import MapTaskResult
from mrtune.costmodel.reduce_task import ReduceTaskResult

F64 = NDArray[np.float64]


@dataclass
class JobPrediction:
    """The analytic job model's answer for each configuration (ndarrays of shape (n,)).

    ``map_groups`` holds every group of equal map tasks (:mod:`mrtune.costmodel.map_groups`):
    the input's full and tail maps, or two per map class. ``map_full`` / ``map_tail`` and
    their counts and sizes are the first two (the whole job's when it has no map classes);
    every job total reads all the groups.
    """

    num_maps: F64
    num_full_maps: F64
    num_tail_maps: F64
    num_reducers: F64
    full_split_bytes: F64
    tail_split_bytes: F64
    map_full: MapTaskResult
    map_tail: MapTaskResult
    reduce: ReduceTaskResult
    map_slots: F64
    reduce_slots: F64
    map_waves: F64
    reduce_waves: F64
    map_stage_ms: F64
    reduce_start_ms: F64
    shuffle_end_ms: F64
    job_ms: F64
    total_task_ms: F64
    container_gb_s: F64
    #: ClusterSpec.cpu_stretch of a map wave and of a reduce wave (1: no contention term)
    map_stretch: F64 | float = 1.0
    reduce_stretch: F64 | float = 1.0
    map_groups: tuple[MapGroup, ...] = ()
    #: the reduce of the hot partition (:mod:`mrtune.costmodel.partitions`); ``reduce`` is
    #: then each of the other ``R − 1``. ``None``: every reduce is ``reduce``
    reduce_hot: ReduceTaskResult | None = None

    def _maps(self, attr: str) -> F64:
        """Job total of a per-map quantity over every group of maps."""
        groups = self.map_groups or (
            MapGroup(self.num_full_maps, self.full_split_bytes, self.map_full),
            MapGroup(self.num_tail_maps, self.tail_split_bytes, self.map_tail),
        )
        return total(groups, attr)

    def reduce_total(self, attr: str) -> F64:
        """Job total of a per-reduce quantity over the reduces (0 for a map-only row)."""
        per = getattr(self.reduce, attr)
        R = self.num_reducers
        if self.reduce_hot is None:
            out = R * per
        else:
            out = getattr(self.reduce_hot, attr) + (R - 1.0) * per
        return np.where(R > 0, out, 0.0)

    @cached_property
    def _total_raw(self) -> F64:
        return self._maps("output_records")

    @cached_property
    def counters(self) -> dict[str, F64]:
        """Job-total Hadoop counters (computed on first access; searches never need them)."""
        counters = {
            "MAP_INPUT_RECORDS": self._maps("input_records"),
            "MAP_OUTPUT_RECORDS": np.where(
                (self.num_reducers > 0),
                self._total_raw,
                self._maps("output_records"),
            ),
            "MAP_OUTPUT_BYTES": self._maps("output_bytes"),
            "MAP_OUTPUT_MATERIALIZED_BYTES": self._maps("materialized_bytes"),
            "SPILLED_RECORDS": self._maps("spilled_records")
            + self.reduce_total("spilled_records"),
            "MAP_SPILLED_RECORDS": self._maps("spilled_records"),
            "REDUCE_SPILLED_RECORDS": self.reduce_total("spilled_records"),
            "COMBINE_INPUT_RECORDS": self._maps("combine_input_records")
            + self.reduce_total("combine_input_records"),
            "COMBINE_OUTPUT_RECORDS": self._maps("combine_output_records")
            + self.reduce_total("combine_output_records"),
            "REDUCE_SHUFFLE_BYTES": self.reduce_total("shuffle_bytes"),
            "REDUCE_INPUT_RECORDS": self.reduce_total("input_records"),
            "REDUCE_INPUT_GROUPS": self.reduce_total("input_groups"),
            "REDUCE_OUTPUT_RECORDS": self.reduce_total("output_records"),
            "SHUFFLED_MAPS": np.where(
                (self.num_reducers > 0), self.num_reducers * self.num_maps, 0.0
            ),
            "HDFS_BYTES_READ": self._maps("hdfs_bytes_read"),
            "HDFS_BYTES_WRITTEN": np.where(
                (self.num_reducers > 0),
                self.reduce_total("hdfs_bytes_written"),
                self._maps("hdfs_bytes_written"),
            ),
            "FILE_BYTES_WRITTEN": self._maps("file_bytes_written")
            + self.reduce_total("file_bytes_written"),
            "FILE_BYTES_READ": self._maps("file_bytes_read")
            + self.reduce_total("file_bytes_read"),
            "MAP_SPILLS": self._maps("spills"),
        }
        return counters

    @property
    def map_task_ms(self) -> F64:
        """Average map task time (full and tail splits weighted by their counts)."""
        n = np.maximum(self.num_maps, 1.0)
        return self._maps("task_ms") / n

    @property
    def reduce_task_ms(self) -> F64:
        """A reduce's task time (with a hot partition: each of the others')."""
        return np.where(self.num_reducers > 0, self.reduce.task_ms, 0.0)

    @property
    def largest_reduce_ms(self) -> F64:
        """The largest reduce's task time: the hot partition's, else every reduce's."""
        if self.reduce_hot is None:
            return self.reduce_task_ms
        return np.where(self.num_reducers > 0, self.reduce_hot.task_ms, 0.0)

    @property
    def map_phase_ms(self) -> dict[str, F64]:
        n = np.maximum(self.num_maps, 1.0)
        groups = self.map_groups or (
            MapGroup(self.num_full_maps, self.full_split_bytes, self.map_full),
            MapGroup(self.num_tail_maps, self.tail_split_bytes, self.map_tail),
        )
        out = {}
        for k in self.map_full.phase_ms:
            acc = groups[0].count * groups[0].result.phase_ms[k]
            for g in groups[1:]:
                acc = acc + g.count * g.result.phase_ms[k]
            out[k] = acc / n
        return out

    @property
    def reduce_phase_ms(self) -> dict[str, F64]:
        return {
            k: np.where(self.num_reducers > 0, v, 0.0) for k, v in self.reduce.phase_ms.items()
        }

    def __len__(self) -> int:
        return int(self.job_ms.shape[0])
