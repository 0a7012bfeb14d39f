"""Small modules with one job: no function over ~80 lines, no module over ~400, unless a written
reason says why (issue 13, item 8).

A function's length runs from its ``def`` to its last line; for a Typer command, whose
signature is its declaration of options, from the first statement of its body. The exceptions
below each carry their reason; a new long function or module fails here until it is split or
its reason is written down.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FUNCTION_LIMIT = 80
MODULE_LIMIT = 400

#: ``"path:function"`` → why it is longer than FUNCTION_LIMIT.
LONG_FUNCTIONS: dict[str, str] = {
    "mrtune/profiling/starfish.py:load_starfish": "one pass over Starfish's four files in "
    "their order; each branch is one file's fields (split with issue 16's cost-factor work)",
    "mrtune/readers/rest.py:history_from_payloads": "one REST payload after another into one "
    "history; each block is one endpoint's response",
    "mrtune/readers/rumen.py:job_from_rumen": "Rumen's LoggedJob fields in their order",
    "mrtune/calibration/fidelity.py:build_report": "one job after another: calibrate, predict, "
    "compare; the steps are the helpers it calls",
    "mrtune/calibration/fidelity.py:summarize": "one figure after another of the fidelity "
    "report's summary table",
    "mrtune/harness/runner.py:run_job": "the steps of one real Hadoop run (compile, input, "
    "command line, run, collect), each a few lines",
}

#: module path → why it is longer than MODULE_LIMIT.
LONG_MODULES: dict[str, str] = {}


def _sources() -> list[Path]:
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {REPO / d for d in tool["package-dir"].values()}
    return sorted(p for r in roots for p in r.rglob("*.py") if "__pycache__" not in p.parts)


def _is_command(fn: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "command"
        for d in fn.decorator_list
    )


def _long_functions() -> dict[str, int]:
    found = {}
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = node.body[0].lineno if _is_command(node) else node.lineno
                length = (node.end_lineno or start) - start + 1
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
