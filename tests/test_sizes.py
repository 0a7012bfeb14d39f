"""Small modules with one job: no function over ~80 lines, no module over ~400, unless a written
reason says why (issue 13, item 8).

A function's length runs from its ``def`` (decorators excluded) to its last line, the way
``ast`` counts it (``end_lineno - lineno + 1``); a Typer command's options count too, so a
command with many options declares them as module constants (``mrtune/cli/_*_options.py``).
The sources measured are the installed packages, ``benchmarks/`` and ``scripts/``; tests are
not. The exceptions below each carry their reason; a new long function or module fails here
until it is split or its reason is written down.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FUNCTION_LIMIT = 80
MODULE_LIMIT = 400

#: ``"path:function"`` → why it is longer than FUNCTION_LIMIT.
LONG_FUNCTIONS: dict[str, str] = {
    # -- one format or algorithm read straight through, in its own order
    "costmodel/scheduler.py:_yarn_loop": "the YARN event loop with the container pool's "
    "heaps inlined: a call per event was the simulation's whole cost (issue 18: 4.9-7.9 "
    "-> 2.6-4.5 us per task); its steps share ~15 local names on purpose",
    "mrtune/profiling/swim.py:swim_profile": "the SWIM row's assumptions one after another, "
    "each stated beside its line (module docstring lists them)",
}

#: module path → why it is longer than MODULE_LIMIT.
LONG_MODULES: dict[str, str] = {
    # -- one declaration that splitting would cut in two
    "costmodel/config.py": "HadoopConfig is the knobs' single declaration (issue 13, item 2): "
    "35 fields, one per Hadoop property with its name, default and valid range, and the "
    "validators that refuse what Hadoop refuses (io.sort.mb over the heap, a heap over its "
    "container), which read across the fields; moving part of the model elsewhere would "
    "split the one place a knob is declared",
    "costmodel/profile.py": "the profile's schema, what a profile JSON is validated against: "
    "11 pydantic models (JobProfile, DataflowStats, CostFactors, CodecStats, MapClass, the "
    "calibration's checks and inferred cluster), ~150 fields, each with its bounds and a "
    "description giving its unit or the Hadoop counters it is measured from",
    # -- one module per format or command, read straight through
    "benchmarks/yarn_rank_study.py": "a study script: each term's leave-one-round-out check "
    "and the noise ceiling of the rank order, in the order the report gives them",
    "benchmarks/hadoop/run_recommendations.py": "the recommendation protocol in one script "
    "(calibrate now or from the matrix, recommend, run interleaved pairs, compare), each "
    "step a function",
    "mrtune/readers/phase_data.py": "the phase CSV format and the run-record → phase rows "
    "conversion the regression models read",
    "mrtune/readers/run_records.py": "the run record's pydantic models, one per log event kind",
    "mrtune/readers/task_log.py": "one parser per Hadoop log line kind (spills, merges, "
    "fetches, counters), each citing the class that logs it",
}


def _sources() -> list[Path]:
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {REPO / d for d in tool["package-dir"].values()} | {
        REPO / "benchmarks",
        REPO / "scripts",
    }
    return sorted(p for r in roots for p in r.rglob("*.py") if "__pycache__" not in p.parts)


@functools.cache  # two tests read it; the sources do not change during a run
def _long_functions() -> dict[str, int]:
    found = {}
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LIMIT:
                    found[f"{path.relative_to(REPO)}:{node.name}"] = length
    return found


def test_no_function_is_long_without_a_reason() -> None:
    unexplained = {k: v for k, v in _long_functions().items() if k not in LONG_FUNCTIONS}
    assert not unexplained, f"split these or write down why they are long: {unexplained}"


def test_no_module_is_long_without_a_reason() -> None:
    long = {
        str(p.relative_to(REPO)): n
        for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LIMIT
    }
    unexplained = {k: v for k, v in long.items() if k not in LONG_MODULES}
    assert not unexplained, f"split these or write down why they are long: {unexplained}"


@pytest.mark.parametrize("table", ["functions", "modules"])
def test_every_written_reason_is_still_needed(table: str) -> None:
    """A reason for something that is no longer long is stale: drop it."""
    if table == "functions":
        stale = set(LONG_FUNCTIONS) - set(_long_functions())
    else:
        stale = {
            m
            for m in LONG_MODULES
            if len((REPO / m).read_text(encoding="utf-8").splitlines()) <= MODULE_LIMIT
        }
    assert not stale, f"no longer long, drop the reason: {sorted(stale)}"
