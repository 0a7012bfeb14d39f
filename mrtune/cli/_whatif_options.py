"""The options of ``mrtune whatif``, declared once as module constants.

Why a module of its own: declared inline, the options were 40 of the command's ~100 lines;
as constants (the idiom of ``_inputs`` and ``_confidence``) the command reads as parse →
call → render, and its ``--help`` is unchanged.
"""

from __future__ import annotations

import typer

from mrtune.cli.console import OutputFormat
from mrtune.optimizer.confidence import SAMPLES

SET__OPT = typer.Option(
    [], "--set", help="A change, property=value (Hadoop 2/3 or 1 names); repeatable."
)
INPUT_SIZE_OPT = typer.Option(None, "--input-size", help="New total input size, e.g. 2TB, 500GiB.")
CONF_OPT = typer.Option(
    None,
    "--conf",
    help="With a history: the job's *_conf.xml. With a saved profile (JSON): a "
    "configuration to replay as the what-if (e.g. a Starfish recommendation).",
)
TIMELINE_OPT = typer.Option(
    None, "--timeline", help="Write a Gantt PNG of the what-if job (task simulation)."
)
ALLOW_UNKNOWN_OPT = typer.Option(
    False,
    "--allow-unknown",
    help="Pass through a --set property the model does not read (it cannot move the "
    "prediction) instead of refusing it.",
)
SAMPLES_OPT = typer.Option(
    SAMPLES,
    "--samples",
    min=0,
    max=4096,
    help="Evidence samples behind the speedup's interval (bootstrap of the observed "
    "tasks × priors of the defaulted cost factors); 0: no interval (skips loading the "
    "fitting code, ~0.3 s).",
)
SEED_OPT = typer.Option(0, "--seed", help="Seed of the evidence sampling.")
FMT_OPT = typer.Option(OutputFormat.text, "--format", help="text or json")
