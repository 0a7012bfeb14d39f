"""Phase rows derived from the real-Hadoop harness's run records (validation.records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers.phase_data import (
    MIB,
    job_inputs_from_run_record,
    load_phase_data,
    rows_from_run_record,
)
from mrtune.readers.run_records import (
    InputDescription,
    MapAttemptEvents,
    ReduceAttemptEvents,
    RunRecord,
    SpillEvent,
)

TC = "org.apache.hadoop.mapreduce.TaskCounter"


def _record(run_id: str = "sel-r0-1", success: bool = True) -> RunRecord:
    """Two maps of 32 MiB at 50 % selectivity and one reduce, with hand-set log instants."""
    maps = [
        MapAttemptEvents(
            attempt_id=f"attempt_local_0001_m_00000{i}_0",
            task_index=i,
            start_ms=1000 + 3000 * i,
            flush_ms=2000 + 3000 * i,  # map phase 1000 ms
            done_ms=2900 + 3000 * i,
            split_length=32 * 1048576,
            spills=[
                SpillEvent(index=0, start_ms=1500 + 3000 * i, end_ms=1700 + 3000 * i),
                SpillEvent(index=1, start_ms=2000 + 3000 * i, end_ms=2400 + 3000 * i, final=True),
            ],  # spill after flush: 400 ms; merge + commit: 500 ms
            counters={TC: {"MAP_OUTPUT_BYTES": 16 * 1048576}},
        )
        for i in range(2)
    ]
    reduce = ReduceAttemptEvents(
        attempt_id="attempt_local_0001_r_000000_0",
        task_index=0,
        start_ms=7000,
        shuffle_end_ms=7600,
        merge_end_ms=7900,
        done_ms=9000,
        counters={TC: {"REDUCE_SHUFFLE_BYTES": 33 * 1048576}},
    )
    return RunRecord(
        run_id=run_id,
        job="selectivity",
        settings={"mrtune.selectivity.percent": "50"},
        xmx_mb=2048,
        input=InputDescription(kind="records", path="/x", bytes=64 * 1048576, records=671088),
        started_at_ms=0,
        wall_time_ms=9500.0,
        job_time_ms=8200,
        exit_code=0 if success else 1,
        success=success,
        counters={
            TC: {
                "MAP_INPUT_RECORDS": 671088,
                "MAP_OUTPUT_RECORDS": 335544,
                "REDUCE_INPUT_RECORDS": 335544,
                "REDUCE_OUTPUT_RECORDS": 335544,
            }
        },
        num_maps=2,
        num_reduces=1,
        map_attempts=maps,
        reduce_attempts=[reduce],
    )


def test_each_phase_duration_comes_from_the_log_boundaries() -> None:
    rows = rows_from_run_record(_record())
    got = [(r.operation, r.duration_ms) for r in rows]
    assert got == [
        ("map", 1000.0),
        ("spill", 400.0),
        ("merge", 500.0),
        ("map", 1000.0),
        ("spill", 400.0),
        ("merge", 500.0),
        ("shuffle", 600.0),
        ("sort", 300.0),
        ("write", 1100.0),
    ]
    first = rows[0]
    assert first.map_selectivity_pct == pytest.approx(100 * 335544 / 671088)
    assert first.data_size_mb == 64 and first.block_size_mb == 32 and first.mappers == 2
    assert first.split_mb == 32 and first.map_output_mb == 16
    assert rows[-1].shuffle_mb == 33 and rows[-1].reduce_selectivity_pct == 100
    assert all(r.run_id == "sel-r0-1" for r in rows)


def test_failed_runs_give_no_rows_and_inputs_are_measured_means() -> None:
    assert rows_from_run_record(_record(success=False)) == []
    inputs = job_inputs_from_run_record(_record())
    assert inputs.mappers == 2 and inputs.reducers == 1 and inputs.containers == 1
    assert inputs.split_mb == 32 and inputs.map_output_mb == 16 and inputs.shuffle_mb == 33
    assert inputs.data_size_mb == pytest.approx(64 * 1048576 / MIB)


def test_jsonl_file_loads_and_bad_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(_record("a").to_json() + "\n" + _record("b").to_json() + "\n")
    rows, obs = load_phase_data([path])
    assert len(rows) == 18 and set(obs.run_id.tolist()) == {"a", "b"}

    bad = json.loads(_record("c").to_json())
    del bad["xmx_mb"]
    path.write_text(_record("a").to_json() + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError) as info:
        load_phase_data([path])
    assert str(info.value).startswith(f"{path}:2: xmx_mb: not a run record")


def test_inconsistent_boundaries_are_refused() -> None:
    record = _record()
    record.reduce_attempts[0].merge_end_ms = 7500  # before the shuffle ended
    with pytest.raises(InputError, match="sort ends before it starts"):
        rows_from_run_record(record, "runs.jsonl record 1")


def _generic_record(run: int, sel_pct: int, n_maps: int, rng) -> RunRecord:  # type: ignore[no-untyped-def]
    """A run whose phase times follow known linear forms (+ a little noise) in its sizes."""
    split = 32 * 1048576
    recs = split // 100
    out_bytes = int(split * sel_pct / 100)
    t = 0
    maps = []
    for i in range(n_maps):
        m_d = out_bytes / 1048576
        map_ms = int(200 + 10 * 32 + 20 * m_d + rng.integers(0, 5))
        spill_ms = int(30 + 8 * m_d + rng.integers(0, 5))
        merge_ms = int(20 + 2 * m_d + rng.integers(0, 5))
        maps.append(
            MapAttemptEvents(
                attempt_id=f"attempt_local_{run:04d}_m_{i:06d}_0",
                task_index=i,
                start_ms=t,
                flush_ms=t + map_ms,
                done_ms=t + map_ms + spill_ms + merge_ms,
                split_length=split,
                spills=[SpillEvent(index=0, start_ms=t + map_ms, end_ms=t + map_ms + spill_ms)],
                counters={TC: {"MAP_OUTPUT_BYTES": out_bytes}},
            )
        )
        t += map_ms + spill_ms + merge_ms
    s_d = n_maps * out_bytes / 1048576
    shuffle_ms = int(100 + 5 * s_d + 40 * n_maps + rng.integers(0, 5))
    sort_ms = int(50 + 1 * s_d + rng.integers(0, 5))
    write_ms = int(80 + 6 * s_d + rng.integers(0, 5))
    reduce = ReduceAttemptEvents(
        attempt_id=f"attempt_local_{run:04d}_r_000000_0",
        task_index=0,
        start_ms=t,
        shuffle_end_ms=t + shuffle_ms,
        merge_end_ms=t + shuffle_ms + sort_ms,
        done_ms=t + shuffle_ms + sort_ms + write_ms,
        counters={TC: {"REDUCE_SHUFFLE_BYTES": n_maps * out_bytes}},
    )
    n_in, n_out = n_maps * recs, int(n_maps * recs * sel_pct / 100)
    return RunRecord(
        run_id=f"generic-{run}",
        job="selectivity",
        xmx_mb=2048,
        input=InputDescription(kind="records", path="/x", bytes=n_maps * split),
        started_at_ms=0,
        wall_time_ms=t + shuffle_ms + sort_ms + write_ms + 500.0,
        job_time_ms=t + shuffle_ms + sort_ms + write_ms + 200,
        exit_code=0,
        success=True,
        counters={
            TC: {
                "MAP_INPUT_RECORDS": n_in,
                "MAP_OUTPUT_RECORDS": n_out,
                "REDUCE_INPUT_RECORDS": n_out,
                "REDUCE_OUTPUT_RECORDS": n_out,
            }
        },
        num_maps=n_maps,
        num_reduces=1,
        map_attempts=maps,
        reduce_attempts=[reduce],
    )


def test_fit_cli_on_run_records_with_held_out_runs(tmp_path: Path) -> None:
    """``mrtune fit runs.jsonl --held-out 4``: per-phase and per-job errors of held-out runs."""
    import numpy as np
    from typer.testing import CliRunner

    from mrtune.cli import app

    rng = np.random.default_rng(0)
    records = [
        _generic_record(run, sel, n_maps, rng)
        for run, (sel, n_maps) in enumerate(
            (sel, n) for sel in (10, 30, 50, 70, 90, 100) for n in (2, 3)
        )
    ]
    path = tmp_path / "runs-generic.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in records))
    result = CliRunner().invoke(
        app, ["fit", str(path), "--no-compare", "--held-out", "4", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out["report"]["phases"]) == {"map", "spill", "merge", "shuffle", "sort", "write"}
    spill = out["report"]["phases"]["spill"]
    assert [t["name"] for t in spill["terms"]] == ["M_d"]
    assert spill["terms"][0]["coef"] == pytest.approx(8.0, abs=0.2)
    held = out["held_out"]
    assert held["job"]["n"] == 12
    assert held["phases"]["write"]["rmse_ms"] < 5.0  # noise is uniform on 0..4 ms
    # the job error includes the 200 ms job overhead the phase model does not have
    assert held["job"]["bias_ms"] == pytest.approx(-200, abs=20)

    # --form reaches the held-out fits too: an intercept-only write model cannot follow R_d
    intercept_only = CliRunner().invoke(
        app,
        [
            "fit",
            str(path),
            "--no-compare",
            "--held-out",
            "4",
            "--form",
            "write=",
            "--format",
            "json",
        ],
    )
    assert intercept_only.exit_code == 0, intercept_only.output
    out2 = json.loads(intercept_only.stdout)
    assert out2["report"]["phases"]["write"]["terms"] == []
    assert out2["held_out"]["phases"]["write"]["rmse_ms"] > 100.0


def test_measured_runs_are_task_means_and_the_driver_job_time() -> None:
    from mrtune.readers.phase_data import measured_runs_from_records

    (run,) = measured_runs_from_records([_record("m"), _record("x", success=False)])
    assert run.run_id == "m" and run.job_ms == 8200.0
    assert run.phases_ms == {
        "map": 1000.0,
        "spill": 400.0,
        "merge": 500.0,
        "shuffle": 600.0,
        "sort": 300.0,
        "write": 1100.0,
    }
