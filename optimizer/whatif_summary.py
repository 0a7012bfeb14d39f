"""One configuration of a prediction as the flat, JSON-ready summary a what-if shows: its
times, waves, phases and dataflow (``mrtune whatif``'s table and ``--format json``)."""

from __future__ import annotations

from typing import Any

from mrtune.costmodel import JobPrediction

MAP_PHASES = ("read", "map", "collect", "spill", "merge", "write")
REDUCE_PHASES = ("shuffle", "merge", "reduce", "write")


def _most_merge_passes(pred: Any, i: int) -> float:
    """The most merge passes a map of configuration ``i`` makes: over its groups of maps
    (files of unequal size, a tail split), not the full splits' alone, which had shown 1 pass
    beside the 12 spills a map of the largest file needed 2 for."""
    groups = [g for g in (pred.map_groups or ()) if float(g.count[i]) > 0]
    if not groups:
        return float(pred.map_full.merge_passes[i])
    return max(float(g.result.merge_passes[i]) for g in groups)


def _hot_reduce(pred: JobPrediction, i: int) -> dict[str, float] | None:
    """The hot partition's reduce (``costmodel/partitions.py``), when the profile has one:
    its task time and fetches; ``reduce_task_ms`` and the per-reduce dataflow are then each
    other reduce's. ``None`` without a hot partition or reduces."""
    hot = pred.reduce_hot
    if hot is None or pred.num_reducers[i] <= 0:
        return None
    return {
        "task_ms": float(hot.task_ms[i]),
        "shuffle_bytes": float(hot.shuffle_bytes[i]),
        "fetches_to_memory": float(hot.fetches_to_memory[i]),
        "fetches_to_disk": float(hot.fetches_to_disk[i]),
        "inmem_merges": float(hot.inmem_merges[i]),
    }


def summarize(pred: JobPrediction, i: int = 0) -> dict[str, Any]:
    """A flat, JSON-ready summary of configuration ``i`` of a prediction."""
    r = pred.reduce
    has_red = pred.num_reducers[i] > 0
    mp = pred.map_phase_ms
    rp = pred.reduce_phase_ms
    c = pred.counters
    n_maps = float(pred.num_maps[i])
    return {
        "job_ms": float(pred.job_ms[i]),
        "total_task_ms": float(pred.total_task_ms[i]),
        "container_gb_s": float(pred.container_gb_s[i]),
        "num_maps": int(n_maps),
        "num_reducers": int(pred.num_reducers[i]),
        "map_waves": float(pred.map_waves[i]),
        "reduce_waves": float(pred.reduce_waves[i]),
        "map_slots": float(pred.map_slots[i]),
        "reduce_slots": float(pred.reduce_slots[i]),
        "map_task_ms": float(pred.map_task_ms[i]),
        "reduce_task_ms": float(pred.reduce_task_ms[i]),
        "largest_reduce_ms": float(pred.largest_reduce_ms[i]),
        "hot_reduce": _hot_reduce(pred, i),
        "map_phases_ms": {k: float(mp[k][i]) for k in MAP_PHASES},
        "reduce_phases_ms": {k: float(rp[k][i]) for k in REDUCE_PHASES} if has_red else {},
        "dataflow": {
            "spills_per_map": float(c["MAP_SPILLS"][i] / max(n_maps, 1.0)),
            "records_per_spill": float(pred.map_full.records_per_full_spill[i]),
            "map_merge_passes": _most_merge_passes(pred, i),
            "map_spilled_records": float(c["MAP_SPILLED_RECORDS"][i]),
            "reduce_spilled_records": float(c["REDUCE_SPILLED_RECORDS"][i]),
            "map_output_materialized_bytes": float(c["MAP_OUTPUT_MATERIALIZED_BYTES"][i]),
            "shuffle_bytes": float(c["REDUCE_SHUFFLE_BYTES"][i]),
            "fetches_to_memory": float(r.fetches_to_memory[i]) if has_red else 0.0,
            "fetches_to_disk": float(r.fetches_to_disk[i]) if has_red else 0.0,
            "inmem_merges": float(r.inmem_merges[i]) if has_red else 0.0,
            "reduce_disk_merges": float(r.shuffle_disk_merges[i]) if has_red else 0.0,
            "reduce_final_merge_passes": float(r.final_merge_passes[i]) if has_red else 0.0,
            "combine_input_records": float(c["COMBINE_INPUT_RECORDS"][i]),
            "combine_output_records": float(c["COMBINE_OUTPUT_RECORDS"][i]),
            "reduce_input_records": float(c["REDUCE_INPUT_RECORDS"][i]),
            "hdfs_bytes_read": float(c["HDFS_BYTES_READ"][i]),
            "hdfs_bytes_written": float(c["HDFS_BYTES_WRITTEN"][i]),
            "file_bytes_written": float(c["FILE_BYTES_WRITTEN"][i]),
            "file_bytes_read": float(c["FILE_BYTES_READ"][i]),
        },
    }
