"""``mrtune whatif`` semantics (issue 14, item 6), each case on a constructed profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import DataflowStats, JobProfile

runner = CliRunner()
WIDE = {"COLUMNS": "80"}

#: A small job (1.4 MiB profiled) with a combiner, like the issue's example.
SMALL = JobProfile(
    job_id="small",
    input_bytes=1.4 * 2**20,
    input_files=1,
    has_combiner=True,
    combine_class="org.example.Sum",
    stats=DataflowStats(input_pair_width=80, map_size_sel=1.2, map_pairs_sel=2.0),
)


@pytest.fixture
def prof(tmp_path: Path) -> Path:
    p = tmp_path / "small.json"
    p.write_text(SMALL.model_dump_json())
    return p


def whatif(prof: Path, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["whatif", str(prof), *args], env=WIDE)
    return r.exit_code, r.output


def test_input_size_compares_both_configurations_at_the_new_size(prof: Path) -> None:
    code, out = whatif(prof, "--input-size", "100GB", "--format", "json")
    assert code == 0, out
    r = json.loads(out)
    assert r["input_bytes"] == {
        "profiled": SMALL.input_bytes,
        "current": 100 * 2**30,
        "what-if": 100 * 2**30,
    }
    # No configuration change: the same job at the same size, not "+15151%".
    assert r["speedup"] == pytest.approx(1.0)
    assert r["current"]["num_maps"] == r["what_if"]["num_maps"] > r["profiled"]["num_maps"]
    assert r["profiled"]["job_ms"] < r["current"]["job_ms"]


def test_input_size_with_a_change_isolates_the_change(prof: Path) -> None:
    code, out = whatif(prof, "--input-size", "10GB", "--set", "io.sort.mb=400", "--format", "json")
    assert code == 0, out
    r = json.loads(out)
    assert r["current"]["num_maps"] == r["what_if"]["num_maps"]
    assert r["current"]["dataflow"]["spills_per_map"] > r["what_if"]["dataflow"]["spills_per_map"]


def test_input_size_text_shows_the_profiled_size(prof: Path) -> None:
    code, out = whatif(prof, "--input-size", "100GB")
    assert code == 0, out
    assert "input: 100.0 GiB in both columns; profiled 1.4 MiB (" in out
    assert "+15151" not in out


def test_a_size_without_a_unit_is_an_error(prof: Path) -> None:
    code, out = whatif(prof, "--input-size", "100")
    assert code == 2
    assert "has no unit" in out and "Traceback" not in out


def test_an_unknown_property_is_one_line_with_the_closest_names(prof: Path) -> None:
    code, out = whatif(prof, "--set", "mapreduce.task.io.sort.mbb=200")
    assert code == 2
    lines = [ln for ln in out.splitlines() if ln.strip()]
    text = " ".join(out.split())
    assert "did you mean mapreduce.task.io.sort.mb" in text
    assert "--allow-unknown" in text
    assert len(lines) <= 2 and "Traceback" not in out  # one message (wrapped at 80 columns)


def test_allow_unknown_passes_it_through(prof: Path) -> None:
    code, out = whatif(
        prof, "--set", "mapreduce.task.io.sort.mbb=200", "--allow-unknown", "--format", "json"
    )
    assert code == 0, out
    r = json.loads(out)
    assert r["not_modelled"] == ["mapreduce.task.io.sort.mbb"]
    assert r["speedup"] == pytest.approx(1.0)
    code, out = whatif(prof, "--set", "mapreduce.task.io.sort.mbb=200", "--allow-unknown")
    assert code == 0 and "the model does not read it" in out


@pytest.mark.parametrize(
    ("setting", "prop", "value"),
    [
        ("mapreduce.job.reduces=0", "mapreduce.job.reduces", "0"),
        ("mapreduce.map.sort.spill.percent=0.277", "mapreduce.map.sort.spill.percent", "0.277"),
        ("mapreduce.map.combine.minspills=9999", "mapreduce.map.combine.minspills", "9999"),
    ],
)
def test_hadoop_valid_values_outside_the_search_range_are_accepted(
    prof: Path, setting: str, prop: str, value: str
) -> None:
    code, out = whatif(prof, "--set", setting, "--format", "json")
    assert code == 0, out
    assert json.loads(out)["changes"][prop]["to"] == value
