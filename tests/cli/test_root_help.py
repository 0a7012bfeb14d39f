"""The fast top-level help (:mod:`mrtune.cli._root_help`) is Typer's help, byte for byte.

``mrtune --help`` and plain ``mrtune`` are drawn without Typer (start-up, issue 13 Deliver 6);
these tests run the console-script path and Typer's own formatter in fresh processes under the
same environment and compare stdout, stderr and the exit code, colours included, so a command
added to :data:`~mrtune.cli.COMMANDS`, a changed root option or a Typer upgrade that changes
the layout fails here instead of showing a stale screen.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from mrtune.cli import COMMANDS, ROOT_OPTIONS

FAST = "import sys; sys.argv[0] = 'mrtune'; from mrtune.cli import main; main()"
TYPER = "from mrtune.cli import app; app(prog_name='mrtune')"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(code: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"COLUMNS", "TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "NO_COLOR"}
        and k not in {"GITHUB_ACTIONS", "_TYPER_FORCE_DISABLE_TERMINAL"}
    }
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
    )


ENVS = [
    {"COLUMNS": "80"},
    {"COLUMNS": "80", "FORCE_COLOR": "1"},
    {"COLUMNS": "58", "FORCE_COLOR": "1"},
    {"TERMINAL_WIDTH": "120", "PY_COLORS": "1"},
    {"COLUMNS": "100", "FORCE_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"},
]


@pytest.mark.parametrize("env", ENVS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
@pytest.mark.parametrize("args", [["--help"], []], ids=["--help", "no-args"])
def test_fast_help_is_typers_help(args: list[str], env: dict[str, str]) -> None:
    fast = _run(FAST, args, env)
    typer = _run(TYPER, args, env)
    assert (fast.returncode, fast.stderr) == (typer.returncode, typer.stderr)
    assert fast.stdout == typer.stdout
    assert fast.returncode == (0 if args else 2)


def test_fast_help_lists_exactly_the_commands_and_options() -> None:
    """Every command with its stored short help, every root option, in Typer's plain text."""
    out = _run(FAST, ["--help"], {"COLUMNS": "200"}).stdout
    rows = [line.strip("│ ").split(None, 1) for line in out.splitlines() if "│" in line]
    listed = {r[0]: r[1].strip(" │") for r in rows if r and r[0] in COMMANDS}
    assert listed == {name: e.short_help for name, e in COMMANDS.items()}
    assert {r[0] for r in rows if r and r[0].startswith("--")} == {o.flag for o in ROOT_OPTIONS}
    assert not ANSI.search(out)  # not a terminal: no colour codes


def _modules_loaded_by(argv: list[str], env: dict[str, str] | None = None) -> set[str]:
    code = (
        "import sys, json\n"
        f"sys.argv = {['mrtune', *argv]!r}\n"
        "from mrtune.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    proc = _run(code, [], env or {})
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--help"], []], ids=["--help", "no-args"])
def test_fast_help_imports_neither_typer_nor_a_command(argv: list[str]) -> None:
    loaded = _modules_loaded_by(argv)
    heavy = {"typer", "rich.markdown", "markdown_it", "pygments", "rich.traceback", "rich.syntax"}
    heavy |= {"numpy", "pydantic", "scipy", "optuna", "yaml"}
    assert not heavy & loaded
    cli = {m for m in loaded if m.startswith("mrtune.")}
    assert cli == {"mrtune.cli", "mrtune.cli._commands", "mrtune.cli._root_help"}


def test_a_command_or_another_option_still_goes_through_typer() -> None:
    """Only ``mrtune`` and ``mrtune --help`` take the fast path; ``--debug --help`` is Typer's."""
    assert "typer" in _modules_loaded_by(["--debug", "--help"])
    assert "typer" in _modules_loaded_by(["example", "--help"])


def test_typer_use_rich_off_keeps_clicks_plain_help() -> None:
    """``TYPER_USE_RICH=0`` asks Typer for Click's plain help: the fast path steps aside."""
    env = {"TYPER_USE_RICH": "0", "COLUMNS": "80"}
    assert "typer" in _modules_loaded_by(["--help"], env)
    fast, typer = _run(FAST, ["--help"], env), _run(TYPER, ["--help"], env)
    assert fast.stdout == typer.stdout and "╭" not in fast.stdout


@pytest.mark.parametrize("module", ["mrtune", "mrtune.cli"])
def test_python_dash_m_shows_its_own_program_name(module: str) -> None:
    """``python -m mrtune --help`` names itself as Click would (``python -m mrtune``)."""
    env = {"COLUMNS": "80"}
    clean = {k: v for k, v in os.environ.items() if k not in {"FORCE_COLOR", "TERMINAL_WIDTH"}}
    fast = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
    )
    typer = _run(
        f"from mrtune.cli import app; app(prog_name='python -m {module}')", ["--help"], env
    )
    assert fast.stdout == typer.stdout and fast.returncode == typer.returncode == 0
    assert f"Usage: python -m {module} [OPTIONS]" in fast.stdout
