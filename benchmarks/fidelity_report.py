"""Print the cost model's fidelity report for the committed real-Hadoop runs (issue 5).

The committed reports are made (from the repository root) by::

    R=benchmarks/results
    P=$R/runs-codec-probe.jsonl     # the codec probe runs (counters only, never scored)
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl $P -o $R/fidelity-report.json
    # the matrix and the list-building-combiner job together (issue 20's byte goal)
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl $R/runs-postings.jsonl $P \
        -o $R/fidelity-report-matrix-postings.json
    # the machine benchmark's cost factors (codec CPU included) with the probe's ratios
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl $P \
        --machine $R/machine-costs.json -o $R/fidelity-report-machine.json
    # codec ratios from other compressed runs instead of the probe (leave-one-label-out)
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl --measure-codecs \
        -o $R/fidelity-report-measured-codecs.json
    # the generic benchmark's 80 runs (other inputs, sizes, splits, selectivities), predicted
    # from the matrix's one default selectivity run
    python benchmarks/fidelity_report.py $R/runs-matrix.jsonl $R/runs-generic-quiet.jsonl $P \
        --calibrate sel-default --only-job selectivity -o $R/fidelity-report-generic.json
    # the list-building-combiner job (issue 20 item 7)
    python benchmarks/fidelity_report.py $R/runs-postings.jsonl $P \
        -o $R/fidelity-report-postings.json
    # per-byte vs per-record CPU (issue 20 item 4): the machine fitted both ways, then any
    # report above with --machine; the summary's by_map_output_width gives the errors by
    # record width (benchmarks/per_byte_study.py leaves each width out of the fit instead)
    mrtune calibrate-machine $R/runs-machine.jsonl -o per-record.json
    mrtune calibrate-machine $R/runs-machine.jsonl --per-byte -o per-byte.json

Each job's profile is calibrated on one run at Hadoop's defaults (``<job>-default``, the
repeat with the median job time) and every other configuration is predicted
(``mrtune.calibration.fidelity``; the same as ``mrtune validate RUNS.jsonl``). The calibration
run compresses nothing, and a codec's ratio is a property of the data, so the codec ratios come
from the codec probe runs (``mrtune/harness/matrices/codec-probe.yaml``: a separate run at
defaults with ``mrtune.codec.probe=true``, whose counters hold every codec's compressed IFile
bytes on the job's own map output, combined and as emitted); the summary's
``codec_ratios_scored`` says which runs were scored with measured ratios. Without the probe
records, documented priors are used. ``--measure-codecs`` takes a ratio the probe lacks from
the records' other compressed runs of the same data (leave-one-label-out); a codec neither
measured stays on its prior and is listed in ``codec_runs_on_priors``.
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
from mrtune.profiling.codecs import is_probe_run  # noqa: E402
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
            # a codec probe run measures the data, whichever job made it (sort's probe is
            # the selectivity job's: the same records file and map output width)
            if args.only_job is None or rec.job == args.only_job or is_probe_run(rec.settings)
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
