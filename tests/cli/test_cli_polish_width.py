"""Every line a command prints fits 80 columns at ``COLUMNS=80`` (measured in characters), and
what is meant for copying (``-D`` flags, numbers in a table) is never folded mid-value."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / ".." / "shared" / "data"
EXAMPLES = REPO / "mrtune" / "examples"
WORDCOUNT = EXAMPLES / "profiles" / "wordcount-rumen.json"
NARROW = {"COLUMNS": "80"}


def run(*args: str):  # noqa: ANN201
    result = CliRunner().invoke(app, list(args), env=NARROW)
    assert result.exit_code == 0, result.output
    return result


def wide_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > 80]


@pytest.mark.parametrize(
    ("trace", "extra", "warned"),
    [
        ("wordcount-rumen.json", (), "the trace has no jobProperties"),
        ("2jobs2min-rumen-jh.json", (), "holds 3 jobs"),
        ("zombie-input-trace.json", ("--job", "job_200904211745_0004"), "killed attempt"),
    ],
)
def test_profile_warnings_are_wrapped(trace: str, extra: tuple[str, ...], warned: str) -> None:
    """The profile's trailing ``warning:`` lines were printed unwrapped (up to 174 chars)."""
    result = run("profile", str(DATA / "rumen" / trace), *extra)
    assert not wide_lines(result.stdout), wide_lines(result.stdout)
    assert "warning:" in result.stdout
    assert warned in " ".join(result.stdout.split())


def test_example_list_fits() -> None:
    """The listing printed each example's full path: 101 characters a line."""
    result = run("example")
    assert not wide_lines(result.stdout), wide_lines(result.stdout)
    flat = " ".join(result.stdout.split())
    assert "wordcount-rumen profile profiles/wordcount-rumen.json" in flat
    assert "concurrent3-tasks workflow workflows/concurrent3-tasks.yaml" in flat
    assert "mrtune example NAME prints" in flat


def test_optimize_d_flags_fit_and_paste_as_one_command() -> None:
    """The ``-D flags:`` line was 155 characters; now one flag a line, joined by `` \\``."""
    result = run("optimize", str(WORDCOUNT), "--input-size", "100GB", "--include-low-confidence")
    out = result.stdout
    assert not wide_lines(out), wide_lines(out)
    lines = out.split("-D flags:\n", 1)[1].splitlines()
    flags = lines[: next(i for i, ln in enumerate(lines) if not ln.endswith(" \\")) + 1]
    assert len(flags) >= 3 and all(ln.startswith("-D ") for ln in flags)
    # a shell reads the pasted lines as one command: -D k=v pairs, nothing else
    words = subprocess.run(
        ["bash", "-c", "printf '%s\\n' " + "\n".join(flags)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert words[::2] == ["-D"] * len(flags)
    assert all("=" in w for w in words[1::2]) and len(words) == 2 * len(flags)
    assert "io.sort.mb=512" in words or any(w.startswith("io.sort.mb=") for w in words)
    # each change's effects name their baseline: the optimum found, without and with the
    # change ("spills per map 13→10" had read as the run's own, which had 2)
    flat = " ".join(out.split())
    assert flat.count("in the optimum found, without → with it:") >= 2
    assert "alone on the current configuration" in flat


def test_workflow_jobs_table_fits_without_folding_numbers() -> None:
    """The Tasks cell ``256/128`` was folded as ``256/12`` over ``8``."""
    result = run("workflow", str(EXAMPLES / "workflows" / "concurrent3-tasks.yaml"))
    out = result.stdout
    assert not wide_lines(out), wide_lines(out)
    rows = [ln for ln in out.splitlines() if ln.startswith("│ J") and "│ map " in ln]
    assert [r.split("│")[3].strip() for r in rows] == ["256/128", "128/128", "384/128"]
    assert "stage 1" in out  # the stage, once a column of its own, is said under the job
