"""Rumen traces: one job, concatenated jobs, gzip; the profile drives a what-if."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from mrtune.calibration import load_profile_source
from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.errors import InputError
from mrtune.profiling import profile_config
from mrtune.readers import load_rumen

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
RUMEN = DATA / "rumen"
WORDCOUNT = RUMEN / "wordcount-rumen.json"


@pytest.fixture(scope="module")
def wc_raw() -> dict:
    return json.loads(WORDCOUNT.read_text())


@pytest.fixture(scope="module")
def wc():
    return load_profile_source(WORDCOUNT)


def _sum(tasks: list[dict], field: str) -> int:
    return sum(a[field] for t in tasks for a in t["attempts"] if a["result"] == "SUCCESS")


def test_wordcount_tasks(wc) -> None:
    assert wc.cluster_facts["num_maps"] == 3
    assert wc.cluster_facts["num_reduces"] == 1
    assert wc.cluster_facts["hadoop_version"] == 1  # a JobTracker-era job id
    assert len([t for t in wc.observed if t.kind == "map"]) == 3
    (r,) = [t for t in wc.observed if t.kind == "reduce"]
    assert r.phases_ms["shuffle"] == 1285322667962 - 1285322660807
    assert r.phases_ms["merge"] == 1285322668146 - 1285322667962
    assert r.phases_ms["reduce"] == 1285322670759 - 1285322668146


def test_wordcount_selectivities_from_counters(wc, wc_raw) -> None:
    maps, reds = wc_raw["mapTasks"], wc_raw["reduceTasks"]
    mir, mor = _sum(maps, "mapInputRecords"), _sum(maps, "mapOutputRecords")
    mob, hdfs = _sum(maps, "mapOutputBytes"), _sum(maps, "hdfsBytesRead")
    rir, ror = _sum(reds, "reduceInputRecords"), _sum(reds, "reduceOutputRecords")
    rig, spilled = _sum(reds, "reduceInputGroups"), _sum(maps, "spilledRecords")
    st = wc.stats
    assert wc.input_bytes == hdfs
    assert st.input_pair_width == pytest.approx(hdfs / mir)
    assert st.map_pairs_sel == pytest.approx(mor / mir)
    assert st.map_size_sel == pytest.approx(mob / hdfs)
    assert st.reduce_pairs_sel == pytest.approx(ror / rir)
    assert st.reduce_pairs_per_group == pytest.approx(rir / rig)
    # the combiner: one spill per map, so the spilled records are its output
    assert wc.has_combiner
    # measured over the run, then rescaled so the three unequal maps' combine calls on the
    # Heaps curve sum to the run's (profiling.input_classes.anchored_combiner)
    measured = spilled / _sum(maps, "combineInputRecords")
    assert st.combine_pairs_sel == pytest.approx(measured, rel=0.05)
    assert "rescaled" in wc.provenance["stats.combine_pairs_sel"]
    assert st.combine_profiled_input_records == pytest.approx(mor / 3)
    for name in ("input_pair_width", "map_pairs_sel", "combine_pairs_sel", "reduce_pairs_sel"):
        assert wc.provenance[f"stats.{name}"].startswith("measured")


def test_wordcount_what_if_runs(wc) -> None:
    cfg = profile_config(wc)
    assert cfg.use_combiner  # known from the counters, though the trace names no class
    base = predict_job(wc, ConfigBatch.from_configs([cfg]), ClusterSpec())
    assert np.all(np.isfinite(base.job_ms)) and np.all(base.job_ms > 0)
    assert base.num_maps[0] == 3
    # the profiled configuration reproduces the recorded dataflow
    assert base.counters["MAP_OUTPUT_RECORDS"][0] == pytest.approx(
        wc.observed_counters["MAP_OUTPUT_RECORDS"], rel=1e-3
    )
    assert base.counters["REDUCE_INPUT_RECORDS"][0] == pytest.approx(
        wc.observed_counters["REDUCE_INPUT_RECORDS"], rel=1e-3
    )
    # …and its calibrated map task time reproduces the observed one
    # (equal splits in the job model vs the three real split sizes: within 0.1%)
    assert base.map_task_ms[0] == pytest.approx(
        wc.cluster_facts["fit.map.total.observed_ms"], rel=1e-3
    )
    # a what-if: a 1 MB sort buffer spills more
    small = predict_job(
        wc,
        ConfigBatch.from_configs([cfg.with_changes({"mapreduce.task.io.sort.mb": 1})]),
        ClusterSpec(),
    )
    assert small.counters["MAP_SPILLS"][0] > base.counters["MAP_SPILLS"][0]
    assert np.isfinite(small.job_ms[0]) and small.job_ms[0] > 0


def test_concatenated_jobs_and_choice() -> None:
    jobs = load_rumen(RUMEN / "2jobs2min-rumen-jh.json")
    assert [j.job_id for j in jobs] == [
        "job_1369942127770_1205",
        "job_1369942127770_1206",
        "job_1369942127770_1207",
    ]
    assert jobs[0].properties["mapreduce.task.io.sort.mb"] == "100"
    p = load_profile_source(RUMEN / "2jobs2min-rumen-jh.json")
    assert p.job_id == "job_1369942127770_1205"
    assert any("holds 3 jobs" in w for w in p.warnings)
    assert p.map_only and p.cluster_facts["num_maps"] == 96
    p2 = load_profile_source(RUMEN / "2jobs2min-rumen-jh.json", job="job_1369942127770_1206")
    assert p2.job_id == "job_1369942127770_1206" and p2.cluster_facts["num_maps"] == 96
    # the third job's only task was killed before any attempt: nothing to profile
    with pytest.raises(InputError, match="no successful task attempt"):
        load_profile_source(RUMEN / "2jobs2min-rumen-jh.json", job="job_1369942127770_1207")
    with pytest.raises(InputError, match="not in the trace"):
        load_profile_source(RUMEN / "2jobs2min-rumen-jh.json", job="job_1_1")


def test_gzip_trace() -> None:
    jobs = load_rumen(RUMEN / "folder-input-trace.json.gz")
    assert len(jobs) == 59
    p = load_profile_source(RUMEN / "folder-input-trace.json.gz")
    assert p.job_id == jobs[0].job_id


def test_compressed_input_and_killed_attempts() -> None:
    p = load_profile_source(RUMEN / "zombie-input-trace.json", job="job_200904211745_0004")
    assert p.cluster_facts["num_maps"] == 131 and p.cluster_facts["num_reduces"] == 47
    # HDFS bytes read ÷ MAP_INPUT_BYTES < 1: the input is compressed
    assert p.input_compressed and p.stats.input_compress_ratio < 0.5
    assert p.cluster_facts["killed_attempts"] > 0
    # 131 maps of different sizes: per-record map cost and the fixed time are both fitted
    assert p.provenance["costs.map_cpu"].startswith("measured: least squares")
    assert p.provenance["costs.task_overhead_ms"].startswith("measured: fixed time in 131")
    # hdfs_read moves with map_cpu from task to task: it cannot be told apart, stays default
    assert p.provenance["costs.hdfs_read"].startswith("defaulted: not separable")
    assert p.cluster_facts["fit.map.total.model_ms"] == pytest.approx(
        p.cluster_facts["fit.map.total.observed_ms"], rel=0.1
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "empty"),
        (b'{"jobID": "job_1_1", "mapTasks": [', "malformed JSON at line 1"),
        (b'{"jobID": "job_1_1"} {"jobID": ', "after 1 job"),
        (b'{"other": 1}', "no Rumen job"),
    ],
)
def test_bad_traces(tmp_path: Path, content: bytes, expected: str) -> None:
    f = tmp_path / "t.json"
    f.write_bytes(content)
    with pytest.raises(InputError, match=expected) as info:
        load_rumen(f)
    assert str(f) in str(info.value)


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress(WORDCOUNT.read_bytes())
    f = tmp_path / "t.json.gz"
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cannot read"):
        load_rumen(f)


def _mutated(tmp_path: Path, wc_raw: dict, edit) -> Path:  # noqa: ANN001
    import copy

    obj = copy.deepcopy(wc_raw)
    edit(obj)
    f = tmp_path / "mut.json"
    f.write_text(json.dumps(obj))
    return f


def _first_map(obj: dict) -> dict:
    return next(a for t in obj["mapTasks"] for a in t["attempts"] if a["result"] == "SUCCESS")


@pytest.mark.parametrize("value", [-100, 1e300, 0.5, "12", None, True])
def test_corrupt_attempt_counter_is_refused_naming_it(tmp_path: Path, wc_raw, value) -> None:  # noqa: ANN001
    """One bad hdfsBytesRead made the whole job's input 1 byte per map (exit 0) before."""
    f = _mutated(tmp_path, wc_raw, lambda o: _first_map(o).__setitem__("hdfsBytesRead", value))
    aid = _first_map(wc_raw)["attemptID"]
    with pytest.raises(InputError, match="hdfsBytesRead") as info:
        load_rumen(f)
    assert str(f) in str(info.value) and aid in str(info.value)


def test_unrecorded_counter_on_one_attempt_is_said(tmp_path: Path, wc_raw) -> None:  # noqa: ANN001
    """-1 is Rumen's "not recorded": the side total is unknown, and the warning says why."""
    f = _mutated(tmp_path, wc_raw, lambda o: _first_map(o).__setitem__("hdfsBytesRead", -1))
    (h,) = load_rumen(f)
    assert any("HDFS_BYTES_READ is recorded by" in w for w in h.warnings)


def test_map_tasks_not_a_list_is_refused(tmp_path: Path, wc_raw) -> None:  # noqa: ANN001
    f = _mutated(tmp_path, wc_raw, lambda o: o.__setitem__("mapTasks", "x"))
    with pytest.raises(InputError, match="mapTasks is not a list"):
        load_rumen(f)


def test_no_successful_map_is_refused(tmp_path: Path, wc_raw) -> None:  # noqa: ANN001
    f = _mutated(tmp_path, wc_raw, lambda o: o.__setitem__("mapTasks", []))
    with pytest.raises(InputError, match="no successful map attempt"):
        load_profile_source(f)


def test_declared_reduces_without_attempts_are_said(tmp_path: Path, wc_raw) -> None:  # noqa: ANN001
    f = _mutated(tmp_path, wc_raw, lambda o: o.__setitem__("reduceTasks", []))
    p = load_profile_source(f)
    assert any("no successful reduce attempt" in w for w in p.warnings)


def test_attempt_with_impossible_times_keeps_its_data_untimed(tmp_path: Path, wc_raw, wc) -> None:  # noqa: ANN001
    """A map attempt finishing before it starts was dropped with its bytes: the input halved
    (1,445,391 → 741,121 B), shuffle and output shrank, and nothing counted it. Only its times
    contradict: its counters stay in the dataflow, its times out of the timing fit."""

    def edit(o: dict) -> None:
        a = o["mapTasks"][0]["attempts"][0]
        a["finishTime"] = a["startTime"] - 1000

    f = _mutated(tmp_path, wc_raw, edit)
    aid = wc_raw["mapTasks"][0]["attempts"][0]["attemptID"]
    p = load_profile_source(f)
    assert p.input_bytes == wc.input_bytes == 1_445_391
    assert p.observed_counters == wc.observed_counters
    assert p.stats == wc.stats and p.map_classes == wc.map_classes
    assert p.cluster_facts["successful_map_attempts"] == 3
    assert p.cluster_facts["untimed_attempts"] == 1
    assert aid not in {t.attempt_id for t in p.observed}
    assert all(t.finish_ms >= t.start_ms for t in p.observed)
    (line,) = [w for w in p.warnings if "not timed" in w]
    assert line.startswith(f"1 task attempt(s) not timed: 1 finish before start ({aid})")
    assert not any("inconsistent task attempt" in w for w in p.warnings)
    # the self-check counts the maps the job ran, not the timed ones ("gives 3 maps where the
    # job ran 2" had followed)
    assert not any("where the job ran" in w for w in p.warnings)
    assert p.cluster_facts["self_check.maps.observed"] == 3.0
