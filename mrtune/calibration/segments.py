"""The observed segments of a task attempt, and the inputs the model needs to reproduce them.

Shared by the fit (:mod:`mrtune.calibration.cost_factors`) and the check of its result
(:mod:`mrtune.calibration.check`), so both model each attempt with the same split size and the
same reduce input: the check then measures the fit, not a difference in what was modelled.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import map_task
from mrtune.costmodel.profile import JobProfile, TaskTiming
from mrtune.profiling.dataflow import stored_input_bytes

F64 = NDArray[np.float64]

SEGMENTS: tuple[str, ...] = (
    "map.map",
    "map.fill",
    "map.spill_full",
    "map.spill_last",
    "map.total",
    "map.sort",
    "reduce.shuffle",
    "reduce.total",
    "reduce.merge",
    "reduce.reduce",
    # per-phase tables (Ceesay et al.'s profiled phases): one time per model phase
    "map.read",
    "map.mapfn",
    "map.collect",
    "map.spill",
    "map.merge",
    "reduce.reducefn",
    "reduce.write",
)
#: Segments that open an attempt: they also hold the task's fixed time (``task_overhead_ms``).
FIRST_SEGMENTS = {
    "map.map",
    "map.fill",
    "map.total",
    "map.read",
    "reduce.shuffle",
    "reduce.total",
}
#: How an attempt's phases may be cut, most detailed first; an attempt uses the first cut whose
#: every key is in its ``phases_ms``, else its total (``map.total`` / ``reduce.total``).
MAP_CUTS: tuple[tuple[str, ...], ...] = (
    ("map.read", "map.mapfn", "map.collect", "map.spill", "map.merge"),
    ("map.map", "map.sort"),
)
REDUCE_CUTS: tuple[tuple[str, ...], ...] = (
    ("reduce.shuffle", "reduce.merge", "reduce.reducefn", "reduce.write"),
    ("reduce.shuffle", "reduce.merge", "reduce.reduce"),
)
SEGMENT_LABEL = {
    "map.fill": "map function until the first spill starts (from the task log)",
    "map.spill_full": "spills before the flush (each spill's own time, from the task log)",
    "map.spill_last": "final spill (from the task log)",
    "map.map": "map phase (start→mapFinishTime)",
    "map.total": "map attempt time",
    "map.sort": "map sort/spill (mapFinishTime→finish)",
    "reduce.shuffle": "shuffle (start→shuffleFinishTime)",
    "reduce.total": "reduce attempt time",
    "reduce.merge": "merge (shuffleFinishTime→sortFinishTime)",
    "reduce.reduce": "reduce (sortFinishTime→finish)",
    "map.read": "read phase (per-phase table)",
    "map.mapfn": "map function phase (per-phase table)",
    "map.collect": "collect phase (per-phase table)",
    "map.spill": "spill phase, every spill (per-phase table)",
    "map.merge": "map merge phase (per-phase table)",
    "reduce.reducefn": "reduce function phase (per-phase table)",
    "reduce.write": "write phase (per-phase table)",
}


def cut_of(
    phases: dict[str, float], cuts: tuple[tuple[str, ...], ...], total: str
) -> tuple[str, ...]:
    """The segments an attempt with these observed phases is compared on."""
    for cut in cuts:
        if all(s.split(".", 1)[1] in phases for s in cut):
            return cut
    return (total,)


def map_splits(profile: JobProfile, maps: list[TaskTiming]) -> F64:
    """Each map attempt's split as stored: its own input counter, else the job's average."""
    n_maps = float(profile.cluster_facts.get("num_maps", len(maps)) or len(maps))
    avg = profile.input_bytes / max(n_maps, 1.0)
    return np.array([stored_input_bytes(t.counters) or avg for t in maps], dtype=np.float64)


def reduce_inputs(
    profile: JobProfile, cfg: HadoopConfig, reds: list[TaskTiming]
) -> tuple[F64, F64, F64, F64]:
    """``(maps fetched, records per segment, raw records per segment, record width)`` of each
    reduce attempt, from its own counters where recorded (``REDUCE_INPUT_RECORDS``,
    ``SHUFFLED_MAPS``), else the job's totals split evenly."""
    n_maps = float(profile.cluster_facts.get("num_maps", 1.0) or 1.0)
    n_red = max(float(profile.cluster_facts.get("num_reduces", len(reds)) or len(reds)), 1.0)
    mf = map_task(profile, ConfigBatch.from_base(cfg, 1), np.array([profile.input_bytes / n_maps]))
    job_rir = profile.observed_counters.get("REDUCE_INPUT_RECORDS") or float(
        mf.final_records[0] * n_maps
    )
    job_raw = profile.observed_counters.get("MAP_OUTPUT_RECORDS") or float(
        mf.output_records[0] * n_maps
    )
    rir = np.array(
        [t.counters.get("REDUCE_INPUT_RECORDS", job_rir / n_red) for t in reds], dtype=np.float64
    )
    m = np.array([t.counters.get("SHUFFLED_MAPS", n_maps) or n_maps for t in reds])
    m = np.maximum(m, 1.0)
    q = rir / m
    q_raw = q * (job_raw / job_rir if job_rir > 0 else 1.0)
    w = np.full(len(reds), float(mf.final_pair_width[0]))
    return m, q, q_raw, w


def cold_attempt(profile: JobProfile, tasks: list[TaskTiming]) -> int | None:
    """Index of the attempt that ran first in a JVM shared by every task (local mode: it runs
    cold, with the JIT compiling), or ``None`` on a cluster (one JVM per container)."""
    if profile.cluster_facts.get("source_format") != "local-run-record" or not tasks:
        return None
    return int(np.argmin([t.start_ms for t in tasks]))
