"""What the fidelity report compares, and each figure from a run record and from the model.

Hadoop's side comes from the run record (:class:`~mrtune.readers.run_records.RunRecord`:
the job's counters, each attempt's spills, merges and fetches as its task log records them,
the phase times cut from the same logs); the model's from one
:class:`~mrtune.costmodel.job.JobPrediction`, cut the same way so a pair is comparable field by
field. :func:`per_map_check` feeds the model each map's actual input records, which separates
the model's spill and merge logic from its records-per-split rule. Used by
:mod:`mrtune.calibration.fidelity` (``mrtune validate``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from mrtune.calibration.run_profile import flat_counters, map_split_bytes, run_config, run_timings
from mrtune.costmodel import ConfigBatch, JobProfile
from mrtune.costmodel.job import JobPrediction
from mrtune.costmodel.map_task import map_task
from mrtune.readers.run_records import RunRecord

#: Record counters compared exactly (issue 5's list).
RECORD_COUNTERS: tuple[str, ...] = (
    "spills_per_map",
    "MAP_SPILLED_RECORDS",
    "REDUCE_SPILLED_RECORDS",
    "COMBINE_INPUT_RECORDS",
    "COMBINE_OUTPUT_RECORDS",
    "map_merge_passes",
    "fetches_to_memory",
    "fetches_to_disk",
    "in_memory_merges",
)
#: Byte counters compared within a relative tolerance.
BYTE_COUNTERS: tuple[str, ...] = ("MAP_OUTPUT_MATERIALIZED_BYTES", "REDUCE_SHUFFLE_BYTES")
#: Other dataflow figures shown per run (not part of the goals).
INFO_COUNTERS: tuple[str, ...] = (
    "MAP_INPUT_RECORDS",
    "MAP_OUTPUT_RECORDS",
    "MAP_OUTPUT_BYTES",
    "REDUCE_INPUT_RECORDS",
)
#: Summed phase times (ms) compared per run.
PHASES: tuple[str, ...] = (
    "map.map",
    "map.sort",
    "reduce.shuffle",
    "reduce.merge",
    "reduce.reduce",
)

# ------------------------------------------------------------------------------ measurements


def measured_figures(rec: RunRecord) -> dict[str, Any]:
    """The dataflow figures of one run (record counters, byte counters, per-map lists)."""
    maps = sorted(rec.map_attempts, key=lambda a: a.task_index)
    J = flat_counters(rec.counters)
    fig: dict[str, Any] = {
        "spills_per_map": [a.num_spills for a in maps],
        "MAP_SPILLED_RECORDS": rec.map_spilled_records,
        "REDUCE_SPILLED_RECORDS": rec.reduce_spilled_records,
        "COMBINE_INPUT_RECORDS": int(J.get("COMBINE_INPUT_RECORDS", 0)),
        "COMBINE_OUTPUT_RECORDS": int(J.get("COMBINE_OUTPUT_RECORDS", 0)),
        "map_merge_passes": [_merge_passes(a) for a in maps],
        "fetches_to_memory": sum(r.fetches_to_memory for r in rec.reduce_attempts),
        "fetches_to_disk": sum(r.fetches_to_disk for r in rec.reduce_attempts),
        "in_memory_merges": sum(len(r.in_memory_merges) for r in rec.reduce_attempts),
    }
    for name in (*BYTE_COUNTERS, *INFO_COUNTERS):
        fig[name] = int(J.get(name, 0))
    return fig


def _merge_passes(attempt: Any) -> int:
    """A map's merge passes: the most over its partitions (``MapTask.mergeParts`` merges each
    partition on its own, and ``Merger`` drops a partition's empty segments, so an empty
    first partition makes one pass where the others make several: the examples' WordMean at
    3 reduces logged 1 pass for its empty partitions 0 and 1 and 5 for partition 2, as the
    model had said); 0 for a map that merged nothing."""
    return max((len(m.intermediate_passes) + 1 for m in attempt.merges), default=0)


def measured_phases(rec: RunRecord) -> dict[str, float]:
    """Phase times summed over attempts (tasks run one at a time), plus the job time."""
    out: dict[str, float] = defaultdict(float)
    for t in run_timings(rec):
        if t.kind == "map" and set(t.phases_ms) == {"total"}:
            # a map-only attempt logs no flush: its whole time is the map segment, which the
            # model prices as read + map + write (it had been measured as 0 s)
            out["map.map"] += t.phases_ms["total"]
            continue
        for key in ("map", "sort") if t.kind == "map" else ("shuffle", "merge", "reduce"):
            if key in t.phases_ms:
                out[f"{t.kind}.{key}"] += t.phases_ms[key]
    out["job"] = float(rec.job_time_ms or 0.0)
    if rec.cpu_time_ms is not None:
        out["cpu"] = float(rec.cpu_time_ms)
    return dict(out)


# ------------------------------------------------------------------------------- predictions


def _map_groups(pred: JobPrediction) -> list[Any]:
    """The prediction's groups of equal maps, largest split first, as Hadoop numbers its maps
    (``JobSubmitter.writeNewSplits`` sorts the splits by length, largest first) and so as
    :func:`measured_figures` lists them: with files of unequal size the class order (smallest
    file first) had compared 9, 12, 15 spills with Hadoop's 15, 12, 9 as a mismatch. Full
    splits come before a tail of the same length (fixed-width records add a third group of
    full splits, ``costmodel.map_groups``)."""
    groups = list(pred.map_groups)
    if len(groups) == 3:
        groups = [groups[0], groups[2], groups[1]]
    return sorted(groups, key=lambda g: -float(g.split_bytes[0]))


def _per_map(pred: JobPrediction, attr: str) -> list[float]:
    """``attr`` of each map task, in the order of :func:`_map_groups`."""
    return [
        float(getattr(g.result, attr)[0])
        for g in _map_groups(pred)
        for _ in range(int(g.count[0]))
    ]


def predicted_figures(pred: JobPrediction) -> dict[str, Any]:
    """The same figures as :func:`measured_figures`, from the model (one configuration)."""
    c = pred.counters
    fig: dict[str, Any] = {
        "spills_per_map": [int(round(s)) for s in _per_map(pred, "spills")],
        "MAP_SPILLED_RECORDS": float(c["MAP_SPILLED_RECORDS"][0]),
        "REDUCE_SPILLED_RECORDS": float(c["REDUCE_SPILLED_RECORDS"][0]),
        "COMBINE_INPUT_RECORDS": float(c["COMBINE_INPUT_RECORDS"][0]),
        "COMBINE_OUTPUT_RECORDS": float(c["COMBINE_OUTPUT_RECORDS"][0]),
        "map_merge_passes": [
            int(round(p)) if s > 1 else 0
            for p, s in zip(_per_map(pred, "merge_passes"), _per_map(pred, "spills"), strict=True)
        ],
        "fetches_to_memory": float(pred.reduce_total("fetches_to_memory")[0]),
        "fetches_to_disk": float(pred.reduce_total("fetches_to_disk")[0]),
        "in_memory_merges": float(pred.reduce_total("inmem_merges")[0]),
    }
    for name in (*BYTE_COUNTERS, *INFO_COUNTERS):
        fig[name] = float(c[name][0])
    return fig


def predicted_phases(pred: JobPrediction, profile: JobProfile) -> dict[str, float]:
    """Summed phase times of the model, cut as :func:`measured_phases` cuts Hadoop's log.

    A map's "map" segment is read + map + collect + the spills done before the flush (the
    spill phase but the final spill, net of what the map function hid) + the task's fixed
    time; "sort" is the final spill and the merge (``mrtune.calibration.cost_factors``'s segments). A reduce's fixed time goes to its shuffle.
    """
    fixed = profile.costs.task_overhead_ms + profile.costs.setup_ms + profile.costs.cleanup_ms
    out = {k: 0.0 for k in PHASES}
    for g in _map_groups(pred):
        n, res = g.count[0], g.result
        ph = {k: float(v[0]) for k, v in res.phase_ms.items()}
        last = float(np.broadcast_to(res.last_spill_ms, res.spills.shape)[0])
        # the spill phase is net of the time hidden behind the map function (spill_overlap)
        first = ph["read"] + ph["map"] + ph["collect"] + ph["write"] + ph["spill"] - last + fixed
        out["map.map"] += n * first
        out["map.sort"] += n * (last + ph["merge"])
    R = float(pred.num_reducers[0])
    if R > 0:
        # every reduce, or the other R - 1 and the hot partition's (costmodel/partitions.py)
        reds = [(R, pred.reduce)] if pred.reduce_hot is None else [(R - 1.0, pred.reduce)]
        reds += [(1.0, pred.reduce_hot)] if pred.reduce_hot is not None else []
        for k, rd in reds:
            rp = {name: float(v[0]) for name, v in rd.phase_ms.items()}
            out["reduce.shuffle"] += k * (rp["shuffle"] + fixed)
            out["reduce.merge"] += k * rp["merge"]
            out["reduce.reduce"] += k * (rp["reduce"] + rp["write"])
    out["job"] = float(pred.job_ms[0])
    return out


def per_map_check(profile: JobProfile, rec: RunRecord) -> list[dict[str, Any]]:
    """Each map of ``rec`` modelled with its actual input records: per-map (pred, meas) pairs
    of spills, SPILLED_RECORDS, COMBINE_* and MAP_OUTPUT_MATERIALIZED_BYTES."""
    cfg = run_config(rec)
    maps = sorted(rec.map_attempts, key=lambda a: a.task_index)
    split = map_split_bytes(rec, profile.stats.input_pair_width)[
        np.argsort([a.task_index for a in rec.map_attempts])
    ]
    recs = np.array([flat_counters(a.counters).get("MAP_INPUT_RECORDS", 0.0) for a in maps])
    res = map_task(profile, ConfigBatch.from_base(cfg, len(maps)), split, input_records=recs)
    out = []
    for i, a in enumerate(maps):
        c = flat_counters(a.counters)
        out.append(
            {
                "spills": (float(res.spills[i]), float(a.num_spills)),
                "SPILLED_RECORDS": (float(res.spilled_records[i]), c.get("SPILLED_RECORDS", 0.0)),
                "COMBINE_INPUT_RECORDS": (
                    float(res.combine_input_records[i]),
                    c.get("COMBINE_INPUT_RECORDS", 0.0),
                ),
                "COMBINE_OUTPUT_RECORDS": (
                    float(res.combine_output_records[i]),
                    c.get("COMBINE_OUTPUT_RECORDS", 0.0),
                ),
                "MAP_OUTPUT_MATERIALIZED_BYTES": (
                    float(res.materialized_bytes[i]),
                    c.get("MAP_OUTPUT_MATERIALIZED_BYTES", 0.0),
                ),
            }
        )
    return out
