"""The Typer app behind ``mrtune``: a lazy group that imports a command's module only when run.

Kept out of :mod:`mrtune.cli`'s ``__init__`` so the console script can print the top-level help
(:mod:`mrtune.cli._root_help`) without importing Typer, whose rich help formatter alone pulls in
rich.markdown, markdown-it and pygments (~0.2 s of CPU).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import typer
import typer.core
import typer.main

from mrtune.cli._commands import COMMANDS, MAX_INPUT_MB_RANGE, ROOT_HELP, ROOT_OPTIONS

_OPTION_HELP = {o.flag: o.help for o in ROOT_OPTIONS}


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
    help=ROOT_HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=LazyGroup,
)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help=_OPTION_HELP["--debug"]),
    max_input_mb: float | None = typer.Option(
        None,
        "--max-input-mb",
        min=MAX_INPUT_MB_RANGE[0],
        max=MAX_INPUT_MB_RANGE[1],
        help=_OPTION_HELP["--max-input-mb"],
    ),
) -> None:
    """What-if engine and cost-based configuration optimizer for Hadoop MapReduce."""
    if debug:
        os.environ["MRTUNE_DEBUG"] = "1"
    if max_input_mb is not None:
        os.environ["MRTUNE_MAX_INPUT_MB"] = repr(max_input_mb)
