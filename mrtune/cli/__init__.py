"""The ``mrtune`` command line: one Typer app, one module per command, imported only when run.

``mrtune --help`` lists the commands from :data:`COMMANDS` without importing any of them, so
start-up pays only for Typer and rich; running a command imports its module (and the libraries
it needs) and nothing else. Every expected failure (a :class:`~mrtune.errors.MrtuneError` or a
pydantic validation error) becomes one line on stderr and exit code 2
(:func:`mrtune.cli.console.cli_errors`); anything else is a bug, reported as one line with a
``--debug`` hint and exit code 1 (:func:`main`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any, NamedTuple

import typer
import typer.core
import typer.main


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
        "fit", "Predict a job's time by eq. 17 (waves of containers) from a regression model."
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


class LazyGroup(typer.core.TyperGroup):
    """A Click group that imports a command's module only when that command is looked up."""

    # Typer vendors its own Click (typer._click), so Click's types are not imported here.
    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if ctx.resilient_parsing or _listing_help():
            # ``mrtune --help`` formats every command: show the stored line, import nothing.
            return typer.core.TyperCommand(
                cmd_name, short_help=entry.short_help, help=entry.short_help
            )
        return load_command(cmd_name)

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[no-untyped-def]
        with one_line_usage_errors():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any):  # type: ignore[no-untyped-def]
        with one_line_usage_errors():
            return super().invoke(ctx)


def _click_exceptions() -> Any:
    """The exceptions of the Click that Typer runs on: recent Typer vendors its own copy
    (``typer._click``), whose classes are distinct from the ``click`` package's (which a wheel
    install of mrtune may not have at all)."""
    try:
        from typer._click import exceptions
    except ImportError:  # an older Typer on the click package
        from click import exceptions
    return exceptions


@contextlib.contextmanager
def one_line_usage_errors() -> Iterator[None]:
    """A bad option or argument prints one line (not Typer's usage box) and exits 2."""
    exc_mod = _click_exceptions()
    try:
        yield
    except exc_mod.NoArgsIsHelpError:
        raise
    except exc_mod.ClickException as exc:
        from mrtune.cli.console import print_error

        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        print_error(" ".join(exc.format_message().split()) + hint)
        usage = isinstance(exc, exc_mod.UsageError)
        raise typer.Exit(2 if usage else 1) from None


def _listing_help() -> bool:
    """Whether this process only prints the top-level ``--help`` (no command named)."""
    args = sys.argv[1:]
    return (
        bool(args) and all(a.startswith("-") for a in args) and ("--help" in args or "-h" in args)
    )


def load_command(name: str) -> Any:
    """The Click command ``name``, built from its module's Typer app."""
    module = importlib.import_module(f"mrtune.cli.{COMMANDS[name].module}")
    group = typer.main.get_group(module.app) if len(module.app.registered_commands) > 1 else None
    if group is not None:
        return group.commands[name]
    return typer.main.get_command(module.app)


app = typer.Typer(
    name="mrtune",
    help="What-if engine and cost-based configuration optimizer for Hadoop MapReduce.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=LazyGroup,
)


@app.callback()
def _root(
    debug: bool = typer.Option(
        False, "--debug", help="Show the traceback of an internal error (a bug)."
    ),
    max_input_mb: float | None = typer.Option(
        None,
        "--max-input-mb",
        min=1,
        max=1 << 30,
        help="Largest input file read, in MiB (default 256; env MRTUNE_MAX_INPUT_MB).",
    ),
) -> None:
    """What-if engine and cost-based configuration optimizer for Hadoop MapReduce."""
    if debug:
        os.environ["MRTUNE_DEBUG"] = "1"
    if max_input_mb is not None:
        os.environ["MRTUNE_MAX_INPUT_MB"] = repr(max_input_mb)


def main() -> None:
    """Console-script entry point: user errors exit 2 (one line), bugs exit 1 (one line)."""
    # pydantic looks for third-party validation plugins (an entry-point scan of every
    # installed distribution, ~40 ms of each command's start) before it builds its first
    # model; the command-line tool has none to run. A user who wants them sets the variable.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # One BLAS thread: the model is element-wise numpy on arrays of configurations (no large
    # matrix products), and the batch runs one process per core. OpenBLAS's own thread pool
    # only adds its start-up and the spin-wait of idle threads after each call: 0.1-0.4 s of
    # CPU per command measured here (`whatif` 1.0 s -> 0.58 s), and oversubscribed cores under
    # `batch --workers`. Set before numpy is first imported; a user's own setting wins.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    from mrtune.cli.console import report_bug, report_user_error

    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the one place every failure is turned into a line
        if report_user_error(exc):
            sys.exit(2)
        if os.environ.get("MRTUNE_DEBUG") or "--debug" in sys.argv:
            raise
        report_bug(exc)
        sys.exit(1)


if __name__ == "__main__":
    main()
