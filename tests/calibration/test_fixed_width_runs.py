"""Fixed-width input records measured from a run and exact on held-out split layouts
(issue 20: the generic report's last record mismatches were one record per map).

The selectivity job's default run (64 MiB of 100-byte records, 32 MiB splits) shows every map
reading the records that start in its split; its profile then gives each of the generic
benchmark's 80 runs (32-128 MiB files, 16 or 32 MiB splits, 10-100% selectivity) Hadoop's
MAP_INPUT_RECORDS and MAP_OUTPUT_RECORDS exactly, and so its spilled records.
"""

from __future__ import annotations

from pathlib import Path

from mrtune.calibration.run_profile import (
    local_cluster,
    profile_for_run,
    profile_from_run,
    run_config,
)
from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.readers.run_records import RunRecord, read_jsonl

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _first(path: Path, label: str) -> RunRecord:
    return next(r for r in read_jsonl(path) if r.label == label and r.success)


def test_record_width_measured_on_records_not_on_text() -> None:
    sel = profile_from_run(_first(RESULTS / "runs-matrix.jsonl", "sel-default"), calibrate=False)
    assert sel.stats.input_record_bytes == 100.0
    assert sel.provenance["stats.input_record_bytes"].startswith("measured")
    wc = profile_from_run(_first(RESULTS / "runs-matrix.jsonl", "wc-default"), calibrate=False)
    assert wc.stats.input_record_bytes is None
    assert wc.provenance["stats.input_record_bytes"].startswith("defaulted")


def test_generic_runs_records_exact() -> None:
    cal = _first(RESULTS / "runs-matrix.jsonl", "sel-default")
    base = profile_from_run(cal, calibrate=False)
    runs = [r for r in read_jsonl(RESULTS / "runs-generic-quiet.jsonl") if r.success]
    assert len(runs) == 80
    for rec in runs:
        prof = profile_for_run(base, cal, rec)
        pred = predict_job(prof, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
        c = pred.counters
        for name in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS", "MAP_SPILLED_RECORDS"):
            want = rec.map_spilled_records if name == "MAP_SPILLED_RECORDS" else None
            if want is None:
                want = sum(
                    a.counters["org.apache.hadoop.mapreduce.TaskCounter"][name]
                    for a in rec.map_attempts
                )
            assert round(float(c[name][0])) == want, (rec.label, name)
        maps = sorted(
            a.counters["org.apache.hadoop.mapreduce.TaskCounter"]["MAP_INPUT_RECORDS"]
            for a in rec.map_attempts
        )
        model = sorted(
            float(g.result.input_records[0])
            for g in pred.map_groups
            for _ in range(int(g.count[0]))
        )
        assert model == maps, rec.label
