"""Per-label medians over repeated runs: the figures a fidelity table compares.

Record counters are deterministic in Hadoop (same input and settings → same counts), so the
summary reports them from the first successful repeat and flags a label whose repeats
disagree; times are medians (real-hadoop.md: back-to-back repeats vary 0.5–5 % on an idle
host), with the minimum, the JVM's CPU time and the host load alongside because a shared
host adds far more variation than that.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from mrtune.readers.run_records import RunRecord

#: Counters reported per label (summed over the job, as Hadoop's job totals).
SUMMARY_COUNTERS = (
    "MAP_OUTPUT_RECORDS",
    "SPILLED_RECORDS",
    "COMBINE_INPUT_RECORDS",
    "COMBINE_OUTPUT_RECORDS",
    "MAP_OUTPUT_MATERIALIZED_BYTES",
    "REDUCE_SHUFFLE_BYTES",
)


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def run_figures(rec: RunRecord) -> dict[str, object]:
    """Dataflow figures of one run (deterministic ones only)."""
    spills = [a.num_spills for a in rec.map_attempts]
    fig: dict[str, object] = {
        "maps": rec.num_maps,
        "reduces": rec.num_reduces,
        "spills_per_map": spills,
        "map_intermediate_merge_passes": sum(
            a.intermediate_merge_passes for a in rec.map_attempts
        ),
        "map_spilled_records": rec.map_spilled_records,
        "reduce_spilled_records": rec.reduce_spilled_records,
        "fetches_to_memory": sum(r.fetches_to_memory for r in rec.reduce_attempts),
        "fetches_to_disk": sum(r.fetches_to_disk for r in rec.reduce_attempts),
        "in_memory_merges": sum(len(r.in_memory_merges) for r in rec.reduce_attempts),
        "on_disk_merges": sum(len(r.on_disk_merges) for r in rec.reduce_attempts),
    }
    for name in SUMMARY_COUNTERS:
        fig[name] = rec.counter(name)
    return fig


def phase_times(rec: RunRecord) -> dict[str, float]:
    """Phase durations of one run in ms, summed over tasks (tasks run one at a time).

    map: task start → flush (read + map + collect, with background spills);
    map_spill_merge: flush → commit (final spill and merge); reduce_shuffle: start →
    finalMerge; reduce_merge: finalMerge → reduce() start; reduce_reduce: reduce() start →
    commit.
    """
    out = defaultdict(float)
    for a in rec.map_attempts:
        if a.start_ms and a.flush_ms:
            out["map"] += a.flush_ms - a.start_ms
        if a.flush_ms and a.commit_ms:
            out["map_spill_merge"] += a.commit_ms - a.flush_ms
    for r in rec.reduce_attempts:
        if r.start_ms and r.shuffle_end_ms:
            out["reduce_shuffle"] += r.shuffle_end_ms - r.start_ms
        if r.shuffle_end_ms and r.merge_end_ms:
            out["reduce_merge"] += r.merge_end_ms - r.shuffle_end_ms
        if r.merge_end_ms and r.commit_ms:
            out["reduce_reduce"] += r.commit_ms - r.merge_end_ms
    return dict(out)


def summarize(records: list[RunRecord]) -> list[dict[str, object]]:
    """One row per label (in first-seen order): dataflow figures, median times, repeats."""
    by_label: dict[str, list[RunRecord]] = defaultdict(list)
    for rec in records:
        by_label[rec.label or rec.run_id].append(rec)
    rows = []
    for label, recs in by_label.items():
        ok = [r for r in recs if r.success]
        row: dict[str, object] = {
            "label": label,
            "job": recs[0].job,
            "runs": len(recs),
            "ok": len(ok),
        }
        if ok:
            figs = [run_figures(r) for r in ok]
            row.update(figs[0])
            row["deterministic"] = all(f == figs[0] for f in figs[1:])
            row["job_time_ms"] = _median([r.job_time_ms for r in ok if r.job_time_ms is not None])
            row["wall_time_ms"] = _median([r.wall_time_ms for r in ok])
            phases = [phase_times(r) for r in ok]
            for key in sorted({k for p in phases for k in p}):
                row[f"{key}_ms"] = _median([p[key] for p in phases if key in p])
            times = [r.job_time_ms for r in ok if r.job_time_ms is not None]
            if times:
                # on a shared host the fastest repeat is the least disturbed one
                row["job_time_min_ms"] = min(times)
            if len(times) > 1:
                row["job_time_spread"] = (max(times) - min(times)) / statistics.median(times)
            row["cpu_time_ms"] = _median([r.cpu_time_ms for r in ok if r.cpu_time_ms is not None])
            row["load_avg_1m"] = _median([r.load_avg_1m for r in ok if r.load_avg_1m is not None])
        rows.append(row)
    return rows
