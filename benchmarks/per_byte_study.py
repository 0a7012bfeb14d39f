"""Per-byte vs per-record CPU on held-out record widths (issue 20 item 4).

The machine benchmark (``benchmarks/results/runs-machine.jsonl``) runs the generic job with
map output records of 21, 100 and 413 bytes. Each width is left out in turn: the machine's
cost factors are fitted on the other two widths' runs, per record only and with the
per-byte CPU factors (``mrtune.calibration.cost_units``), and the left-out width's runs are
predicted two ways:

* **direct**: each run's own dataflow (its counters) at the fitted machine costs, nothing
  refitted on that width: the per-phase and summed-task errors say which pricing transfers
  to a width no fit saw;
* **as a user does**: the job calibrated on one run of that width (its defaults-like run,
  the machine's factors as its prior, only the job's own factors refitted) and every other
  run of that width predicted (``mrtune.calibration.fidelity.build_report``, the fidelity
  report's figures).

Run from the repository root (about 10 minutes of CPU)::

    python benchmarks/per_byte_study.py -o benchmarks/results/per-byte-study.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtune.calibration._fidelity_figures import (  # noqa: E402
    PHASES,
    measured_phases,
    predicted_phases,
)
from mrtune.calibration.fidelity import build_report  # noqa: E402
from mrtune.calibration.machine import fit_machine_from_runs  # noqa: E402
from mrtune.calibration.machine_costs import MachineCosts  # noqa: E402
from mrtune.calibration.run_profile import local_cluster, profile_from_run, run_config  # noqa: E402
from mrtune.costmodel import ConfigBatch, predict_job  # noqa: E402
from mrtune.costmodel.profile import PER_BYTE_FACTORS  # noqa: E402
from mrtune.readers.run_records import RunRecord, read_jsonl  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: Each width's calibration run for the user's protocol: Hadoop's defaults but the width
#: (sort buffer 100 MB, input buffer 0, shuffle buffer 0.70, one reducer).
CALIBRATION = {
    21: "mach-narrow-rec64m-mb=100-percent=0.0",
    100: "mach-reduce-rec64m-percent=0.7-percent=0.0-reduces=1",
    413: "mach-wide-rec64m-mb=100-percent=0.0",
}


def width(rec: RunRecord) -> int:
    """The run's map output bytes per record (rounded)."""
    c = rec.counters.get("org.apache.hadoop.mapreduce.TaskCounter", {})
    return round(c["MAP_OUTPUT_BYTES"] / c["MAP_OUTPUT_RECORDS"])


#: Phases shorter than this (ms) are left out of the median relative error: a 5 ms merge
#: predicted as 0 is the clock's noise (``CALIBRATION_FLOOR_MS``), not a 100% miss.
FLOOR_MS = 50.0


def direct(runs: list[RunRecord], mc: MachineCosts, overhead_ms: float) -> dict[str, Any]:
    """Each run's own dataflow at the machine costs: per phase (with the machine's JVM
    warm-up on the first attempts), the summed task time and the job time (the model's plus
    ``overhead_ms``, the training runs' median time outside the model): the relative error
    of the sums over the runs, and the median relative error over the runs where the
    phase took :data:`FLOOR_MS` or more."""
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in runs:
        p = profile_from_run(r, calibrate=False)
        p = mc.apply_codecs(p).model_copy(update={"costs": mc.costs})
        pred = predict_job(p, ConfigBatch.from_configs([run_config(r)]), local_cluster(r))
        pp, mp = predicted_phases(pred, p), measured_phases(r)
        for k in PHASES:  # the first map's and reduce's JIT time in the shared JVM
            pp[k] += mc.warmup_ms.get(k, 0.0)
        for k in PHASES:
            pairs[k].append((pp[k], mp.get(k, 0.0)))
        tasks = sum(mp.get(k, 0.0) for k in PHASES)
        pairs["tasks"].append((sum(pp[k] for k in PHASES), tasks))
        pairs["job"].append((pp["job"] + overhead_ms, mp["job"]))
    out = {}
    for k, v in pairs.items():
        rel = [(a - b) / b for a, b in v if b >= FLOOR_MS]
        out[k] = {
            "sum_error": (sum(a for a, _ in v) - sum(b for _, b in v)) / sum(b for _, b in v),
            "median": statistics.median(rel) if rel else None,
            "median_abs": statistics.median(abs(x) for x in rel) if rel else None,
            "n": len(rel),
        }
    return out


def outside_model_ms(runs: list[RunRecord], mc: MachineCosts) -> float:
    """Median over ``runs`` of the job time less the model's job time at the machine costs."""
    out = []
    for r in runs:
        p = profile_from_run(r, calibrate=False).model_copy(update={"costs": mc.costs})
        pred = predict_job(
            mc.apply_codecs(p), ConfigBatch.from_configs([run_config(r)]), local_cluster(r)
        )
        out.append(float(r.job_time_ms or 0.0) - float(pred.job_ms[0]))
    return statistics.median(out)


def user_flow(runs: list[RunRecord], mc: MachineCosts, w: int) -> dict[str, Any]:
    """The fidelity report's figures for width ``w``'s runs, calibrated on its default run."""
    s = build_report(runs, [CALIBRATION[w]], measure_codecs=True, machine=mc).summary()
    keep = (
        "runs",
        "job_time_median_abs_error",
        "job_time_p90_abs_error",
        "job_time_median_signed_error",
        "spearman",
        "phase_error_median_ms",
    )
    return {k: s[k] for k in keep if k in s}


def held_out(runs: list[RunRecord], w: int) -> dict[str, Any]:
    """Width ``w`` left out of both fits (per record, per byte): its figures under each."""
    train = [r for r in runs if width(r) != w]
    test = [r for r in runs if width(r) == w]
    out: dict[str, Any] = {"train_runs": len(train), "test_runs": len(test)}
    for name, per_byte in (("per_record", False), ("per_byte", True)):
        t0 = time.process_time()
        mc = fit_machine_from_runs(train, source=f"widths other than {w}", per_byte=per_byte)
        out[name] = {
            "factors": {f: getattr(mc.costs, f) for f in (*PER_BYTE_FACTORS, "serde_cpu")},
            "direct": direct(test, mc, outside_model_ms(train, mc)),
            "user_flow": user_flow(test, mc, w),
            "fit_cpu_s": time.process_time() - t0,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path, nargs="?", default=RESULTS / "runs-machine.jsonl")
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--widths", type=int, nargs="*", default=sorted(CALIBRATION))
    args = parser.parse_args(argv)
    runs = [r for r in read_jsonl(args.runs) if r.success]
    report = {str(w): held_out(runs, w) for w in args.widths}
    for w, res in report.items():
        for name in ("per_record", "per_byte"):
            d, u = res[name]["direct"], res[name]["user_flow"]
            phases = " ".join(f"{k.split('.')[1][:5]} {d[k]['sum_error']:+.0%}" for k in PHASES)
            print(
                f"width {w:>4} {name:<10} direct: {phases} tasks {d['tasks']['sum_error']:+.1%}"
                f" job |{d['job']['median_abs']:.1%}| | user: job median "
                f"{u['job_time_median_abs_error']:.1%} p90 {u['job_time_p90_abs_error']:.1%}"
            )
    if args.output is not None:
        args.output.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
