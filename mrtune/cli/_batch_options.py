"""The options of ``mrtune batch``, declared once as module constants.

Why a module of its own: declared inline, the options were a third of the command's ~110
lines; as constants the command reads as parse → call → render, and ``--help`` is unchanged.
"""

from __future__ import annotations

import typer

from mrtune.cli._inputs import DEFAULT_NODES
from mrtune.cli.console import OutputFormat

CATALOG_ARG = typer.Argument(
    ...,
    help="Directories of .jhist (+ _conf.xml beside them), SWIM traces (.tsv), JSONL "
    "files of profiles, Rumen traces, hadoop-run's runs.jsonl, saved REST responses, or a "
    "mix.",
)
OUTDIR_OPT = typer.Option(..., "-o", "--outdir", help="Output directory.")
WORKERS_OPT = typer.Option(
    None, "--workers", min=1, help="Local worker processes (default: one per CPU)."
)
SCHEDULER_OPT = typer.Option(
    None, "--scheduler", help="Dask scheduler address, e.g. tcp://host:8786."
)
OBJECTIVE_OPT = typer.Option(
    "time", "--objective", help="time (job time) or resources (container GB·s)."
)
RESUME_OPT = typer.Option(
    False, "--resume", help="Continue an earlier batch: finished jobs are not recomputed."
)
OVERWRITE_OPT = typer.Option(
    False, "--overwrite", help="Discard the stored results of an earlier batch."
)
BASE_PROFILE_OPT = typer.Option(
    None,
    "--base-profile",
    help="Profile JSON whose statistics and cost factors SWIM rows use.",
)
NODES_OPT = typer.Option(
    DEFAULT_NODES, "--nodes", min=1, help="Worker nodes of the cluster the jobs run on."
)
DB_OPT = typer.Option(None, "--db", help="SQLite results file (default OUTDIR/batch.sqlite).")
PLOTS_OPT = typer.Option(True, "--plots/--no-plots", help="Write the PNG plots.")
HTML_OPT = typer.Option(False, "--report", help="Also write OUTDIR/report.html.")
FMT_OPT = typer.Option(OutputFormat.text, "--format", help="text or json")
HADOOP_VERSION_OPT = typer.Option(
    None,
    "--hadoop-version",
    help="The cluster's Hadoop release (e.g. 2.7.3, 3.3.6): the codecs it ships and the "
    "property names written; default: each job's history (SWIM rows: Hadoop 3).",
)
OUTPUT_COMPRESSION_OPT = typer.Option(
    False,
    "--output-compression",
    help="Let the cluster-wide file change job-output compression (it changes the files "
    "every downstream reader gets; per-job recommendations offer it regardless).",
)
STRICT_OPT = typer.Option(
    False,
    "--strict",
    help="Skip (with the reason counted) every job whose calibration failed, instead of "
    "tuning it with a warning.",
)
INCLUDE_LOW_OPT = typer.Option(
    False,
    "--include-low-confidence",
    help="Let each job's file and the cluster-wide file move a size or count beyond x4 of "
    "its current value (optimize's far-move rule).",
)
