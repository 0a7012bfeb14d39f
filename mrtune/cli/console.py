"""Shared rich console and JSON emission for every CLI command."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Any

from rich.console import Console
from rich.table import Table


class _Console(Console):
    """A console whose tables wrap a long cell instead of cutting it to ``name…``.

    In an 80-column terminal rich shrinks a wide table's columns and, by default, ends a cell
    that no longer fits with an ellipsis: job names became ``line…``. Every table mrtune prints
    folds such cells onto more lines instead, so no name or value is lost.
    """

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for obj in objects:
            if isinstance(obj, Table):
                for column in obj.columns:
                    if column.overflow == "ellipsis" and not column.no_wrap:
                        column.overflow = "fold"
        super().print(*objects, **kwargs)


console = _Console()
err_console = _Console(stderr=True)


def working(message: str) -> Any:
    """A spinner on stderr while a step that can take seconds runs (nothing when not a TTY).

    Every command whose work can exceed ~2 s shows one, so a user never waits on a silent
    terminal; stdout (tables, JSON) is untouched.
    """
    from rich.markup import escape

    return err_console.status(escape(message), spinner="dots")


class OutputFormat(StrEnum):
    """How a command prints its result: rich tables for people, JSON for scripts."""

    text = "text"
    json = "json"


def _default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    return str(obj)


def emit_json(obj: Any) -> None:
    """Write ``obj`` as indented JSON on stdout (numpy arrays and pydantic models allowed).

    NaN and infinities are not JSON and are never a right answer: the document is checked
    first, and a non-finite number is reported (one line naming where) instead of printed.
    """
    text = json.dumps(obj, default=_default)  # allow_nan: find the field, then refuse it
    data = json.loads(text)
    bad = _non_finite(data)
    if bad is not None:
        from mrtune.errors import MrtuneError

        raise MrtuneError(
            f"refusing to print a non-finite number at {bad}: the inputs are beyond the "
            "range the model can answer for"
        )
    sys.stdout.write(json.dumps(data, indent=2, allow_nan=False) + "\n")


def _non_finite(obj: Any, where: str = "$") -> str | None:
    import math

    stack = [(obj, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, f"{at}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            return at
    return None


def format_validation_error(exc: Any, source: str | None = None) -> str:
    """One line per problem of a pydantic error: where, which field, the value, what is allowed."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or exc.title
        value = err.get("input")
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        prefix = f"{source}: " if source else ""
        # a model-level error's input is the whole document: naming it helps nobody
        shown = "" if isinstance(value, dict | list) else f" (got {_short(value)})"
        lines.append(" ".join(f"{prefix}{loc}: {msg}{shown}".split()))
    return "; ".join(lines)


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_validation_error(exc: BaseException) -> bool:
    """A pydantic ``ValidationError``, checked without importing pydantic at start-up."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(exc, pydantic.ValidationError)


#: Library errors name the value that is wrong (``InputError.field``); where that value came from
#: a command-line flag, the message names the flag instead (only the CLI knows its flags).
FLAG_FOR_FIELD = {
    "scheduler": "--scheduler",
    "workers": "--workers",
    "source format": "--from",
    "JobHistory server URL": "--jhs",
    "job id": "--job",
    "calibration run": "--calibrate",
    "setting": "--set",
    "timeout": "--timeout",
}


def user_error_line(exc: BaseException) -> str | None:
    """The one line for an expected failure, or ``None`` when ``exc`` is not one (a bug)."""
    from mrtune.errors import InputError, MrtuneError

    if isinstance(exc, InputError) and exc.field in FLAG_FOR_FIELD:
        return exc.relabeled(FLAG_FOR_FIELD[exc.field])
    if isinstance(exc, MrtuneError):
        return str(exc)
    if _is_validation_error(exc):
        return format_validation_error(exc)
    return None


def print_error(text: str) -> None:
    """``error: text`` on stderr; ``text`` is printed literally, never parsed as rich markup."""
    from rich.markup import escape

    err_console.print(f"[bold red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)


def report_user_error(exc: BaseException) -> bool:
    """Print an expected failure as one line; ``False`` when ``exc`` is a bug."""
    line = user_error_line(exc)
    if line is None:
        return False
    print_error(line)
    return True


def report_bug(exc: BaseException) -> None:
    """One line for an unexpected exception: it is a bug; ``--debug`` shows the traceback."""
    tb = exc.__traceback__
    where = ""
    while tb is not None:
        where = f" at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
        tb = tb.tb_next
    print_error(
        f"internal error (a bug in mrtune): {type(exc).__name__}: {exc}{where}; "
        "run again with --debug for the traceback"
    )


#: Parameters naming a file a command writes, and their option (``outdir``: a directory).
OUTPUT_PARAMS = {
    "output": "-o",
    "outdir": "-o",
    "plot": "--plot",
    "timeline": "--timeline",
}


#: Commands whose ``-o`` may name a folder to write into (``example -o DIR`` copies there).
DIR_OUTPUT_COMMANDS = frozenset({"example_cmd"})


def check_output_paths(kwargs: dict[str, Any], dir_ok: bool = False) -> None:
    """Refuse, before any work, an output the command could not write: its folder missing or
    read-only, or a file output that is a directory. (They were found after the search, as an
    internal error, the result lost.) An output directory, and the folder of a plot (whose
    writers create it or say why not), may be made below an existing writable folder."""
    import os
    from pathlib import Path

    from mrtune.errors import InputError

    for name, option in OUTPUT_PARAMS.items():
        value = kwargs.get(name)
        if not isinstance(value, Path):
            continue
        if name != "outdir" and value.is_dir() and not dir_ok:
            raise InputError("is a directory: give a file name", path=str(value), field=option)
        if name == "outdir":
            continue  # batch checks its output folder itself (check_outdir), first thing
        folder = value if name == "outdir" and value.is_dir() else value.parent
        if name in ("outdir", "plot"):  # created below an existing folder (plot: by its writer)
            while not folder.exists() and folder != folder.parent:
                folder = folder.parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            why = "does not exist" if not folder.exists() else "is not a writable directory"
            raise InputError(
                f"cannot write here: the folder {folder} {why}",
                path=str(value),
                field=option,
            )


def cli_errors(func):  # type: ignore[no-untyped-def]
    """Decorate a Typer command so expected failures print one line and exit with code 2.

    Used on every command (not only in ``main``) so that ``CliRunner`` tests see the same
    behaviour as the installed console script.
    """
    import functools

    import typer

    @functools.wraps(func)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            check_output_paths(kwargs, dir_ok=func.__name__ in DIR_OUTPUT_COMMANDS)
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:
            if report_user_error(exc):
                raise typer.Exit(2) from None
            raise

    return wrapper


#: ``--strict`` of every command that uses a profile (:func:`warn_calibration`).
STRICT_HELP = "Refuse a profile whose calibration failed (exit 2) instead of warning."


def strict_option():  # type: ignore[no-untyped-def]
    """The ``--strict`` option (a fresh ``typer.Option`` per command)."""
    import typer

    return typer.Option(False, "--strict", help=STRICT_HELP)


def calibration_brief(profile: Any) -> dict[str, str] | None:
    """The profile's calibration check for a ``--format json`` document
    (:meth:`~mrtune.costmodel.profile.CalibrationCheck.brief`; ``None``: never checked)."""
    check = getattr(profile, "calibration", None)
    if check is None:
        return None
    brief = check.brief()
    if (miss := _job_model_line(profile)) is not None:
        brief["job_model"] = miss
    return brief


def _job_model_line(profile: Any) -> str | None:
    """:func:`~mrtune.calibration.self_check.job_model_miss` of a profile (None for anything
    without cluster facts, e.g. a workflow job's hand-written stand-in)."""
    from mrtune.calibration.self_check import job_model_miss

    return job_model_miss(profile) if hasattr(profile, "cluster_facts") else None


def _warn_job_model(profile: Any) -> None:
    """The job model's miss of the run's task span, when large (one line, stderr)."""
    line = _job_model_line(profile)
    if line is not None:
        from rich.markup import escape

        err_console.print(
            f"[bold yellow]warning:[/] {escape(f'{profile.job_id}: {line}')}",
            highlight=False,
        )


def warn_calibration(profile: Any, strict: bool = False) -> None:
    """Say on stderr (wrapped to the terminal, as every warning) that ``profile``'s
    calibration missed its own observed phase times (``JobProfile.calibration``, issue 20);
    with ``strict``, make it an error (exit 2): an error stays one line.

    Predictions from such a profile rest on cost factors that do not reproduce the job's own
    run, so no command may use one silently (DESIGN decision 10).
    """
    _warn_job_model(profile)
    if not getattr(profile, "calibration_failed", False):
        return
    line = f"{profile.job_id}: {profile.calibration.summary()}"
    if strict:
        from mrtune.errors import InputError

        raise InputError(line + " (--strict)")
    from rich.markup import escape

    err_console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False)
