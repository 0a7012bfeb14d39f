"""What the commands a user types first import (issue 13, Deliver 6: a fast start).

Each test runs the console-script entry point in a fresh interpreter on the bundled example and
reads ``sys.modules`` afterwards, so a module-level import added anywhere on a command's path
(a regression library, a plotter, Typer's rich help formatter, a database driver) fails here
instead of silently adding to every run's start-up. ``benchmarks/bench_startup.py`` measures
the CPU seconds themselves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "mrtune/examples/profiles/wordcount-rumen.json"

#: Never needed to predict or to search: regression and data-frame stacks, plotting, storage
#: back ends, HTML templating, distributed execution, and Typer's help formatter (markdown,
#: syntax highlighting, rich tracebacks).
NEVER = frozenset(
    {
        "scipy",
        "sklearn",
        "statsmodels",
        "pandas",
        "matplotlib",
        "sqlalchemy",
        "alembic",
        "jinja2",
        "dask",
        "distributed",
        "fastavro",
        "yaml",
        "typer.rich_utils",
        "rich.markdown",
        "markdown_it",
        "pygments",
        "rich.syntax",
        "rich.traceback",
    }
)


def _loaded(argv: list[str], tmp_path: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    code = (
        "import sys, json\n"
        f"sys.argv = {['mrtune', *argv]!r}\n"
        "from mrtune.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "80"},
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1])), proc


def test_whatif_imports_no_search_library(tmp_path: Path) -> None:
    loaded, proc = _loaded(
        ["whatif", str(EXAMPLE), "--set", "mapreduce.task.io.sort.mb=200"], tmp_path
    )
    assert "Predicted" in proc.stdout or "predicted" in proc.stdout.lower(), proc.stderr[-800:]
    assert not (NEVER | {"optuna", "cmaes"}) & loaded
    commands = {m for m in loaded if m.startswith("mrtune.cli.") and not m[11:].startswith("_")}
    assert commands == {"mrtune.cli.console", "mrtune.cli.whatif"}


#: What ``whatif`` on a saved profile never needs (beyond :data:`NEVER` and the search): the
#: search itself, the recommendation and output writers, the batch and workflow tuners, the
#: real-Hadoop harness, every reader but the saved-profile one, and the fitting code (the example
#: keeps its bootstrap refits, so the interval re-fits nothing).
WHATIF_NEVER = frozenset(
    {
        "optuna",
        "cmaes",
        "defusedxml",
        "importlib.metadata",  # pydantic's plugin scan, skipped with every plugin disabled
        "mrtune.optimizer.strategies",
        "mrtune.optimizer.objective",
        "mrtune.optimizer.recommend",
        "mrtune.optimizer.outputs",
        "mrtune.optimizer.batch",
        "mrtune.optimizer.explain",
        "mrtune.harness",
        "mrtune.readers.jhist",
        "mrtune.readers.rumen",
        "mrtune.readers.rest",
        "mrtune.readers.conf",
        "mrtune.readers.starfish",
        "mrtune.readers.swim",
        "mrtune.calibration.profiles",
        "mrtune.calibration.cost_factors",
        "mrtune.calibration.resample",
        "mrtune.calibration.solve",
        "mrtune.calibration.machine",
    }
)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_whatif_imports_only_the_model_and_its_interval(tmp_path: Path, fmt: str) -> None:
    argv = ["whatif", str(EXAMPLE), "--set", "mapreduce.task.io.sort.mb=200", "--format", fmt]
    loaded, proc = _loaded(argv, tmp_path)
    assert proc.stdout.strip(), proc.stderr[-800:]
    assert not (NEVER | WHATIF_NEVER) & loaded, sorted((NEVER | WHATIF_NEVER) & loaded)
    assert not list(tmp_path.iterdir())


def test_a_user_enabling_pydantic_plugins_gets_pydantics_loader(tmp_path: Path) -> None:
    """The stand-in plugin loader (mrtune.cli._skip_plugin_loader_import) is used only when
    every plugin is disabled; a plugin name list keeps pydantic's own entry-point scan."""
    code = (
        "import sys\n"
        f"sys.argv = {['mrtune', 'whatif', str(EXAMPLE), '--samples', '0']!r}\n"
        "from mrtune.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\n' + str('importlib.metadata' in sys.modules))\n"
    )
    for value, scanned in (("some_plugin", "True"), ("__all__", "False")):
        env = {**os.environ, "PYDANTIC_DISABLE_PLUGINS": value}
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env=env,
        )
        assert proc.stderr.strip().splitlines()[-1] == scanned, (value, proc.stderr[-800:])


def test_main_freezes_the_heap_before_shutdown(tmp_path: Path) -> None:
    """:func:`mrtune.cli.main` moves every object out of the cyclic collector's reach before
    the interpreter's finalisation (0.17 s of ``whatif``'s CPU otherwise), on success and on a
    user error alike."""
    for argv in (
        ["whatif", str(EXAMPLE), "--set", "mapreduce.task.io.sort.mb=200"],
        ["whatif", str(EXAMPLE), "--set", "mapreduce.task.io.sort.mb=-1"],
    ):
        code = (
            "import gc, sys\n"
            f"sys.argv = {['mrtune', *argv]!r}\n"
            "from mrtune.cli import main\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
            "else:\n    code = 0\n"
            "sys.stderr.write(f'\\n{code} {gc.get_freeze_count()}')\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path
        )
        exit_code, frozen = proc.stderr.strip().splitlines()[-1].split()
        assert exit_code in {"0", "None", "2"}, proc.stderr[-800:]
        assert int(frozen) > 10_000, proc.stderr[-800:]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_optimize_imports_only_what_the_search_uses(tmp_path: Path, fmt: str) -> None:
    argv = ["optimize", str(EXAMPLE), "--input-size", "100GB", "--format", fmt]
    loaded, proc = _loaded(argv, tmp_path)
    assert proc.stdout.strip(), proc.stderr[-800:]
    assert not NEVER & loaded
    # the study is kept in memory: no file is written where the command runs
    assert not list(tmp_path.iterdir())
