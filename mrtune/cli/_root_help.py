"""``mrtune --help`` without Typer: the command table drawn with rich from :data:`COMMANDS`.

Typer formats help through ``typer.rich_utils``, which imports rich.markdown (markdown-it),
rich.syntax (pygments) and rich.traceback at module level: ~0.2 s of CPU before a line is
printed, the larger part of the top-level help's start-up. The top-level help is the one screen
whose content is static (the stored command lines and the root options of
:mod:`mrtune.cli._commands`), so it is drawn here with the same rich pieces Typer uses (a
:class:`~rich.console.Console` with Typer's theme and option highlighter, borderless
:class:`~rich.table.Table` s inside dim :class:`~rich.panel.Panel` s) and the same styles, honouring
the same environment (``TERMINAL_WIDTH``, ``FORCE_COLOR``/``PY_COLORS``/``GITHUB_ACTIONS``,
``_TYPER_FORCE_DISABLE_TERMINAL``). ``tests/cli/test_root_help.py`` checks that the output is
character for character (colours included) what Typer prints, so the two cannot drift apart.
A command's own ``--help`` stays on Typer.
"""

from __future__ import annotations

import os
import sys

from rich.columns import Columns
from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from mrtune.cli._commands import COMMANDS, ROOT_HELP, ROOT_OPTIONS

#: ``typer.rich_utils``'s styles for the pieces this screen has.
_THEME = {
    "option": "bold cyan",
    "switch": "bold green",
    "negative_option": "bold magenta",
    "negative_switch": "bold red",
    "types": "bold yellow",
    "types_sep": "dim",
    "usage": "yellow",
}


def program_name() -> str:
    """The name the usage line shows, found as Click finds it (``_detect_program_name``): the
    script's name (``mrtune``), or ``python -m PACKAGE`` when run as a module."""
    main = sys.modules.get("__main__")
    path = sys.argv[0] if sys.argv and sys.argv[0] else "mrtune"
    package = getattr(main, "__package__", None)
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


class _OptionHighlighter(RegexHighlighter):
    """Flags and the usage line in Typer's colours (its ``OptionHighlighter``'s patterns)."""

    highlights = [
        r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        r"(?P<types>\<[^\>]+\>)",
        r"(?P<usage>Usage: )",
    ]


class _TypesHighlighter(RegexHighlighter):
    """``<`` ``|`` ``>`` ``[`` ``]`` dimmed in the type column (Typer's ``TypesHighlighter``)."""

    highlights = [
        r"^(?P<types_sep>(\[|<))",
        r"(?P<types_sep>\|)",
        r"(?P<types_sep>(\]|>))(\.\.\.)?$",
    ]


def _console(highlighter: _OptionHighlighter) -> Console:
    """A console set up as ``typer.rich_utils._get_rich_console`` sets up its own."""
    width = os.environ.get("TERMINAL_WIDTH")
    force = (
        True
        if any(os.environ.get(v) for v in ("GITHUB_ACTIONS", "FORCE_COLOR", "PY_COLORS"))
        else None
    )
    if os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        force = False
    return Console(
        theme=Theme(_THEME),
        highlighter=highlighter,
        color_system="auto",
        force_terminal=force,
        width=int(width) if width else None,
    )


def _table(highlight: bool) -> Table:
    return Table(
        highlight=highlight,
        show_header=False,
        expand=True,
        box=None,
        show_lines=False,
        leading=0,
        border_style=None,
        row_styles=None,
        pad_edge=False,
        padding=(0, 1),
    )


def _options_panel(highlighter: _OptionHighlighter) -> Panel:
    """The root options, in the six columns Typer lays an option out in."""
    table = _table(highlight=True)
    types = _TypesHighlighter()
    for option in ROOT_OPTIONS:
        table.add_row(
            highlighter(option.flag),
            highlighter(""),
            highlighter(""),
            highlighter(""),
            types(Text(option.type_label, style="bold yellow", overflow="fold")),
            Columns([highlighter(Text.from_markup(option.help))]),
        )
    return Panel(table, border_style="dim", title="Options", title_align="left")


def _commands_panel() -> Panel:
    """Each command with its stored one-line help (the first line of its own help)."""
    table = _table(highlight=False)
    table.add_column(style="bold cyan", no_wrap=True, width=max(len(n) for n in COMMANDS))
    table.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name, entry in COMMANDS.items():
        table.add_row(Text(name), Text.from_markup(entry.short_help))
    return Panel(table, border_style="dim", title="Commands", title_align="left")


def print_root_help(no_args: bool = False) -> None:
    """Print ``mrtune --help`` as Typer would, on stdout.

    Typer's formatter prints through rich and then hands Click an empty help string, which
    Click's ``--help`` callback echoes as one more newline on stdout; the bare command (Click's
    ``NoArgsIsHelpError``, exit 2) prints the help alone. The same happens here.
    """
    highlighter = _OptionHighlighter()
    console = _console(highlighter)
    usage = f"Usage: {program_name()} [OPTIONS] COMMAND [ARGS]..."
    console.print(Padding(highlighter(usage), 1), style="bold")
    console.print(Padding(highlighter(Text.from_markup(ROOT_HELP)), (0, 1, 1, 1)))
    console.print(_options_panel(highlighter))
    console.print(_commands_panel())
    if not no_args:
        sys.stdout.write("\n")
