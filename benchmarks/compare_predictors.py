"""Held-out comparison of the regression phase models with the white-box cost model (issue 8, 5).

Usage (from the repository root)::

    python benchmarks/compare_predictors.py                  # benchmarks/results/runs-generic.jsonl
    python benchmarks/compare_predictors.py RUNS.jsonl --folds 5 --seed 0 -o errors.json

Both predictors predict every run with whole runs held out, by the same grouped K-fold split
(``GroupKFold(folds, shuffle=True, random_state=seed)`` over the runs in record order, exactly
as :func:`mrtune.costmodel.regression.held_out_regression_predictions` splits them):

* **regression**: per-phase OLS models (backward elimination) fitted on the training runs' task
  rows, the held-out run predicted from its measured Table II inputs by eq. 15-17.
* **white-box**: the cost model's profile calibrated on ONE training run
  (:func:`mrtune.calibration.run_profile.profile_from_run`, chosen by :func:`calibration_run`), carried to
  each held-out run's input size and selectivity (:func:`mrtune.calibration.run_profile.profile_for_run`)
  and predicted with that run's configuration on the local cluster
  (:func:`mrtune.costmodel.predict_job`). Its job time adds the calibration run's driver overhead
  (``job_time_ms`` minus the model's job time on that run), as ``mrtune.calibration.fidelity`` does:
  the measured job time is the driver's submit → complete.
* **regression+overhead** (reported as well): the regression's eq. 17 job time has no term for
  the driver's job set-up, commit and polling; this variant adds the mean of the training runs'
  :func:`mrtune.calibration.run_profile.job_overhead_ms`, so the job comparison is not only about that
  constant. Its phase predictions are the regression's.

The model's phases are mapped onto the run record's phase cut (``mrtune.readers.phase_data``'s
:func:`~mrtune.readers.phase_data.rows_from_run_record`) as ``mrtune.calibration.fidelity.predicted_phases``
maps them, per task (the mean over a run's maps, full and tail splits weighted by count):

=========  ============================================================================
``map``    read + map + collect + map-side write + (s-1)/s of the spill time (the spills
           made while map() runs, s = spills of the task) + the task's fixed time
           (task overhead + setup + cleanup: the log's attempt start is before all of it)
``spill``  1/s of the spill time: the final spill after the flush
``merge``  the model's map-side merge (``MapTask.mergeParts``)
``shuffle``  reduce shuffle + the reduce task's fixed time
``sort``   reduce merge (the final merge)
``write``  reduce() + writing its output
=========  ============================================================================
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtune.calibration.run_profile import (  # noqa: E402
    job_overhead_ms,
    local_cluster,
    profile_for_run,
    profile_from_run,
    run_config,
)
from mrtune.costmodel import ClusterSpec, ConfigBatch, JobProfile, predict_job  # noqa: E402
from mrtune.costmodel.regression import (  # noqa: E402
    PHASES,
    PredictionErrors,
    RunTimes,
    compare_predictors,
    held_out_regression_predictions,
)
from mrtune.errors import InputError  # noqa: E402
from mrtune.readers.phase_data import (  # noqa: E402
    job_inputs_from_run_record,
    measured_runs_from_records,
    rows_from_run_record,
    rows_to_observations,
)
from mrtune.readers.run_records import RunRecord, read_jsonl  # noqa: E402

DEFAULT_RUNS = Path(__file__).resolve().parent / "results" / "runs-generic.jsonl"
#: The phases a run record is cut into (``mrtune.readers.phase_data.rows_from_run_record``): the
#: long format's ``read`` and ``collect`` are not timed apart in a local run's log.
RECORD_PHASES: tuple[str, ...] = tuple(
    p for p in PHASES if p in ("map", "spill", "merge", "shuffle", "sort", "write")
)


# ------------------------------------------------------------------------- white-box predictor


def whitebox_run_times(
    profile: JobProfile, rec: RunRecord, cluster: ClusterSpec, overhead_ms: float = 0.0
) -> RunTimes:
    """The cost model's per-task phase times of ``rec``, cut as the run record is cut.

    ``profile`` must already describe ``rec``'s job (see :func:`profile_for_run`); the mapping
    of the model's phases is the module docstring's table.
    """
    pred = predict_job(profile, ConfigBatch.from_configs([run_config(rec)]), cluster)
    c = profile.costs
    fixed = c.task_overhead_ms + c.setup_ms + c.cleanup_ms
    sums = {p: 0.0 for p in RECORD_PHASES}
    n_maps = 0.0
    for g in pred.map_groups:  # full and tail splits (and fixed-width records' other full)
        n, res = float(g.count[0]), g.result
        if n <= 0:
            continue
        ph = {k: float(v[0]) for k, v in res.phase_ms.items()}
        s = float(res.spills[0])
        early = (s - 1) / s if s > 1 else 0.0
        sums["map"] += n * (
            ph["read"] + ph["map"] + ph["collect"] + ph["write"] + early * ph["spill"] + fixed
        )
        sums["spill"] += n * (1 - early) * ph["spill"]
        sums["merge"] += n * ph["merge"]
        n_maps += n
    phases = {p: sums[p] / n_maps for p in ("map", "spill", "merge")} if n_maps else {}
    if float(pred.num_reducers[0]) > 0:
        rp = {k: float(v[0]) for k, v in pred.reduce.phase_ms.items()}
        phases["shuffle"] = rp["shuffle"] + fixed
        phases["sort"] = rp["merge"]
        phases["write"] = rp["reduce"] + rp["write"]
    return RunTimes(
        run_id=rec.run_id,
        phases_ms={p: phases[p] for p in RECORD_PHASES if p in phases},
        job_ms=float(pred.job_ms[0]) + overhead_ms,
    )


def calibration_run(train: Sequence[RunRecord]) -> RunRecord:
    """The training run the white-box profile is calibrated on.

    A run at full selectivity (100%, the job's "default"; the highest available otherwise)
    whose input size is closest to the median input size of the training runs; ties go to the
    larger split (fewer, fuller maps: more spill and merge work per task to fit), then the
    median job time, then the run id (deterministic).
    """
    if not train:
        raise InputError("no training runs to calibrate the white-box model on")

    def pct(r: RunRecord) -> float:
        return float({**r.effective_conf, **r.settings}.get("mrtune.selectivity.percent", 100))

    def split(r: RunRecord) -> float:
        conf = {**r.effective_conf, **r.settings}
        return float(conf.get("mapreduce.input.fileinputformat.split.maxsize", 0) or 0)

    top = max(pct(r) for r in train)
    candidates = [r for r in train if pct(r) == top]
    median_size = float(np.median([r.input.bytes for r in train]))
    times = [float(r.job_time_ms or 0) for r in candidates]
    median_time = float(np.median(times))
    return min(
        candidates,
        key=lambda r: (
            abs(r.input.bytes - median_size),
            -split(r),
            abs(float(r.job_time_ms or 0) - median_time),
            r.run_id,
        ),
    )


def _run_order(records: Sequence[RunRecord]) -> np.ndarray:
    """Run ids in the order the regression's split sees them (first row of each run)."""
    rows = [row for r in records for row in rows_from_run_record(r)]
    if not rows:
        raise InputError("no phase rows in the run records")
    return np.asarray(
        list(dict.fromkeys(rows_to_observations(rows).run_id.tolist())), dtype=object
    )


def held_out_folds(
    records: Sequence[RunRecord], folds: int, seed: int
) -> list[tuple[list[RunRecord], list[RunRecord]]]:
    """(training runs, held-out runs) of each fold: the regression's grouped K-fold split."""
    runs = _run_order(records)
    if len(runs) < folds:
        raise InputError(
            f"{len(runs)} runs cannot be split into {folds} held-out folds", field="--folds"
        )
    by_id = {r.run_id: r for r in records}
    splitter = GroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    return [
        ([by_id[x] for x in runs[tr]], [by_id[x] for x in runs[te]])
        for tr, te in splitter.split(runs, groups=runs)
    ]


def held_out_whitebox_predictions(
    records: Sequence[RunRecord], *, folds: int = 5, seed: int = 0
) -> tuple[list[RunTimes], list[str]]:
    """Every run predicted by a white-box profile calibrated on one of its fold's training runs.

    Returns the predictions and the calibration run id of each fold.
    """
    predictions: list[RunTimes] = []
    calibrations: list[str] = []
    for train, test in held_out_folds(records, folds, seed):
        cal = calibration_run(train)
        calibrations.append(cal.run_id)
        profile = profile_from_run(cal)
        cal_pred = predict_job(
            profile, ConfigBatch.from_configs([run_config(cal)]), local_cluster(cal)
        )
        overhead = float(cal.job_time_ms or 0.0) - float(cal_pred.job_ms[0])
        for rec in test:
            carried = profile_for_run(profile, cal, rec)
            predictions.append(whitebox_run_times(carried, rec, local_cluster(rec), overhead))
    return predictions, calibrations


def held_out_regression_with_overhead(
    records: Sequence[RunRecord], regression: Sequence[RunTimes], *, folds: int, seed: int
) -> list[RunTimes]:
    """The regression's predictions with the mean training-run driver overhead on the job."""
    by_id = {p.run_id: p for p in regression}
    out = []
    for train, test in held_out_folds(records, folds, seed):
        ovh = [o for r in train if (o := job_overhead_ms(r)) is not None]
        mean_ovh = float(np.mean(ovh)) if ovh else 0.0
        for rec in test:
            p = by_id.get(rec.run_id)
            if p is not None and p.job_ms is not None:
                out.append(RunTimes(p.run_id, p.phases_ms, p.job_ms + mean_ovh))
    return out


# --------------------------------------------------------------------------------- comparison


def compare(
    records: Sequence[RunRecord], *, folds: int = 5, seed: int = 0
) -> tuple[dict[str, PredictionErrors], list[str]]:
    """Held-out errors of the regression, regression+overhead and white-box predictors."""
    records = [r for r in records if r.success]
    rows = [row for r in records for row in rows_from_run_record(r)]
    if not rows:
        raise InputError("no successful run with phase boundaries")
    observations = rows_to_observations(rows)
    inputs = {r.run_id: job_inputs_from_run_record(r) for r in records}
    regression = held_out_regression_predictions(observations, inputs, folds=folds, seed=seed)
    whitebox, calibrations = held_out_whitebox_predictions(records, folds=folds, seed=seed)
    predictors = {
        "regression": regression,
        "regression+overhead": held_out_regression_with_overhead(
            records, regression, folds=folds, seed=seed
        ),
        "white-box": whitebox,
    }
    return compare_predictors(measured_runs_from_records(records), predictors), calibrations


def _fmt(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x:.1f}"


def print_table(errors: dict[str, PredictionErrors]) -> None:
    """Per phase and per job: RMSE, MAE, MAPE and bias of each predictor, and the winner."""
    names = list(errors)
    head = f"{'phase':8} {'predictor':20} {'n':>3} {'RMSE ms':>9} {'MAE ms':>9} "
    print(head + f"{'MAPE %':>8} {'bias ms':>9}")
    for target in (*RECORD_PHASES, "job"):
        stats = {
            n: (e.job if target == "job" else e.phases.get(target)) for n, e in errors.items()
        }
        if not any(stats.values()):
            continue
        shown = [n for n in names if not (target != "job" and n == "regression+overhead")]
        for n in shown:
            s = stats[n]
            if s is None:
                continue
            print(
                f"{target:8} {n:20} {s.n:3d} {_fmt(s.rmse_ms):>9} {_fmt(s.mae_ms):>9} "
                f"{_fmt(s.mape_pct):>8} {_fmt(s.bias_ms):>9}"
            )
        scored = {n: stats[n] for n in shown if stats[n] is not None}
        best_rmse = min(scored, key=lambda n: scored[n].rmse_ms)
        best_mape = min(scored, key=lambda n: scored[n].mape_pct)
        print(f"{'':8} -> lower RMSE: {best_rmse}; lower MAPE: {best_mape}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path, nargs="?", default=DEFAULT_RUNS)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, default=None, help="write the errors as JSON")
    args = parser.parse_args(argv)
    errors, calibrations = compare(read_jsonl(args.runs), folds=args.folds, seed=args.seed)
    print(f"{args.runs}: {args.folds}-fold held-out by run, seed {args.seed}")
    print("white-box calibration run of each fold: " + ", ".join(calibrations))
    print_table(errors)
    if args.output is not None:
        payload = {
            "calibration_runs": calibrations,
            "errors": {
                n: {
                    "phases": {p: asdict(s) for p, s in e.phases.items()},
                    "job": asdict(e.job) if e.job else None,
                }
                for n, e in errors.items()
            },
        }
        args.output.write_text(json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
