"""Print the cost model's fidelity report for the committed real-Hadoop runs (issue 5).

The committed reports are made (from the repository root) by::

    R=benchmarks/results
    python benchmarks/fidelity_report.py -o $R/fidelity-report.json     # runs-matrix.jsonl
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl --measure-codecs \
        -o $R/fidelity-report-measured-codecs.json
    # the generic benchmark's 80 runs (other inputs, sizes, splits, selectivities), predicted
    # from the matrix's one default selectivity run
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl $R/runs-generic-quiet.jsonl \
        --calibrate sel-default --only-job selectivity -o $R/fidelity-report-generic.json
    # the list-building-combiner job (issue 20 item 7)
    python benchmarks/fidelity_report.py $R/runs-postings.jsonl -o $R/fidelity-report-postings.json

Each job's profile is calibrated on one run at Hadoop's defaults (``<job>-default``, the
repeat with the median job time) and every other configuration is predicted
(``mrtune.calibration.fidelity``; the same as ``mrtune validate RUNS.jsonl``). The first report uses
documented codec priors (the calibration run compresses nothing): its byte goal is expected to
miss on compressed runs, and the summary's ``codec_ratios_scored`` says so. ``--measure-codecs``
takes each codec's ratio from the records' other compressed runs of the same data
(leave-one-label-out); a codec no other run used stays on its prior and is listed in
``codec_runs_on_priors``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtune.calibration.fidelity import build_report  # noqa: E402
from mrtune.calibration.machine_costs import MachineCosts  # noqa: E402
from mrtune.cli.validate import finite, print_report  # noqa: E402
from mrtune.readers.run_records import read_jsonl  # noqa: E402

DEFAULT_RUNS = Path(__file__).resolve().parent / "results" / "runs-matrix.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "runs", type=Path, nargs="*", default=[DEFAULT_RUNS], help="run record files (JSONL)"
    )
    parser.add_argument("--calibrate", action="append", default=[], help="LABEL or LABEL:REPEAT")
    parser.add_argument("--measure-codecs", action="store_true")
    parser.add_argument("--times", choices=("median", "min"), default="median")
    parser.add_argument("--only-job", default=None, help="keep only this job's runs")
    parser.add_argument(
        "--machine", type=Path, default=None, help="machine cost file (mrtune calibrate-machine)"
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="write the JSON report")
    args = parser.parse_args(argv)
    report = build_report(
        [
            rec
            for path in args.runs
            for rec in read_jsonl(path)
            if args.only_job is None or rec.job == args.only_job
        ],
        args.calibrate,
        measure_codecs=args.measure_codecs,
        times=args.times,
        machine=MachineCosts.load(args.machine) if args.machine else None,
    )
    print_report(report)
    if args.output is not None:
        args.output.write_text(json.dumps(finite(report.to_json()), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
