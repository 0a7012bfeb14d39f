"""Machine cost factors from a benchmark of real runs, and jobs calibrated from them.

Reads the committed machine benchmark (``benchmarks/results/runs-machine.jsonl``: the generic
benchmark job on its own input, spills, merges, reduce buffers and codecs varied; unmodified
Hadoop 3.5.0 in local mode) and the fidelity matrix's default runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mrtune.calibration.machine import fit_machine_from_runs
from mrtune.calibration.machine_costs import JOB_FACTORS, MachineCosts
from mrtune.calibration.run_profile import local_cluster, profile_from_run, run_config
from mrtune.cli import app
from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.errors import InputError
from mrtune.readers.run_records import RunRecord, read_jsonl

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
MACHINE_RUNS = RESULTS / "runs-machine.jsonl"
MATRIX_RUNS = RESULTS / "runs-matrix.jsonl"
#: The segments that add up to a task's time (the spill events' rows are parts of them).
SEGMENTS_OF_A_TASK = ("map.map", "map.sort", "reduce.shuffle", "reduce.merge", "reduce.reduce")


@pytest.fixture(scope="module")
def machine_runs() -> list[RunRecord]:
    return [r for r in read_jsonl(MACHINE_RUNS) if r.success]


@pytest.fixture(scope="module")
def machine(machine_runs: list[RunRecord]) -> MachineCosts:
    return fit_machine_from_runs(machine_runs, source="test")


def _first(label: str) -> RunRecord:
    with open(MATRIX_RUNS, encoding="utf-8") as fh:
        for line in fh:
            if f'"label":"{label}"' in line[:400]:
                return RunRecord.model_validate_json(line)
    raise AssertionError(f"{label} not in {MATRIX_RUNS}")


def test_benchmark_never_uses_the_matrix_inputs(machine_runs: list[RunRecord]) -> None:
    """The machine is measured on its own data: no input file of the fidelity matrix."""
    matrix_inputs = {_first(lab).input.path for lab in ("sort-default", "wc-default")}
    assert {r.input.path for r in machine_runs}.isdisjoint(matrix_inputs)


@pytest.mark.slow  # the module fixture `machine` fits the machine costs (~1 min of CPU)
def test_machine_fit_reproduces_its_phases(machine: MachineCosts) -> None:
    """Every factor is finite and non-negative, each segment's mean is reproduced within 10%,
    and the three codecs of the benchmark get a measured CPU cost."""
    for name, v in machine.costs.model_dump().items():
        if not isinstance(v, bool | dict):  # reduce_side: no override from a fit
            assert np.isfinite(v) and v >= 0, name
    assert {s.segment for s in machine.segments} >= {"map.map", "map.sort", "reduce.merge"}
    for s in machine.segments:
        assert s.model_mean_ms == pytest.approx(s.observed_mean_ms, rel=0.10), s.segment
    assert set(machine.codecs) == {"default", "snappy", "lz4"}
    # deflate costs more CPU than the LZ family on the same data
    assert (
        machine.codecs["default"].compress_ns_per_byte > machine.codecs["lz4"].compress_ns_per_byte
    )


@pytest.mark.slow  # the module fixture `machine` fits the machine costs (~1 min of CPU)
def test_machine_file_round_trip_and_bad_files(machine: MachineCosts, tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    machine.save(path)
    assert MachineCosts.load(path) == machine
    (tmp_path / "bad.json").write_text('{"costs": {"local_read": -1}}')
    with pytest.raises(InputError, match="costs.local_read"):
        MachineCosts.load(tmp_path / "bad.json")
    with pytest.raises(InputError, match="not found"):
        MachineCosts.load(tmp_path / "missing.json")


@pytest.mark.slow  # the module fixture `machine` fits the machine costs (~1 min of CPU)
def test_job_calibration_keeps_machine_factors_and_refits_its_own(machine: MachineCosts) -> None:
    """With a machine file, a job's one run moves its own code's costs freely; the machine's
    factors stay close to the benchmark's, and the run's phases are reproduced."""
    rec = _first("wc-default")
    prof = profile_from_run(rec, machine=machine)
    for name in ("local_read", "local_write", "merge_cpu", "network", "spill_file_ns"):
        mine, theirs = getattr(prof.costs, name), getattr(machine.costs, name)
        assert mine == pytest.approx(theirs, rel=0.5), name
        assert "machine benchmark" in prof.provenance[f"costs.{name}"]
    assert any("measured" in prof.provenance[f"costs.{f}"] for f in JOB_FACTORS)
    pred = predict_job(prof, ConfigBatch.from_configs([run_config(rec)]), local_cluster(rec))
    task_ms = sum(a.done_ms - a.start_ms for a in [*rec.map_attempts, *rec.reduce_attempts])
    # every task ran in one JVM: the first map and reduce also compiled their code (a job
    # constant the calibration measures apart, ``jvm_warmup.<segment>_ms``)
    warm = sum(
        v
        for k, v in prof.cluster_facts.items()
        if k.startswith("jvm_warmup.")
        and k.split(".", 1)[1].removesuffix("_ms") in SEGMENTS_OF_A_TASK
    )
    assert warm > 0
    assert float(pred.total_task_ms[0]) + warm == pytest.approx(task_ms, rel=0.10)


def test_calibrate_machine_command(tmp_path: Path) -> None:
    """The command on a few runs of the benchmark (the spill grid: enough to fit)."""
    runs = tmp_path / "runs.jsonl"
    with open(MACHINE_RUNS, encoding="utf-8") as fh:
        lines = [ln for ln in fh if '"label":"mach-spill' in ln[:400]]
    runs.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "machine.json"
    res = CliRunner().invoke(
        app, ["calibrate-machine", str(runs), "-o", str(out), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["runs"] == len(lines) > 0
    assert MachineCosts.load(out).costs.model_dump() == data["costs"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    res = CliRunner().invoke(app, ["calibrate-machine", str(bad), "-o", str(out)])
    assert res.exit_code == 2 and "run records" in res.output


def test_profile_command_from_a_run_record(tmp_path: Path) -> None:
    """``mrtune profile --from run --machine`` → a profile whose baseline is the run's own
    configuration, which ``optimize --local`` then tunes; bad selections are one line."""
    from mrtune.profiling.build import profile_config

    out = tmp_path / "wc.json"
    args = ["profile", str(MATRIX_RUNS), "--from", "run", "--job", "wc-default"]
    res = CliRunner().invoke(
        app, [*args, "--machine", str(RESULTS / "machine-costs.json"), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    prof = JobProfile.model_validate_json(out.read_text())
    assert profile_config(prof) == run_config(_first("wc-default"))
    assert "machine benchmark" in prof.provenance["costs.merge_cpu"]
    res = CliRunner().invoke(app, ["optimize", str(out), "--local", "--storage", "none"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [*args[:-1], "nope"])
    assert res.exit_code == 2 and "nope" in res.output
    # run records are known without --from run; --machine on a history is refused
    trace = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "profiles"
    res = CliRunner().invoke(
        app, ["profile", str(trace / "wordcount-rumen.json"), "--machine", str(out)]
    )
    assert res.exit_code == 2 and "--from run" in res.output


def test_the_probes_codec_cpu_wins_over_the_machines() -> None:
    """A codec whose CPU the codec probe timed on the job's own data keeps it when a machine
    file is applied (its source says the machine figure was passed over); a codec the probe
    did not time takes the machine's CPU, as before."""
    from mrtune.costmodel.profile import CodecStats
    from mrtune.profiling.codecs import MEASURED_BY_PROBE_CPU

    timed = CodecStats(
        ratio=0.4,
        compress_ns_per_byte=49.6,
        uncompress_ns_per_byte=14.9,
        source=f"measured by probe: run p; {MEASURED_BY_PROBE_CPU} of DefaultCodec passes)",
    )
    ratio_only = CodecStats(
        ratio=0.5, compress_ns_per_byte=1.0, uncompress_ns_per_byte=0.5, source="measured: r"
    )
    profile = JobProfile(input_bytes=1e6, codecs={"default": timed, "lz4": ratio_only})
    machine = MachineCosts.model_validate(
        {
            "source": "bench",
            "codecs": {
                "default": {"compress_ns_per_byte": 35.0, "uncompress_ns_per_byte": 3.3},
                "lz4": {"compress_ns_per_byte": 0.9, "uncompress_ns_per_byte": 0.15},
            },
        }
    )
    got = machine.apply_codecs(profile).codecs
    d = got["default"]
    assert (d.compress_ns_per_byte, d.uncompress_ns_per_byte, d.ratio) == (49.6, 14.9, 0.4)
    assert "kept over the machine benchmark's (35 / 3.3 ns/B, bench)" in d.source
    assert (got["lz4"].compress_ns_per_byte, got["lz4"].ratio) == (0.9, 0.5)


def test_per_byte_machine_fit_on_two_widths(machine_runs: list[RunRecord]) -> None:
    """``--per-byte``: the narrow (21 B) and wide (413 B) runs separate the serializers'
    per-byte CPU from their per-record CPU, so it is a column of the joint fit and says
    where it was measured; per record only (the default) it stays 0 and says why."""
    from mrtune.calibration.machine import fit_machine

    recs = [r for r in machine_runs if r.label.startswith(("mach-narrow", "mach-wide"))]
    assert len(recs) == 20
    # serial phases: one ridge fit, no grid over the spill contention (a quick test)
    runs = [(profile_from_run(r, calibrate=False), run_config(r)) for r in recs]
    joint = fit_machine(runs, source="two widths", per_byte=True)
    assert joint.costs.serde_byte_cpu > 0
    assert joint.provenance["costs.serde_byte_cpu"].startswith(
        "measured on the machine benchmark (two widths)"
    )
    assert joint.costs.combine_byte_cpu == 0.0  # no combiner in the benchmark
    flat = fit_machine(runs, source="two widths")
    assert flat.costs.serde_byte_cpu == 0.0
    assert "CPU priced per record" in flat.provenance["costs.serde_byte_cpu"]
