"""Shared rich console and JSON emission for every CLI command."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Any

from rich.console import Console

console = Console()
err_console = Console(stderr=True)


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
    """Write ``obj`` as indented JSON on stdout (numpy arrays and pydantic models allowed)."""
    sys.stdout.write(json.dumps(obj, indent=2, default=_default, allow_nan=False) + "\n")


def cli_errors(func):  # type: ignore[no-untyped-def]
    """Decorate a Typer command so expected failures print one line and exit with code 2.

    Used on every command (not only in ``main``) so that ``CliRunner`` tests see the same
    behaviour as the installed console script.
    """
    import functools

    import typer
    from pydantic import ValidationError

    from mrtune.errors import MrtuneError

    @functools.wraps(func)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return func(*args, **kwargs)
        except MrtuneError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except ValidationError as exc:
            from mrtune.cli import format_validation_error

            err_console.print(
                f"[bold red]error:[/] {format_validation_error(exc)}",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(2) from None

    return wrapper
