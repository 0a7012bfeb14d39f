"""What ``mrtune --help`` lists: every command, where it lives, and the root options.

Plain data with no import beyond the standard library, so both the Typer app
(:mod:`mrtune.cli._app`) and the fast top-level help (:mod:`mrtune.cli._root_help`) read the same
table and cannot drift apart.
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    """Where a command lives and the one line ``mrtune --help`` shows for it."""

    module: str
    short_help: str


#: Every command, in the order of ``mrtune --help``. ``tests/cli/test_app.py`` checks that each
#: short help is the first line of the command's own help, so the two cannot drift apart.
COMMANDS: dict[str, CommandEntry] = {
    "profile": CommandEntry(
        "profile", "Build a job profile from what the cluster recorded, and say what was measured."
    ),
    "whatif": CommandEntry(
        "whatif",
        "Predict what a configuration change (or new input size or cluster) does to a job.",
    ),
    "optimize": CommandEntry(
        "optimize",
        "Recommend the configuration that minimises the job's predicted time (or resources).",
    ),
    "sweep": CommandEntry(
        "sweep",
        "Predict job time and phase times across one setting's range (one vectorised call).",
    ),
    "batch": CommandEntry(
        "batch", "Tune every job of a catalog: per-job recommendations and one cluster-wide file."
    ),
    "diagnose": CommandEntry(
        "diagnose",
        "Diagnose jobs with Dr. Elephant's heuristics, each finding priced by the what-if model.",
    ),
    "report": CommandEntry(
        "report", "Write one self-contained HTML report of a job: diagnosis, breakdown, settings."
    ),
    "workflow": CommandEntry(
        "workflow", "Completion time of a workflow of MapReduce jobs: basic vs refined model."
    ),
    "fit": CommandEntry(
        "fit", "Fit per-phase regression models to measured phase times (Ceesay et al., sec. V)."
    ),
    "predict-regression": CommandEntry(
        "predict_regression",
        "Predict a job's time by eq. 17 (waves of containers) from a regression model.",
    ),
    "validate": CommandEntry(
        "validate", "Predict real Hadoop runs from one default run per job and measure the error."
    ),
    "hadoop-run": CommandEntry(
        "hadoop",
        "Run a MapReduce job (a project job or any jar) on real Hadoop and record the run.",
    ),
    "hadoop-matrix": CommandEntry(
        "hadoop", "Run a matrix of real-Hadoop runs (resumable) and print per-label medians."
    ),
    "hadoop-summary": CommandEntry(
        "hadoop", "Per-label medians of recorded real-Hadoop runs (spills, counters, times)."
    ),
    "calibrate-machine": CommandEntry(
        "calibrate_machine",
        "Fit this machine's cost factors on a benchmark of real runs (all jointly).",
    ),
    "example": CommandEntry(
        "example",
        "Print the path of a bundled example file (a profile or a workflow), or list them.",
    ),
    "schema": CommandEntry(
        "schema", "Print the JSON schema of a profile, a Hadoop configuration or a cluster file."
    ),
}


#: The app's one-paragraph description (the top of ``mrtune --help``).
ROOT_HELP = "What-if engine and cost-based configuration optimizer for Hadoop MapReduce."


class RootOption(NamedTuple):
    """An option of the ``mrtune`` group itself, as ``mrtune --help`` shows it."""

    flag: str
    #: the type column Typer prints for it (``<bool>``, ``<float range> [1<=x<=...]``)
    type_label: str
    help: str


#: Bounds of ``--max-input-mb`` in MiB (the range in its type label below).
MAX_INPUT_MB_RANGE = (1, 1 << 30)

#: Options of the root callback, in Typer's order (``--help`` last, added by Click).
ROOT_OPTIONS: tuple[RootOption, ...] = (
    RootOption("--debug", "<bool>", "Show the traceback of an internal error (a bug)."),
    RootOption(
        "--max-input-mb",
        "<float range> [{}<=x<={}]".format(*MAX_INPUT_MB_RANGE),
        "Largest input file read, in MiB (default 256; env MRTUNE_MAX_INPUT_MB).",
    ),
    RootOption("--help", "<bool>", "Show this message and exit."),
)
