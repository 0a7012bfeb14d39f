"""Why the fidelity report misses a goal, in words taken from its own figures.

Each note names the counters, runs or phase that carry a miss, and the two known departures
from Hadoop that explain record-counter mismatches: how the model gives records to splits
(:data:`SPLIT_NOTE`, ``LineRecordReader``) and where ``MapTask.MapOutputBuffer.collect`` cuts
a spill (:data:`SPILL_NOTE`). Written into the summary's ``notes`` by
:func:`mrtune.calibration._fidelity_summary.summarize`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from mrtune.calibration._fidelity_runs import RunComparison, rel_error
from mrtune.readers.run_records import PROJECT_JOBS

SPLIT_NOTE = (
    "costmodel/map_groups.py gives each split the records that START in it (the project's "
    "record readers, like LineRecordReader): exactly for fixed-width records "
    "(stats.input_record_bytes: with 100-byte records and 32 MiB splits 335,545 in the first "
    "split and 335,544 in the next), and for records of varying width (text lines) "
    "rint(split bytes / the profiled run's full-split width) per full split and the rest of "
    "the file in the tail split: per-map counts may differ by a few records, totals agree"
)
SPILL_NOTE = (
    "costmodel/map_task.py records_per_spill gives floor(softLimit / (w + 16)) records per "
    "spill; MapTask.MapOutputBuffer.collect spills the k records already collected when the "
    "next record's metadata reservation finds kvindex→bufindex ≥ softLimit, i.e. "
    "k = ceil((softLimit − 16) / (w + 16)) for fixed-width records (logged: 7,232 at "
    "io.sort.mb 1 where the model has 7,231; 14,463 at 2 MB, where both agree). The last "
    "spill's size then differs, and with intermediate merge passes (more spills than the sort "
    "factor) so do the records those passes re-read"
)


def _record_notes(
    runs: Sequence[RunComparison],
    s: dict[str, Any],
    calibrations: Sequence[RunComparison],
) -> list[str]:
    """Why record counters differ: split records, per-map counters, spill and combine layouts."""
    notes: list[str] = []
    off_by_split = [
        r.label
        for r in runs
        if round(r.predicted["MAP_INPUT_RECORDS"]) != r.measured["MAP_INPUT_RECORDS"]
    ]
    if off_by_split:
        notes.append(
            f"{len(off_by_split)} of {len(runs)} runs already differ in MAP_INPUT_RECORDS "
            f"({', '.join(off_by_split[:5])}…), so counters downstream differ too"
        )
    notes.append(SPLIT_NOTE)
    users = sorted({r.job for r in runs} - set(PROJECT_JOBS))
    if users:
        notes.append(
            f"{', '.join(users)}: not one of the project's jobs; its input format is assumed to "
            "give each split the records that start in it, as FileInputFormat's "
            "LineRecordReader does (its own InputFormat may not)"
        )
    if "per_map_record_exact_rate" in s:
        notes.append(
            "fed each map's actual input records, the model's map-side record counters "
            f"(spills, SPILLED_RECORDS, COMBINE_*) are exact in "
            f"{s['per_map_record_exact_rate']:.1%} of (map, counter) pairs"
        )
    per_map_bad: dict[str, list[str]] = defaultdict(list)
    for r in runs:
        for m in r.per_map:
            for key, (p, q) in m.items():
                if key != "MAP_OUTPUT_MATERIALIZED_BYTES" and round(p) != round(q):
                    if r.label not in per_map_bad[f"{r.job} {key}"]:
                        per_map_bad[f"{r.job} {key}"].append(r.label)
    if per_map_bad:
        notes.append(
            "per-map mismatches given the actual input records: "
            + "; ".join(f"{k} in {', '.join(v)}" for k, v in sorted(per_map_bad.items()))
        )
    if any(k.startswith(("sort SPILLED", "selectivity SPILLED")) for k in per_map_bad):
        notes.append(SPILL_NOTE)
    notes.extend(_combine_notes(runs, per_map_bad, calibrations))
    worst = sorted(s["record_exact_rate_by_counter"].items(), key=lambda kv: kv[1])[:3]
    notes.append("lowest exact-match rates: " + ", ".join(f"{k} {v:.0%}" for k, v in worst))
    return notes


def _not_applied_notes(runs: Sequence[RunComparison]) -> list[str]:
    """One line naming the runs whose job did not run with their ``-D`` settings (the
    examples' WordMedian builds its own ``Configuration``, which drops them): each is compared
    at what Hadoop ran, so it tests that configuration, not the one its label asked for."""
    odd = [r for r in runs if r.ignored]
    if not odd:
        return []
    first = odd[0]
    key, had = next(iter(first.ignored.items()))
    return [
        f"{', '.join(r.label for r in odd)}: the job did not run with the label's -D "
        f"settings ({key}={first.settings.get(key)} asked, its job.xml has "
        f"{had if had is not None else 'none'}: a driver that builds its own Configuration, as "
        "the examples' WordMedian does, drops them): compared at what Hadoop ran, so these "
        "runs test that configuration, not the label's"
    ]


def explain(
    runs: Sequence[RunComparison],
    s: dict[str, Any],
    calibrations: Sequence[RunComparison] = (),
) -> list[str]:
    """Why a goal is missed, from the figures (which counters, which phase). ``calibrations``:
    the calibration runs' own rows, whose spill layouts tell which combiner misses are at a
    layout the calibration did not have (:func:`_combine_notes`)."""
    notes: list[str] = _not_applied_notes([*calibrations, *runs])
    if not s["goals_met"]["record_exact_rate"]:
        notes.extend(_record_notes(runs, s, calibrations))
    if not s["goals_met"]["byte_rel_error"]:
        notes.append(
            f"byte counters within 1% in {s['byte_within_1pct_rate']:.1%}; worst "
            f"{s['byte_worst_rel_error']:.2%} at {s['byte_worst_at']}"
        )
    notes.extend(_codec_notes(s))
    if not (
        s["goals_met"]["job_time_median_abs_error"] and s["goals_met"]["job_time_p90_abs_error"]
    ):
        share = s["phase_error_share"]
        top = next(iter(share))
        notes.append(
            f"job time: the {top} phase carries {share[top]:.0%} of the summed absolute phase "
            f"errors (median signed error of that phase {s['phase_error_median_ms'][top]:+.0f} ms)"
        )
        for job, share_j in s.get("phase_error_share_by_job", {}).items():
            top_j = next(iter(share_j))
            notes.append(f"{job}: {top_j} carries {share_j[top_j]:.0%} of its phase errors")
        if "spearman_vs_cpu_time" in s:
            notes.append(
                f"ranked against the JVM's CPU time (stable to a few % across repeats) instead "
                f"of its wall time, the predictions reach Spearman {s['spearman_vs_cpu_time']:.2f}"
            )
        if "repeat_spread_median" in s:
            notes.append(
                f"repeats of one configuration spread by {s['repeat_spread_median']:.0%} of their "
                "median job time (median over labels): the host is shared (load average "
                f"{min(r.load_avg for r in runs):.1f}–{max(r.load_avg for r in runs):.1f})"
            )
    return notes


#: Settings that move where a map's spills fall (the buffer's soft limit, the split), under
#: both generations' names: with the measured spills per map, a run's spill layout.
LAYOUT_SETTINGS = (
    "mapreduce.task.io.sort.mb",
    "io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "io.sort.spill.percent",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapred.max.split.size",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapred.min.split.size",
)


def spill_layout(r: RunComparison) -> tuple[Any, ...]:
    """What decides which records share a spill: the measured spills of each map, and the
    run's own io.sort.mb, spill percent and split sizes (:data:`LAYOUT_SETTINGS`)."""
    return (r.measured.get("spills_per_map"), *(r.settings.get(k) for k in LAYOUT_SETTINGS))


def _combine_notes(
    runs: Sequence[RunComparison],
    per_map_bad: dict[str, list[str]],
    calibrations: Sequence[RunComparison],
) -> list[str]:
    """The combiner misses, per job: those at a spill layout the job's calibration run did not
    have are the key law's known limit, each job with its own worst miss (the maximum over
    all jobs was printed beside every job's name); those at the calibration's own layout are
    not explained by it (the law goes through the calibration run's spills exactly) and are
    listed as such. A run whose job has no calibration row here is in neither."""
    cal = {c.job: spill_layout(c) for c in calibrations}
    key = "COMBINE_OUTPUT_RECORDS"
    missed = [
        r
        for r in runs
        if r.job in cal and (not r.record_matches[key] or r.label in per_map_bad[f"{r.job} {key}"])
    ]
    other: dict[str, list[RunComparison]] = defaultdict(list)
    for r in missed:
        if spill_layout(r) != cal[r.job]:
            other[r.job].append(r)
    notes = []
    if other:
        per_job = [
            f"{max(abs(rel_error(r.predicted[key], r.measured[key])) for r in rs):.2%} in "
            f"{job} ({', '.join(r.label for r in rs)})"
            for job, rs in sorted(other.items())
        ]
        notes.append(
            "combiner counts at spill layouts the calibration run did not have (other "
            "io.sort.mb, split sizes): each spill's distinct keys depend on which records "
            "fall into it (the data's order), which one run's counters cannot tell; the "
            "key law gives their expectation, through the calibration run's own spills "
            "exactly (key_law_knots), and misses them by at most " + ", ".join(per_job)
        )
    same_layout = [r for r in missed if spill_layout(r) == cal[r.job]]
    if same_layout:
        notes.append(
            f"{key} differs at the calibration run's own spill layout (its spills per map, "
            "io.sort.mb and split sizes), where the key law goes through that run's spills "
            "exactly, so the layout does not explain it: "
            + ", ".join(
                f"{r.label} {r.predicted[key]:,.0f} predicted vs {r.measured[key]:,}"
                for r in same_layout
            )
        )
    return notes


def _codec_notes(s: dict[str, Any]) -> list[str]:
    if "codec_ratios_scored" not in s:
        return []
    notes = [f"byte goal scored with codec ratios: {s['codec_ratios_scored']}"]
    if s.get("codec_runs_on_priors"):
        notes.append(
            "on priors (a codec's ratio is a property of the data it compresses — random "
            "records, raw (word, 1) pairs and combined counts differ by 30× — and a prior "
            "cannot know it; priors without --measure-codecs, or where no other run of the same "
            "data used the codec): " + ", ".join(s["codec_runs_on_priors"])
        )
    if "byte_within_1pct_rate_measured_codecs" in s:
        notes.append(
            "compressed runs whose ratio was measured on another run: byte counters within 1% "
            f"in {s['byte_within_1pct_rate_measured_codecs']:.1%} (worst "
            f"{s['byte_worst_rel_error_measured_codecs']:.2%}); all runs but those on priors: "
            f"{s['byte_within_1pct_rate_without_priors']:.1%}"
        )
    return notes
