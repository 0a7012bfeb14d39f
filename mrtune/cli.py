"""The ``mrtune`` command line: one Typer app, one module per command under ``commands/``.

Every expected failure (a :class:`~mrtune.errors.MrtuneError` or a pydantic validation error)
becomes one line on stderr and exit code 2; a traceback is never shown to a user.
"""

from __future__ import annotations

import importlib
import sys

import typer
from pydantic import ValidationError

from mrtune.console import err_console
from mrtune.errors import MrtuneError

app = typer.Typer(
    name="mrtune",
    help="What-if engine and cost-based configuration optimizer for Hadoop MapReduce.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Each module defines ``register(app)``; the order is the order of ``mrtune --help``.
_COMMAND_MODULES = (
    "profile",
    "whatif",
    "optimize",
    "sweep",
    "batch",
    "workflow",
    "fit",
    "validate",
    "fidelity",
    "machine",
    "schema",
)


@app.callback()
def _root() -> None:
    """What-if engine and cost-based configuration optimizer for Hadoop MapReduce."""


for _name in _COMMAND_MODULES:
    try:
        _module = importlib.import_module(f"mrtune.commands.{_name}")
    except ModuleNotFoundError as exc:  # a command whose module is not written yet
        if exc.name != f"mrtune.commands.{_name}":
            raise
        continue
    _module.register(app)


def format_validation_error(exc: ValidationError, source: str | None = None) -> str:
    """One line per problem: where, which field, the value, and what is allowed."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or exc.title
        value = err.get("input")
        msg = err.get("msg", "invalid value")
        prefix = f"{source}: " if source else ""
        lines.append(f"{prefix}{loc}: {msg} (got {value!r})")
    return "; ".join(lines)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except MrtuneError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except ValidationError as exc:
        err_console.print(
            f"[bold red]error:[/] {format_validation_error(exc)}", highlight=False, soft_wrap=True
        )
        sys.exit(2)


if __name__ == "__main__":
    main()
