"""The ``mrtune`` command line: one Typer app, one module per command, imported only when run.

``mrtune --help`` (and plain ``mrtune``) is printed by :mod:`mrtune.cli._root_help` straight from
:data:`COMMANDS`, with rich alone: neither Typer nor any command module is imported, so start-up
pays for rich's console and table and nothing else. Any other invocation goes to the Typer app
(:mod:`mrtune.cli._app`, loaded on first use through :func:`__getattr__`), and running a command
imports its module (and the libraries it needs) and nothing else. Every expected failure (a
:class:`~mrtune.errors.MrtuneError` or a pydantic validation error) becomes one line on stderr and
exit code 2 (:func:`mrtune.cli.console.cli_errors`); anything else is a bug, reported as one line
with a ``--debug`` hint and exit code 1 (:func:`main`).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from mrtune.cli._commands import COMMANDS, ROOT_HELP, ROOT_OPTIONS, CommandEntry

__all__ = [
    "COMMANDS",
    "ROOT_HELP",
    "ROOT_OPTIONS",
    "CommandEntry",
    "LazyGroup",
    "app",
    "load_command",
    "main",
    "one_line_usage_errors",
]

#: Names served by the Typer app module, imported on first access (PEP 562).
_FROM_APP = frozenset({"app", "LazyGroup", "load_command", "one_line_usage_errors"})


def __getattr__(name: str) -> Any:
    """``mrtune.cli.app`` and friends import Typer only when asked for (PEP 562)."""
    if name in _FROM_APP:
        return getattr(importlib.import_module("mrtune.cli._app"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_root_help(args: Sequence[str]) -> bool:
    """Whether the command line only asks for the top-level help: ``mrtune`` or ``mrtune --help``.

    Anything else (a command, another option beside ``--help``) goes through Typer, and so does
    everything when ``TYPER_USE_RICH`` turns Typer's rich formatting off (Click's plain help).
    """
    use_rich = os.environ.get("TYPER_USE_RICH", "1").lower()
    return list(args) in ([], ["--help"]) and use_rich not in {"0", "false", "no", "off", "n", "f"}


def main() -> None:
    """Console-script entry point: user errors exit 2 (one line), bugs exit 1 (one line).

    Whatever way the command ends, the objects it made are frozen out of the cyclic garbage
    collector (:func:`gc.freeze`) before the interpreter shuts down. Finalisation otherwise
    runs full collections over every object the imports built (numpy, pydantic's schemas,
    rich, Typer: ~43k tracked objects): 0.17 s of CPU after ``whatif``'s output was written,
    a fifth of the command, measured here (0.18 s -> 0.02 s). Nothing is skipped: atexit
    handlers, stream flushing and refcount deallocation run as before; only the cycle search
    over objects that are about to be discarded with the process is not.
    """
    try:
        _main()
    finally:
        gc.freeze()


def _main() -> None:
    # pydantic looks for third-party validation plugins (an entry-point scan of every
    # installed distribution, ~40 ms of each command's start) before it builds its first
    # model; the command-line tool has none to run. A user who wants them sets the variable.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _skip_plugin_loader_import()
    # One BLAS thread: the model is element-wise numpy on arrays of configurations (no large
    # matrix products), and the batch runs one process per core. OpenBLAS's own thread pool
    # only adds its start-up and the spin-wait of idle threads after each call: 0.1-0.4 s of
    # CPU per command measured here (`whatif` 1.0 s -> 0.58 s), and oversubscribed cores under
    # `batch --workers`. Set before numpy is first imported; a user's own setting wins.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    args = sys.argv[1:]
    if is_root_help(args):
        from mrtune.cli._root_help import print_root_help

        # ``mrtune`` alone is a usage error that shows the help (Click's no_args_is_help: 2).
        print_root_help(no_args=not args)
        sys.exit(0 if args else 2)
    from mrtune.cli._app import app
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


#: The values of ``PYDANTIC_DISABLE_PLUGINS`` for which pydantic's ``get_plugins`` returns no
#: plugin at all (pydantic/plugin/_loader.py).
_NO_PLUGINS = ("__all__", "1", "true")


def _skip_plugin_loader_import() -> None:
    """With every pydantic plugin disabled, give pydantic a plugin loader that imports nothing.

    pydantic builds each validator through ``pydantic.plugin._schema_validator``, which imports
    ``pydantic.plugin._loader``; that module imports :mod:`importlib.metadata` (and with it
    email, zipfile, csv: ~0.07 s of CPU, a tenth of ``whatif``) at its top, only to return no
    plugins when ``PYDANTIC_DISABLE_PLUGINS`` disables them all. The stand-in answers the same
    (no plugins) without that import. A user who enables plugins (the variable unset to a
    plugin name list, or already importing pydantic) gets pydantic's own loader.
    """
    name = "pydantic.plugin._loader"
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in _NO_PLUGINS or name in sys.modules:
        return
    import types

    loader = types.ModuleType(name, "mrtune's stand-in: every pydantic plugin is disabled.")
    loader.PYDANTIC_ENTRY_POINT_GROUP = "pydantic"  # type: ignore[attr-defined]
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules[name] = loader


if __name__ == "__main__":
    main()
