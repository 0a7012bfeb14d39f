"""The options of ``mrtune optimize``, declared once as module constants.

Why a module of its own: ``optimize`` takes ~30 options, and declared inline they made the
command ~170 lines of which 90 were its signature. As constants (the idiom of ``_inputs`` and
``_confidence``) the command reads as parse → call → render, and its ``--help`` is unchanged.
"""

from __future__ import annotations

import typer

from mrtune.cli.console import OutputFormat
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.strategies import DEFAULT_PARETO_STRATEGY, DEFAULT_STRATEGY, STRATEGY_NAMES

STRATEGY_OPT = typer.Option(
    None,
    "--strategy",
    help=f"One of: {', '.join(STRATEGY_NAMES)}. Default: {DEFAULT_STRATEGY}, or "
    f"{DEFAULT_PARETO_STRATEGY} for --objective pareto.",
)
TRIALS_OPT = typer.Option(
    None,
    "--trials",
    min=1,
    help="Search budget (trials); default: the strategy's own (tpe 32, de 3000, …).",
)
OBJECTIVE_OPT = typer.Option(
    ObjectiveKind.robust,
    "--objective",
    help="robust (p90 of the job time over the evidence samples), time (point "
    "prediction), resources (GB·s) or pareto",
)
SEED_OPT = typer.Option(0, "--seed", help="Seed of every random choice.")
STORAGE_OPT = typer.Option(
    None,
    "--storage",
    help="Persist the Optuna study: a SQLite file or any SQLAlchemy URL (e.g. "
    "postgresql://…). Default: in memory, nothing written.",
)
STUDY_NAME_OPT = typer.Option(None, "--study-name", help="Stored study name.")
RESUME_OPT = typer.Option(False, "--resume", help="Continue the stored study.")
MAX_TIME_OPT = typer.Option(
    None,
    "--max-time",
    help="pareto: recommend the cheapest front point finishing within this (e.g. 5min, "
    "90s); default: the front's knee.",
)
MAX_RESOURCES_OPT = typer.Option(
    None,
    "--max-resources",
    help="pareto: recommend the fastest front point using at most this many container "
    "GB·s (e.g. 200GB·s, 200GBs, 3GB·h).",
)
PLOT_OPT = typer.Option(
    None,
    "--plot",
    help="Write Optuna's plots as PREFIX-history.png, PREFIX-importance.png and (pareto) "
    "PREFIX-pareto.png.",
)
ALLOW_MEMORY_OPT = typer.Option(
    False, "--allow-memory", help="Also tune container memory (map/reduce memory.mb)."
)
CODECS_OPT = typer.Option(
    None,
    "--codecs",
    help="The cluster's codecs (io.compression.codecs: class or short names, commas); "
    "default: the job conf's list.",
)
ALLOW_NATIVE_CODECS_OPT = typer.Option(
    False,
    "--allow-native-codecs",
    help="Also offer codecs that need libhadoop (ZStandard; Snappy/Lz4 before 3.3.1).",
)
SPACE_OPT = typer.Option(
    "mrtune",
    "--space",
    help="mrtune (its own knobs and ranges) or starfish (Starfish 0.2.0's parameters and "
    "ranges only, Hadoop 1 names: a like-for-like comparison).",
)
ONLY_OPT = typer.Option([], "--only", help="Tune only these settings.")
EXCLUDE_OPT = typer.Option([], "--exclude", help="Never change these settings.")
OUTPUT_COMPRESSION_OPT = typer.Option(
    False,
    "--output-compression",
    help="Also tune the job's output compression (it changes the files every downstream "
    "reader gets, so off unless asked; batch's per-job recommendations offer it "
    "regardless, its cluster-wide file only with the same flag).",
)
OUTPUT_OPT = typer.Option(
    None, "-o", "--output", help="Write the changed properties as mapred-site.xml."
)
EMIT_OPT = typer.Option("xml", "--emit", help="What -o writes: xml, flags, hive, pig or json.")
NAMES_OPT = typer.Option(
    None,
    "--names",
    help="Property names: hadoop2 or hadoop1 (0.20); default: the job's Hadoop version.",
)
FORMAT_OPT = typer.Option(OutputFormat.text, "--format", help="text or json")
