"""The command-line app as a unit: lazy commands, the error path, the bundled examples."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mrtune.cli import COMMANDS, app, load_command, main

runner = CliRunner()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_listed_help_is_the_commands_own_first_line(name: str) -> None:
    """``mrtune --help`` shows stored lines; each must be the command's real first help line."""
    command = load_command(name)
    first = (command.help or "").strip().splitlines()[0]
    assert COMMANDS[name].short_help == first


def test_every_command_module_is_listed() -> None:
    """A command module not in COMMANDS would be unreachable; one listed twice, ambiguous."""
    folder = Path(__file__).resolve().parents[2] / "mrtune" / "cli"
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    modules -= {"console"}
    assert modules == {e.module for e in COMMANDS.values()}


def _modules_loaded_by(argv: list[str]) -> set[str]:
    code = (
        "import sys, json\n"
        f"sys.argv = {['mrtune', *argv]!r}\n"
        "from mrtune.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_help_imports_no_command_and_no_heavy_library() -> None:
    loaded = _modules_loaded_by(["--help"])
    heavy = {"numpy", "scipy", "pydantic", "optuna", "sklearn", "statsmodels", "matplotlib"}
    assert not heavy & loaded
    internal = {"mrtune.cli._commands", "mrtune.cli._root_help"}
    assert not {m for m in loaded if m.startswith("mrtune.cli.")} - internal


def test_a_command_imports_only_its_own_module() -> None:
    loaded = _modules_loaded_by(["schema", "cluster"])
    internal = {"mrtune.cli.console", "mrtune.cli._app", "mrtune.cli._commands"}
    internal.add("mrtune.cli._root_help")
    commands = {m for m in loaded if m.startswith("mrtune.cli.")} - internal
    assert commands == {"mrtune.cli.schema"}
    assert not {"optuna", "sklearn", "statsmodels", "scipy.optimize"} & loaded


def test_example_lists_prints_and_copies(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["example", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    assert {"wordcount-rumen"} <= {r["name"] for r in rows}
    shown = runner.invoke(app, ["example", "wordcount-rumen"])
    path = Path(shown.output.strip())
    assert shown.exit_code == 0 and path.is_file()
    assert json.loads(path.read_text())["job_id"]
    copied = runner.invoke(app, ["example", "wordcount-rumen", "-o", str(tmp_path)])
    assert copied.exit_code == 0
    assert (tmp_path / "wordcount-rumen.json").read_bytes() == path.read_bytes()
    missing = runner.invoke(app, ["example", "nope"])
    assert missing.exit_code == 2
    assert "no such example" in missing.output


def test_error_lines_are_printed_literally_not_as_markup() -> None:
    """A value holding rich markup (``[/]``) is shown as typed, and does not crash the handler."""
    example = runner.invoke(app, ["example", "wordcount-rumen"]).output.strip()
    result = runner.invoke(app, ["whatif", example, "--set", "mapreduce.task.io.sort.mb=[/]"])
    assert result.exit_code == 2
    assert "[/]" in result.output
    assert "Traceback" not in result.output


def test_a_bug_is_one_line_with_a_debug_hint(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def broken() -> None:
        raise RuntimeError("boom")

    broken_app = typer.Typer()
    broken_app.command("schema")(broken)
    module = sys.modules.setdefault(
        "mrtune.cli.schema", __import__("mrtune.cli.schema").cli.schema
    )
    monkeypatch.setattr(module, "app", broken_app)
    monkeypatch.setattr(sys, "argv", ["mrtune", "schema"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "RuntimeError: boom" in err and "--debug" in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # one line, soft-wrapped at most once


def test_a_missing_extra_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from mrtune.errors import InputError
    from mrtune.optimizer.batch import DaskExecutor

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the extra were absent
    with pytest.raises(InputError, match=r"pip install 'mrtune\[distributed\]'"):
        DaskExecutor("tcp://127.0.0.1:1")


def test_every_cost_factor_is_shown_with_its_unit() -> None:
    """The profile table gives each cost factor its own unit (bytes are not ns/rec)."""
    from mrtune.cli.profile import COST_UNITS, PER_RECORD
    from mrtune.costmodel.profile import CostFactors

    assert set(COST_UNITS) | set(PER_RECORD) == set(CostFactors.model_fields)
    assert COST_UNITS["sort_cache_bytes"] == "B"
