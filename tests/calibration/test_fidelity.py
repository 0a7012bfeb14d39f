"""Profiles from real local-mode run records, and the fidelity report's arithmetic (issue 5).

The records are the committed ones of ``benchmarks/results/runs-matrix.jsonl`` (unmodified
Hadoop 3.5.0, local mode); only the few lines a test needs are parsed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mrtune.calibration.fidelity import (
    BYTE_COUNTERS,
    PHASES,
    RECORD_COUNTERS,
    RunComparison,
    build_report,
    per_map_check,
    predicted_figures,
    summarize,
)
from mrtune.calibration.run_profile import (
    hadoop_memory_limit,
    local_cluster,
    profile_for_run,
    profile_from_run,
    reduce_merge_end_ms,
    run_config,
)
from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.readers.run_records import RunRecord

RUNS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs-matrix.jsonl"


def _records(*labels: str, repeat: int | None = 0) -> list[RunRecord]:
    """The runs with these labels (and repeat), parsed from the committed matrix records."""
    keys = {f'"label":"{lab}"' for lab in labels}
    out = []
    with open(RUNS, encoding="utf-8") as fh:
        for line in fh:
            head = line[:400]
            if any(k in head for k in keys):
                rec = RunRecord.model_validate_json(line)
                if repeat is None or rec.repeat == repeat:
                    out.append(rec)
    missing = set(labels) - {r.label for r in out}
    assert not missing, f"labels not in {RUNS}: {missing}"
    return out


@pytest.fixture(scope="module")
def wc_default() -> RunRecord:
    return _records("wc-default")[0]


@pytest.fixture(scope="module")
def wc_profile(wc_default: RunRecord) -> JobProfile:
    """The default WordCount run's calibrated profile, built once for the module: the
    calibration (combine and contention fits) is ~10 s of CPU, and no test modifies it."""
    return profile_from_run(wc_default)


# ------------------------------------------------------------------------ Deliver 2: profile


def test_wordcount_profile_reproduces_its_own_run(
    wc_default: RunRecord, wc_profile: JobProfile
) -> None:
    rec = wc_default
    profile = wc_profile
    pred = predict_job(profile, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
    got = predicted_figures(pred)
    c = pred.counters
    for name in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS", "REDUCE_INPUT_RECORDS"):
        assert round(float(c[name][0])) == rec.counter(name), name
    assert got["spills_per_map"] == [a.num_spills for a in rec.map_attempts]
    assert round(got["MAP_SPILLED_RECORDS"]) == rec.map_spilled_records
    assert round(got["REDUCE_SPILLED_RECORDS"]) == rec.reduce_spilled_records
    for name in ("COMBINE_INPUT_RECORDS", "COMBINE_OUTPUT_RECORDS", *BYTE_COUNTERS):
        assert round(got[name]) == rec.counter(name), name
    assert got["fetches_to_memory"] == sum(r.fetches_to_memory for r in rec.reduce_attempts)
    # the calibrated phase times reproduce the run's own segments: the map-side ones are
    # over-determined (map function, fill, background and final spills: the n·log n sort
    # cannot give a 2.97 M-record spill 1.6× the per-record time of a 1.09 M one), so each
    # within 15%, and the tasks' total time within 6% (measured: −5.3%)
    fit = profile.cluster_facts
    segs = [
        k.split(".", 1)[1].rsplit(".", 1)[0]
        for k in fit
        if k.startswith("fit.") and k.endswith(".model_ms")
    ]
    assert {"map.map", "map.fill", "map.spill_full", "map.spill_last", "map.sort"} <= set(segs)
    for seg in segs:
        assert fit[f"fit.{seg}.model_ms"] == pytest.approx(fit[f"fit.{seg}.observed_ms"], rel=0.15)
    tasks = sum(a.done_ms - a.start_ms for a in [*rec.map_attempts, *rec.reduce_attempts])
    warm = sum(
        v
        for k, v in fit.items()
        if k.startswith("jvm_warmup.")
        and k.split(".", 1)[1].removesuffix("_ms")
        in ("map.map", "map.sort", "reduce.shuffle", "reduce.merge", "reduce.reduce")
    )
    assert float(pred.total_task_ms[0]) + warm == pytest.approx(tasks, rel=0.06)


@pytest.mark.parametrize("label", ["sort-default", "sel-default", "sort-sortmb-20"])
def test_each_map_reproduced_given_its_input_records(label: str) -> None:
    """Fed its actual input records, every map's record counters and bytes are Hadoop's."""
    rec = _records(label)[0]
    cal = _records("sort-default" if label.startswith("sort") else "sel-default")[0]
    profile = profile_from_run(cal, calibrate=False)
    for m in per_map_check(profile, rec):
        for key, (pred, meas) in m.items():
            assert round(pred) == round(meas), (label, key, pred, meas)


def test_dataflow_statistics_of_sort() -> None:
    rec = _records("sort-default")[0]
    st = profile_from_run(rec, calibrate=False).stats
    assert st.input_pair_width == 100.0
    assert st.map_pairs_sel == 1.0 and st.map_size_sel == 1.0
    # 100-byte records: a 10-byte key and a 90-byte value, each length one vint byte
    assert st.ifile_record_overhead == pytest.approx(2.0, abs=1e-9)


def test_memory_limits_equal_the_logged_ones() -> None:
    """-Xmx and float arithmetic reproduce MergeManagerImpl's logged limits to the byte."""
    recs = _records(
        "sort-default",
        "sort-xmx-384m",
        "sort-shuffle-buffer-0.05",
        "sort-shuffle-buffer-0.20-merge-0.30",
        "sel-xmx-512m-reduce-input-0.5",
    )
    for rec in recs:
        cfg = run_config(rec)
        assert cfg.reduce_heap_bytes == rec.xmx_mb * 2**20
        pred = predict_job(
            profile_from_run(rec, calibrate=False),
            ConfigBatch.from_configs([cfg]),
            local_cluster(rec),
        )
        limits = rec.reduce_attempts[0].limits
        assert limits is not None
        assert pred.reduce.memory_limit_bytes[0] == limits.memory_limit, rec.label
        assert pred.reduce.single_shuffle_limit_bytes[0] == limits.max_single_shuffle_limit


def test_hadoop_memory_limit_is_single_precision() -> None:
    assert hadoop_memory_limit(2**31, 0.70) == 1_503_238_528
    assert math.floor(2**31 * 0.70) == 1_503_238_553  # what double arithmetic would give


def test_local_cluster_is_one_task_at_a_time(wc_default: RunRecord) -> None:
    cl = local_cluster(wc_default)
    assert cl.local_mode and cl.num_nodes == 1
    assert cl.max_concurrent_maps == 1 and cl.max_concurrent_reduces == 1


def test_merge_end_falls_back_to_the_last_merge_pass() -> None:
    """A long final merge replaces the status line after finalMerge by "reduce > sort" lines
    (seen on a loaded host); the last Merger call's final pass then marks the hand-over to
    reduce(). Where both exist, the two instants are at most 8 ms apart."""
    for rec in _records("sort-codec-default", "sort-default", "wc-nocombiner", repeat=None):
        for a in rec.reduce_attempts:
            assert a.final_merge is not None and a.merge_end_ms is not None
            last = a.final_merge.merger_calls[-1].last_pass_ms
            assert 0 <= a.merge_end_ms - last <= 8
            assert reduce_merge_end_ms(a.model_copy(update={"merge_end_ms": None})) == last


def test_codec_ratio_measured_from_a_compressed_run() -> None:
    cal, lz4 = _records("sort-default", "sort-codec-lz4")
    profile = profile_from_run(cal, calibrate=False, codec_runs=[lz4])
    assert profile.codecs["lz4"].source.startswith("measured")
    pred = predict_job(profile, ConfigBatch.from_configs([run_config(lz4)]), local_cluster(lz4))
    # random printable records barely compress: the ratio carries the run's bytes to ~0.01%
    got = float(pred.counters["MAP_OUTPUT_MATERIALIZED_BYTES"][0])
    assert got == pytest.approx(lz4.counter("MAP_OUTPUT_MATERIALIZED_BYTES"), rel=1e-3)


# ---------------------------------------------------------------------- Deliver 3: the report


def _cmp(
    label: str,
    job_pred: float,
    job_meas: float,
    *,
    spills_ok: bool = True,
    bytes_pred: float = 100.0,
    load: float = 1.0,
) -> RunComparison:
    meas = {k: 5 for k in RECORD_COUNTERS}
    meas["spills_per_map"] = [1, 1]
    meas["map_merge_passes"] = [0, 0]
    pred = dict(meas)
    if not spills_ok:
        pred["spills_per_map"] = [2, 1]
    for k in BYTE_COUNTERS:
        meas[k], pred[k] = 100, bytes_pred
    for k in ("MAP_INPUT_RECORDS", "MAP_OUTPUT_RECORDS", "REDUCE_INPUT_RECORDS"):
        meas[k] = pred[k] = 10
    times_p = {p: 0.0 for p in PHASES} | {"map.map": job_pred, "job": job_pred}
    times_m = {p: 0.0 for p in PHASES} | {"map.map": job_meas, "job": job_meas}
    return RunComparison(
        label, "sort", {}, 3, False, pred, meas, times_p, times_m, 0.1, load, True
    )


def test_summary_figures_on_a_hand_made_set() -> None:
    runs = [
        _cmp("a", 110.0, 100.0),
        _cmp("b", 180.0, 200.0, spills_ok=False),
        _cmp("c", 330.0, 300.0, bytes_pred=103.0),
        _cmp("d", 380.0, 400.0),
    ]
    s = summarize(runs)
    # 4 runs × 9 record counters, one wrong
    assert s["record_counters_compared"] == 36
    assert s["record_exact_rate"] == pytest.approx(35 / 36)
    assert s["runs_all_records_exact"] == pytest.approx(3 / 4)
    assert s["record_mismatches"] == ["b: spills_per_map"]
    assert s["byte_worst_rel_error"] == pytest.approx(0.03)
    assert s["byte_worst_at"].startswith("c: ")
    errors = [0.10, 0.10, 0.10, 0.05]
    assert s["job_time_median_abs_error"] == pytest.approx(np.median(errors))
    assert s["job_time_p90_abs_error"] == pytest.approx(np.quantile(errors, 0.9))
    # predicted ranks 1,2,3,4 and measured ranks 1,2,3,4: rho = 1
    assert s["spearman"] == pytest.approx(1.0)
    assert s["phase_error_share"]["map.map"] == pytest.approx(1.0)
    assert s["goals_met"] == {
        "record_exact_rate": True,
        "byte_rel_error": False,
        "job_time_median_abs_error": True,
        "job_time_p90_abs_error": True,
        "spearman": True,
    }


def test_errors_by_map_output_width() -> None:
    """The summary groups the runs by their measured map output bytes per record: job-time
    and per-phase errors at each width (issue 20 item 4)."""
    runs = [_cmp("a", 110.0, 100.0), _cmp("b", 180.0, 200.0), _cmp("c", 330.0, 300.0)]
    for r, width in zip(runs, (21, 21, 413), strict=True):
        r.measured["MAP_OUTPUT_BYTES"] = r.measured["MAP_OUTPUT_RECORDS"] * width
    by = summarize(runs)["by_map_output_width"]
    assert sorted(by) == ["21", "413"]
    assert by["21"]["runs"] == 2 and by["21"]["jobs"] == ["sort"]
    assert by["21"]["job_time_median_abs_error"] == pytest.approx(0.10)
    assert by["21"]["job_time_median_signed_error"] == pytest.approx(0.0)
    assert by["413"]["phase_median_rel_error"] == {"map.map": pytest.approx(0.10)}
    # without the byte counter (older reports) there is nothing to group by
    runs[0].measured.pop("MAP_OUTPUT_BYTES")
    assert sorted(summarize(runs[:1]).get("by_map_output_width", {})) == []


def test_spearman_of_a_swapped_order() -> None:
    # measured order 2,1,4,3 against predicted 1,2,3,4: 1 − 6·Σd²/(n(n²−1)) = 1 − 24/60
    runs = [_cmp("a", 100, 200), _cmp("b", 200, 100), _cmp("c", 300, 400), _cmp("d", 400, 300)]
    assert summarize(runs)["spearman"] == pytest.approx(0.6)


def test_report_on_committed_runs_calibrates_on_one_default_run() -> None:
    recs = _records("sel-default", "sel-10pct", "sel-sortmb-5-factor-3", repeat=None)
    report = build_report(recs)
    (cal,) = report.calibrations
    assert cal.record.label == "sel-default"
    compared = {r.label: r for r in report.compared}
    assert set(compared) == {"sel-10pct", "sel-sortmb-5-factor-3"}
    # the job parameter (emit 10 %) moves the profile: map output records are Hadoop's
    r10 = compared["sel-10pct"]
    assert r10.predicted["MAP_OUTPUT_RECORDS"] == r10.measured["MAP_OUTPUT_RECORDS"]
    # decisions the model must get exactly: spills per map, merge passes, fetch destinations
    r5 = compared["sel-sortmb-5-factor-3"]
    for key in ("spills_per_map", "map_merge_passes", "fetches_to_memory", "fetches_to_disk"):
        assert r5.record_matches[key], key
    # the calibration run's own job time is reproduced by construction (the overhead constant)
    own = next(r for r in report.runs if r.calibration)
    assert own.predicted_times["job"] == pytest.approx(float(cal.record.job_time_ms))


def test_validate_command(tmp_path: Path) -> None:
    from mrtune.cli import app

    recs = _records("wc-default", "wc-sortmb-10", "wc-nocombiner", repeat=None)
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in recs))
    out = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["validate", str(path), "--format", "json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data == json.loads(out.read_text())
    assert data["summary"]["runs"] == 2
    assert {r["label"] for r in data["runs"]} == {"wc-default", "wc-sortmb-10", "wc-nocombiner"}
    machine = RUNS.parent / "machine-costs.json"
    res = CliRunner().invoke(
        app, ["validate", str(path), "--machine", str(machine), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    cal = json.loads(res.output)["calibrations"][0]
    assert cal["costs"]["merge_cpu"] == pytest.approx(
        json.loads(machine.read_text())["costs"]["merge_cpu"], rel=0.5
    )
    # at 80 columns the tables are split and fit: no cell folded over lines, no line too long
    res = CliRunner().invoke(app, ["validate", str(path)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.split()[:1] == ["wc-sortmb-10"] for line in lines)
    assert "Dataflow records" in res.output and "Phase times" in res.output
    res = CliRunner().invoke(app, ["validate", str(path), "--machine", str(tmp_path / "no.json")])
    assert res.exit_code == 2 and "not found" in res.output
    res = CliRunner().invoke(app, ["validate", str(path), "--calibrate", "nope"])
    assert res.exit_code == 2 and "nope" in res.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n')
    assert CliRunner().invoke(app, ["validate", str(bad)]).exit_code == 2
    # the YARN histories' options are refused for local records, never ignored
    for extra in (["--codec-runs", str(path)], ["--reduce-fixed-ms", "900"]):
        res = CliRunner().invoke(app, ["validate", str(path), *extra], env={"COLUMNS": "200"})
        assert res.exit_code == 2, res.output
        line = res.output.strip()
        assert extra[0] in line and "YARN histories only" in line and "\n" not in line


def test_wordcount_key_law_fitted_from_one_run(
    wc_default: RunRecord, wc_profile: JobProfile
) -> None:
    """The default run's two spill-level combines per map and its REDUCE_INPUT_GROUPS recover
    the generator's Zipf law (100 k words, s = 1.1), and predict the combine outputs of runs
    with other buffers and splits to within 0.1%."""
    profile = wc_profile
    st = profile.stats
    assert st.key_vocabulary == pytest.approx(100_000, rel=0.01)
    assert st.key_zipf_exponent == pytest.approx(1.1, abs=0.01)
    assert profile.provenance["stats.key_vocabulary"].startswith("measured")
    for rec in _records("wc-sortmb-10", "wc-sortmb-200", "wc-split-16m"):
        p = profile_for_run(profile, wc_default, rec)
        pred = predict_job(p, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
        got = float(pred.counters["COMBINE_OUTPUT_RECORDS"][0])
        assert got == pytest.approx(rec.counter("COMBINE_OUTPUT_RECORDS"), rel=1e-3), rec.label


def test_measured_codec_ratios_never_come_from_the_predicted_run() -> None:
    """``measure_codecs`` takes a codec's ratio from another run on the same data: sort-tuned
    (LZ4) gives sort-codec-lz4 its ratio, and bytes are then within 1%; with no such sibling
    the documented prior is used, even though sort-codec-lz4 itself measured LZ4."""
    cal, lz4, tuned = _records("sort-default", "sort-codec-lz4", "sort-tuned")
    with_sibling = build_report([cal, lz4, tuned], measure_codecs=True)
    alone = build_report([cal, lz4], measure_codecs=True)
    err = {r.label: r.byte_errors for r in with_sibling.compared}
    assert all(abs(e) < 0.01 for e in err["sort-codec-lz4"].values())
    err_alone = next(r for r in alone.compared if r.label == "sort-codec-lz4").byte_errors
    assert all(abs(e) > 0.01 for e in err_alone.values())
    # the summary says which codec ratios the byte goal was scored with
    s_sib, s_alone = with_sibling.summary(), alone.summary()
    assert s_sib["codec_runs_on_priors"] == [] and s_alone["codec_runs_on_priors"] == [
        "sort-codec-lz4"
    ]
    assert s_sib["codec_ratios_scored"].startswith("2 of 2 compressed runs")
    assert s_sib["byte_within_1pct_rate_measured_codecs"] == 1.0
    assert "byte_within_1pct_rate_measured_codecs" not in s_alone
    assert any("on priors" in n for n in s_alone["notes"])


# ------------------------------------------------- a job that cannot be profiled (h4b D5)


def test_a_generator_job_is_skipped_with_a_note_and_the_rest_scored(tmp_path: Path) -> None:
    """A TeraGen run (its maps read no input: nothing to profile) made validate exit 2 for the
    whole file, leaving every other job unscored; now it is one note and the rest is scored."""
    from mrtune.cli import app
    from tests.calibration.run_fixtures import FIXTURES

    # h4b's real TeraGen run (Hadoop 3.5.0 client, 3.4.2 examples jar); plain JSONL, one line
    fixture = FIXTURES / "examples-teragen-generator.jsonl"
    teragen = RunRecord.model_validate_json(fixture.read_text(encoding="utf-8"))
    sel = _records("sel-default", "sel-10pct")
    report = build_report([teragen, *sel])
    assert [r.label for r in report.compared] == ["sel-10pct"]
    (note,) = report.skipped
    assert note.startswith("job teragen (calibration run teragen-default) not scored: ")
    assert "maps read no input" in note and "cannot be profiled" in note
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in [teragen, *sel]))
    res = CliRunner().invoke(app, ["validate", str(path), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["skipped"] == [note]
    assert " ".join(res.stderr.split()) == " ".join(f"note: {note}".split())
    # nothing left to score: one error line, exit 2
    only = tmp_path / "teragen.jsonl"
    only.write_text(teragen.to_json() + "\n")
    res = CliRunner().invoke(app, ["validate", str(only)], env={"COLUMNS": "400"})
    assert res.exit_code == 2
    (line,) = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert line.startswith("error: nothing could be scored: job teragen")
    # an empty runs file says so (it said "no successful run in the file")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = CliRunner().invoke(app, ["validate", str(empty)])
    assert res.exit_code == 2 and "empty file" in res.stderr, res.output


# ------------------------------------------- combiner misses, per job and by layout (h4b D6)


def test_combiner_misses_are_told_per_job_and_only_off_the_calibration_layout() -> None:
    """The key-law note printed the worst miss over all jobs beside every job's name (0.94%
    aggregatewordcount shown as 23.26%), and explained every COMBINE_OUTPUT miss by spill
    layouts the calibration run did not have, also those at the calibration's own layout."""

    made: list[str] = []

    def run(label: str, settings: dict, spills: list, pred: float, cal: bool = False):
        made.append(label)
        t = 90.0 + 10 * len(made)  # distinct times: a rank correlation is defined
        r = _cmp(label, t, t + 1)
        r.job, r.settings, r.calibration = label.split("-")[0], settings, cal
        r.measured["spills_per_map"] = r.predicted["spills_per_map"] = spills
        r.predicted["COMBINE_OUTPUT_RECORDS"], r.measured["COMBINE_OUTPUT_RECORDS"] = pred, 100
        return r

    cals = [run("a-default", {}, [2], 100.0, True), run("b-default", {}, [2], 100.0, True)]
    runs = [
        run("a-sort5", {"mapreduce.task.io.sort.mb": "5"}, [25], 99.0),
        run("a-split", {"mapreduce.input.fileinputformat.split.maxsize": "4194304"}, [2], 99.2),
        run("b-sort5", {"mapreduce.task.io.sort.mb": "5"}, [31], 77.0),
        # the calibration's layout (a reduce-side setting): the law is exact there
        run("b-mp", {"mapreduce.reduce.shuffle.input.buffer.percent": "0.001"}, [2], 124.0),
    ]
    notes = summarize(runs, cals)["notes"]
    law = next(n for n in notes if n.startswith("combiner counts at spill layouts"))
    assert law.endswith("at most 1.00% in a (a-sort5, a-split), 23.00% in b (b-sort5)")
    same = [n for n in notes if "own spill layout" in n]
    assert len(same) == 1 and same[0].endswith(
        "the layout does not explain it: b-mp 124 predicted vs 100"
    )
