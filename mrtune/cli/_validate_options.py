"""The options of ``mrtune validate``, declared once as ``Annotated`` aliases.

Why a module of its own: declared inline, the options were most of the command's ~90 lines
(the idiom of ``_whatif_options`` and the other ``_<command>_options`` modules); the command
then reads as parse → call → render, and its ``--help`` is unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mrtune.cli.console import OutputFormat

RUNS_ARG = Annotated[
    Path,
    typer.Argument(
        exists=True,
        dir_okay=False,
        help="Run records (.jsonl/.json), or the runs.jsonl of `hadoop-run --mode yarn`.",
    ),
]
CALIBRATE_OPT = Annotated[
    list[str] | None,
    typer.Option(
        "--calibrate",
        help="Calibration run per job: LABEL or LABEL:REPEAT (repeatable). Default: "
        "<job>-default (the project's jobs: wc-, sort-, sel-, pst-default; a hadoop-run --jar "
        "job: its main class's simple name, lower-cased, e.g. sensorstats-default), the "
        "repeat with the median job time.",
    ),
]
MEASURE_CODECS_OPT = Annotated[
    bool,
    typer.Option(
        "--measure-codecs",
        help="Take codec ratios from the records' compressed runs (else priors).",
    ),
]
CODEC_RUNS_OPT = Annotated[
    list[Path] | None,
    typer.Option(
        "--codec-runs",
        help="YARN histories: run records of the same jobs and data whose compressed "
        "runs give the codec ratios (never the scored label; else priors).",
    ),
]
REDUCE_FIXED_MS_OPT = Annotated[
    float | None,
    typer.Option(
        "--reduce-fixed-ms",
        min=0.0,
        max=600_000.0,
        help="YARN histories: each reduce's fixed wall time after its merge (task "
        "commit, HDFS output), if measured on other runs; default: from the calibration "
        "history (else a 1 s canCommit-poll prior); 0: no such term.",
    ),
]
TIMES_OPT = Annotated[
    str,
    typer.Option(
        "--times",
        help="Reduce repeats by 'median' (default) or 'min' (least disturbed run).",
    ),
]
MACHINE_OPT = Annotated[
    Path | None,
    typer.Option(
        "--machine",
        dir_okay=False,
        help="Machine cost file (mrtune calibrate-machine): each job's run then "
        "refits only its own map/reduce/combine costs; for YARN histories, its per-spill "
        "and per-segment costs are the fit's priors.",
    ),
]
FORMAT_OPT = Annotated[OutputFormat, typer.Option("--format")]
OUTPUT_OPT = Annotated[
    Path | None, typer.Option("-o", "--output", help="Write the JSON report here.")
]
