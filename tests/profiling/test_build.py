"""Profile building: round trip, calibration on histories the model itself generated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrtune.calibration import build_profile, load_profile_source
from mrtune.costmodel import ConfigBatch, CostFactors, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.map_task import map_task
from mrtune.costmodel.reduce_task import reduce_task
from mrtune.errors import InputError
from mrtune.profiling.build import profiled_config
from mrtune.readers.history import AttemptRecord, JobHistory

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SOURCES = [
    next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist")),
    next((DATA / "jhist").glob("job_1329348432655_0001-*.jhist")),
    DATA / "rumen" / "wordcount-rumen.json",
    DATA / "rest",
]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name[:24])
def test_json_round_trip_is_identical(path: Path) -> None:
    p = load_profile_source(path)
    text = p.model_dump_json()
    q = JobProfile.model_validate_json(text)
    assert q == p
    assert q.model_dump_json() == text


WIDTH, OUT_W, SEL = 100.0, 20.0, 2.0


def _synthetic_history(
    splits: list[float], costs: CostFactors, *, reduce: bool = True
) -> tuple[JobHistory, HadoopConfig]:
    """A job whose attempts take exactly what the model says for ``costs``."""
    cfg = HadoopConfig(**{"mapreduce.job.reduces": 1 if reduce else 0})
    true = JobProfile(
        input_bytes=sum(splits),
        input_files=len(splits),
        stats=DataflowStats(
            input_pair_width=WIDTH, map_size_sel=SEL * OUT_W / WIDTH, map_pairs_sel=SEL
        ),
        costs=costs,
        map_only=not reduce,
    )
    batch = ConfigBatch.from_base(cfg, len(splits))
    mt = map_task(true, batch, np.array(splits))
    h = JobHistory(source="synthetic", source_format="jhist", job_id="job_9_1", status="SUCCEEDED")
    h.total_maps, h.total_reduces = len(splits), 1 if reduce else 0
    fixed = costs.task_overhead_ms
    t = 1_000_000
    for i, split in enumerate(splits):
        ph = {k: float(v[i]) for k, v in mt.phase_ms.items()}
        # MapTask: mapFinishTime is the flush; the spills before it (all but the last) are in
        # the map phase, the final spill and the merge after it
        last = float(np.broadcast_to(mt.last_spill_ms, mt.spills.shape)[i])
        first = ph["read"] + ph["map"] + ph["collect"] + ph["write"] + ph["spill"] - last + fixed
        rest = last + ph["merge"]
        recs = float(mt.input_records[i])
        out = float(mt.output_records[i])
        counters = {
            "INPUT_FORMAT_BYTES_READ": split,
            "HDFS_BYTES_READ": split,
            "MAP_INPUT_RECORDS": recs,
            "MAP_OUTPUT_RECORDS": out,
        }
        if reduce:
            counters |= {
                "MAP_OUTPUT_BYTES": float(mt.output_bytes[i]),
                "MAP_OUTPUT_MATERIALIZED_BYTES": float(mt.materialized_bytes[i]),
                "SPILLED_RECORDS": float(mt.spilled_records[i]),
            }
        else:
            counters["HDFS_BYTES_WRITTEN"] = float(mt.hdfs_bytes_written[i])
        h.add_attempt(
            AttemptRecord(
                attempt_id=f"attempt_9_1_m_{i:06d}_0",
                task_id=f"task_9_1_m_{i:06d}",
                kind="map",
                start_ms=t,
                finish_ms=t + round(first + rest),
                map_finish_ms=t + round(first),
                counters=counters,
                container_id=f"c{i}",
            )
        )
    if reduce:
        n = float(len(splits))
        q = float(np.sum(mt.final_records)) / n
        rt = reduce_task(
            true,
            ConfigBatch.from_base(cfg, 1),
            np.array([n]),
            np.array([q]),
            np.array([q]),
            np.array([float(mt.final_pair_width[0])]),
        )
        ph = {k: float(v[0]) for k, v in rt.phase_ms.items()}
        start = t + 10_000_000
        sh = start + round(ph["shuffle"] + fixed)
        so = sh + round(ph["merge"])
        h.add_attempt(
            AttemptRecord(
                attempt_id="attempt_9_1_r_000000_0",
                task_id="task_9_1_r_000000",
                kind="reduce",
                start_ms=start,
                finish_ms=so + round(ph["reduce"] + ph["write"]),
                shuffle_finish_ms=sh,
                sort_finish_ms=so,
                counters={
                    "REDUCE_INPUT_RECORDS": float(rt.input_records[0]),
                    "REDUCE_INPUT_GROUPS": float(rt.input_records[0]),
                    "REDUCE_OUTPUT_RECORDS": float(rt.output_records[0]),
                    "OUTPUT_FORMAT_BYTES_WRITTEN": float(rt.output_bytes[0]),
                    "SHUFFLED_MAPS": n,
                },
                container_id="cr",
            )
        )
    return h, cfg


def test_calibration_reproduces_and_predicts_generated_times() -> None:
    splits = [8e6, 16e6, 24e6, 40e6, 64e6, 96e6, 128e6]
    truth = CostFactors(hdfs_read=45.0, map_cpu=3000.0, task_overhead_ms=900.0)
    h, cfg = _synthetic_history(splits, truth)
    p = build_profile(h, cfg.to_properties())
    assert p.stats.input_pair_width == pytest.approx(WIDTH, rel=1e-3)
    assert p.stats.map_pairs_sel == pytest.approx(SEL, rel=1e-3)
    assert p.stats.ifile_record_overhead == pytest.approx(2.0, abs=0.05)
    # tasks of different sizes separate the fixed time from the volume terms
    assert p.provenance["costs.task_overhead_ms"].startswith("measured: fixed time")
    assert 0 < p.costs.task_overhead_ms < 2 * 900.0
    # per-byte and per-record map costs are proportional across tasks: one factor carries
    # them, the other stays at its default and says why
    measured = [f for f in ("hdfs_read", "map_cpu") if p.provenance[f"costs.{f}"].startswith("m")]
    assert len(measured) == 1
    other = ({"hdfs_read", "map_cpu"} - set(measured)).pop()
    assert "not separable" in p.provenance[f"costs.{other}"]
    assert getattr(p.costs, other) == getattr(CostFactors(), other)
    # the calibrated model reproduces every observed phase…
    f = p.cluster_facts
    for seg in ("map.map", "map.sort", "reduce.shuffle", "reduce.merge", "reduce.reduce"):
        assert f[f"fit.{seg}.model_ms"] == pytest.approx(f[f"fit.{seg}.observed_ms"], rel=0.01)
    # …and predicts a task size it has not seen (what a what-if on split size needs)
    new = np.array([48e6])
    one = ConfigBatch.from_base(cfg, 1)
    true_t = map_task(p.model_copy(update={"costs": truth}), one, new).task_ms[0]
    fit_t = map_task(p, one, new).task_ms[0]
    assert fit_t == pytest.approx(true_t, rel=0.03)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hdfs=st.floats(5, 200),
    cpu=st.floats(100, 20_000),
    overhead=st.floats(0, 3000),
    splits=st.lists(st.floats(4e6, 128e6), min_size=3, max_size=8, unique=True),
)
def test_calibrated_model_reproduces_map_only_phases(
    hdfs: float, cpu: float, overhead: float, splits: list[float]
) -> None:
    """Invariant: for a map-only job generated by the model, the fit reproduces its times."""
    if max(splits) - min(splits) < 1e6:
        return
    truth = CostFactors(hdfs_read=hdfs, map_cpu=cpu, hdfs_write=80.0, task_overhead_ms=overhead)
    h, cfg = _synthetic_history(splits, truth, reduce=False)
    p = build_profile(h, cfg.to_properties())
    assert p.map_only
    assert all(
        getattr(p.costs, name) >= 0 for name in type(p.costs).model_fields if name != "reduce_side"
    )
    f = p.cluster_facts
    assert f["fit.map.map.model_ms"] == pytest.approx(
        f["fit.map.map.observed_ms"], rel=0.01, abs=2
    )


def test_unusable_configuration_values_are_dropped_with_a_warning() -> None:
    warnings: list[str] = []
    cfg = profiled_config(
        {
            "mapreduce.map.output.compress.codec": "com.hadoop.compression.lzo.LzoCodec",
            "mapreduce.task.io.sort.mb": "${sort.mb}",
            "mapreduce.task.io.sort.factor": "25",
        },
        2,
        warnings,
    )
    assert cfg.io_sort_factor == 25
    assert cfg.io_sort_mb == 100
    assert cfg.map_output_codec == "lzo"  # hadoop-lzo is recognised (issue 20)
    assert len(warnings) == 1 and "not usable" in warnings[0]


def test_history_without_attempts() -> None:
    h = JobHistory(source="x.jhist", source_format="jhist", status="SUCCEEDED")
    with pytest.raises(InputError, match="x.jhist: no successful task attempt"):
        build_profile(h)


JHIST = DATA / "jhist"
QMC1 = next(JHIST.glob("job_1526555215992_0001-*.jhist"))


def test_measured_intermediate_codec_ratio() -> None:
    """With map output compressed, materialized ÷ raw IFile bytes is the codec's ratio."""
    from mrtune.readers import load_conf, load_jhist

    props = dict(load_conf(JHIST / "job_1526555215992_0001_conf.xml").properties)
    props["mapreduce.map.output.compress"] = "true"
    props["mapreduce.map.output.compress.codec"] = "org.apache.hadoop.io.compress.SnappyCodec"
    p = build_profile(load_jhist(QMC1), props)
    snappy = p.codecs["snappy"]
    # 28 materialized bytes − 4 checksum bytes over 2 × (9 + 2) + 2 EOF bytes
    assert snappy.ratio == pytest.approx(24 / 24)
    assert snappy.source.startswith("measured:")
    assert p.provenance["stats.ifile_record_overhead"].startswith(
        "defaulted: map output is compressed"
    )


def test_failed_job_with_successful_attempts_is_a_partial_profile() -> None:
    from mrtune.readers import load_jhist

    h = load_jhist(QMC1)
    h.status = "FAILED"
    h.failed_attempts = 3
    p = build_profile(h)
    assert any("job FAILED: profile built from its 2 successful" in w for w in p.warnings)
    assert any("3 failed and 0 killed attempt(s) excluded" in w for w in p.warnings)
    assert p.cluster_facts["failed_attempts"] == 3
