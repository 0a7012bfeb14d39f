"""Run records that contradict themselves or hold impossible values are refused in one line.

A map attempt that starts after its end had crashed ``profile``, ``validate`` and
``calibrate-machine`` in the cost-factor fit ("Initial guess is outside of provided bounds");
a negative ``job_time_ms`` had been printed as a job of -5.0 s; ``split_length`` 1e300 had given
pydantic's raw text. Each case now ends in one ``error:`` line naming the file, the record, the
field, the value and what is allowed, with exit code 2.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from mrtune.calibration.run_record import job_overhead_ms, run_timings
from mrtune.cli import app
from mrtune.errors import InputError
from mrtune.readers.run_records import RunRecord, read_jsonl

RUNS = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "runs-matrix.jsonl"


@pytest.fixture(scope="module")
def real() -> dict:
    """A real local run (the Sort job at Hadoop's defaults): 4 maps, 1 reduce, a final merge."""
    for line in RUNS.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["label"] == "sort-default" and rec["repeat"] == 0:
            return rec
    raise AssertionError("sort-default r0 not in the matrix runs")


def _write(tmp_path: Path, rec: dict, name: str = "runs.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return path


def _mutated(real: dict, change: Callable[[dict], object]) -> dict:
    rec = copy.deepcopy(real)
    change(rec)
    return rec


def _one_error_line(res, *needles: str) -> str:  # noqa: ANN001
    lines = [ln for ln in res.stderr.strip().splitlines() if not ln.startswith("warning:")]
    err = "\n".join(lines)
    assert res.exit_code == 2, (res.exit_code, err, res.stdout[-300:])
    assert err.startswith("error:") and "\n" not in err, err
    assert "Traceback" not in err and "internal error" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def _start_after_end(rec: dict) -> None:
    a = rec["map_attempts"][0]
    a["start_ms"] = a["done_ms"] + 100_000


# ------------------------------------------------------------------- D2: attempts out of order


@pytest.mark.parametrize("command", ["profile", "validate", "calibrate-machine"])
def test_a_map_attempt_starting_after_its_end_is_refused_in_one_line(
    tmp_path: Path, real: dict, command: str
) -> None:
    path = _write(tmp_path, _mutated(real, _start_after_end), "negatt.jsonl")
    attempt = real["map_attempts"][0]["attempt_id"]
    res = CliRunner().invoke(app, [command, str(path)])
    _one_error_line(res, "negatt.jsonl", attempt, "start_ms", "done_ms", "start after its end")


def _set(kind: str, i: int, **fields: Callable[[dict], object]) -> Callable[[dict], None]:
    def change(rec: dict) -> None:
        a = rec[kind][i]
        for name, value in fields.items():
            a[name] = value(a)

    return change


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (_set("map_attempts", 1, flush_ms=lambda a: a["start_ms"] - 5), ("flush_ms",)),
        (_set("map_attempts", 2, commit_ms=lambda a: a["done_ms"] + 5), ("commit_ms",)),
        (
            lambda r: r["map_attempts"][0]["spills"][0].update(
                end_ms=r["map_attempts"][0]["spills"][0]["start_ms"] - 1
            ),
            ("spills[0].start_ms", "spills[0].end_ms"),
        ),
        (
            lambda r: r["map_attempts"][0]["spills"][0].update(
                start_ms=r["map_attempts"][0]["start_ms"] - 1
            ),
            ("spills[0].start_ms",),
        ),
        (
            _set("reduce_attempts", 0, merge_end_ms=lambda a: a["shuffle_end_ms"] - 1),
            ("shuffle_end_ms", "merge_end_ms"),
        ),
        (
            # without merge_end_ms the last final-merge pass ends the merge phase
            lambda r: r["reduce_attempts"][0].update(
                merge_end_ms=None,
                done_ms=r["reduce_attempts"][0]["final_merge"]["merger_calls"][-1]["start_ms"] - 1,
                commit_ms=None,
            ),
            ("merger_calls[1]", "done_ms"),
        ),
    ],
)
def test_instants_going_backwards_are_refused(
    tmp_path: Path, real: dict, change: Callable[[dict], None], needles: tuple[str, ...]
) -> None:
    rec = _mutated(real, change)
    with pytest.raises(ValidationError):
        RunRecord.model_validate(rec)
    path = _write(tmp_path, rec)
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg and "line 1" in msg and "allowed:" in msg
    for needle in needles:
        assert needle in msg, (needle, msg)


def test_every_phase_time_of_an_accepted_record_is_non_negative(real: dict) -> None:
    rec = RunRecord.model_validate(real)
    times = [v for t in run_timings(rec) for v in t.phases_ms.values()]
    assert times and min(times) >= 0
    assert (job_overhead_ms(rec) or 0.0) > 0


def test_a_task_span_longer_than_the_job_is_refused_not_a_negative_overhead(
    tmp_path: Path, real: dict
) -> None:
    rec = RunRecord.model_validate(_mutated(real, lambda r: r.update(job_time_ms=1000)))
    with pytest.raises(InputError, match="job_time_ms: .* longer than the job"):
        job_overhead_ms(rec)
    path = _write(tmp_path, rec.model_dump(mode="json"))
    res = CliRunner().invoke(app, ["profile", str(path)])
    _one_error_line(res, "job_time_ms", "1000", rec.run_id, "allowed:")


# ------------------------------------------------------------------------- D3: negative times


@pytest.mark.parametrize(
    "field", ["job_time_ms", "wall_time_ms", "cpu_time_ms", "job_start_ms", "started_at_ms"]
)
def test_a_negative_time_is_refused(tmp_path: Path, real: dict, field: str) -> None:
    path = _write(tmp_path, _mutated(real, lambda r: r.update({field: -5000})))
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    msg = str(info.value)
    assert f"line 1: {field}: negative (got -5000" in msg and "allowed: >= 0 ms" in msg


def test_validate_refuses_a_negative_job_time_instead_of_printing_it(
    tmp_path: Path, real: dict
) -> None:
    path = tmp_path / "negjob.jsonl"
    other = _mutated(real, lambda r: r.update(run_id="sort-default-r1", repeat=1))
    lines = [_mutated(real, lambda r: r.update(job_time_ms=-5000)), other]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    res = CliRunner().invoke(app, ["validate", str(path)])
    _one_error_line(res, "negjob.jsonl", "line 1", "job_time_ms", "-5000", ">= 0")
    assert "-5.0" not in res.stdout


# ----------------------------------------------------------------- D12a: one line per error


@pytest.mark.parametrize(
    ("value", "needles"),
    [
        (1e300, ("too large", "1e+300", "Java long")),
        (-1, ("negative", "-1", ">= 0 bytes")),
        ("x", ("not an integer", "'x'", "an integer")),
        (1.5, ("not a whole number", "1.5", "an integer")),
    ],
)
def test_a_bad_field_is_one_clean_line(
    tmp_path: Path, real: dict, value: object, needles: tuple[str, ...]
) -> None:
    rec = _mutated(real, lambda r: r["map_attempts"][0].update(split_length=value))
    path = _write(tmp_path, rec)
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: line 1: map_attempts[0].split_length: "), msg
    assert "\n" not in msg and "type=" not in msg and "input_value" not in msg, msg
    assert "allowed:" in msg
    for needle in needles:
        assert needle in msg, (needle, msg)
    res = CliRunner().invoke(app, ["profile", str(path)])
    err = _one_error_line(res, "map_attempts[0].split_length")
    assert "type=" not in err and "input_value" not in err


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (lambda r: r.update(started_at_ms=None), ("started_at_ms: not an integer",)),
        (lambda r: r.update(wall_time_ms=1e300), ("wall_time_ms: too large",)),
        (lambda r: r.pop("run_id"), ("run_id: missing",)),
        (lambda r: r.update(bogus=1), ("bogus: not a run-record field",)),
        (
            lambda r: r["reduce_attempts"][0]["fetches"][0].update(destination="NET"),
            ("reduce_attempts[0].fetches[0].destination", "'MEMORY' or 'DISK'"),
        ),
    ],
)
def test_other_pydantic_errors_are_one_clean_line(
    tmp_path: Path, real: dict, change: Callable[[dict], object], needles: tuple[str, ...]
) -> None:
    path = _write(tmp_path, _mutated(real, change))
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    msg = str(info.value)
    assert "\n" not in msg and "type=" not in msg and "allowed:" in msg, msg
    for needle in needles:
        assert needle in msg, (needle, msg)


def test_a_json_list_names_the_record(tmp_path: Path, real: dict) -> None:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([real, 5]), encoding="utf-8")
    with pytest.raises(InputError, match=r"runs\.json: record 1: not an object \(got 5\)"):
        read_jsonl(path)
