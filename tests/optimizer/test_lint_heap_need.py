"""The lint's ``sort-buffer-heap`` rule with the map function's observed heap (issue 14), and
what ``whatif``, ``optimize`` and ``profile`` say of it on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app as cli_app
from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.profile import MapHeapUse
from mrtune.optimizer.lint import Severity, lint_config, sort_buffer_findings

GB = 2**30
HEAP = "-Xmx1000m"
CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)
DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SLEEP = next((DATA / "jhist").glob("job_1329348432655_0001-*SUCCEEDED*.jhist"))
SLEEP_CONF = DATA / "jhist" / "job_1329348432655_0001_conf.xml"


def need(mb: float) -> MapHeapUse:
    return MapHeapUse(
        need_mb=mb, committed_mb=mb + 100, sort_mb=100, heap_mb=1000, attempts=40, source="test"
    )


def cfg(sort_mb: int) -> HadoopConfig:
    return HadoopConfig(io_sort_mb=sort_mb, map_java_opts=HEAP, map_memory_mb=1300)


def test_the_rule_grades_what_the_buffer_leaves_against_the_observed_need() -> None:
    use = need(400)  # 1.25 x 400 = 500 MB to leave free in the 1000 MB heap
    assert sort_buffer_findings(cfg(400), use)[0].severity == Severity.NONE  # leaves 600
    assert sort_buffer_findings(cfg(500), use)[0].severity == Severity.NONE  # leaves 500
    edge = sort_buffer_findings(cfg(501), use)[0]  # leaves 499 < 500: low (and above half)
    assert edge.severity == Severity.LOW
    severe = sort_buffer_findings(cfg(650), use)[0]  # leaves 350 < 400
    assert severe.severity == Severity.SEVERE
    assert "took 400 MB beside its buffer" in severe.message
    assert "1.25x that 400 MB" in severe.threshold
    # without the figure the same 650 MB is the share rule's: 65% is low
    assert sort_buffer_findings(cfg(650), None)[0].severity == Severity.LOW
    # an error stays an error (Hadoop refuses it), with or without evidence
    at_heap = cfg(100).model_copy(update={"io_sort_mb": 1000})
    assert sort_buffer_findings(at_heap, use)[0].severity == Severity.ERROR


def test_the_lint_report_names_the_cap_and_the_figure() -> None:
    prof = JobProfile(
        job_id="j",
        input_bytes=20 * GB,
        stats=DataflowStats(input_pair_width=100),
        map_heap_use=need(600),
    )
    report = lint_config(prof, cfg(100), CLUSTER)
    limit = report.to_json()["limits"]["sort_buffer"]
    assert limit["cap_mb"] == 250 and limit["set_by"] == "observed heap"  # 1000 - 750
    assert "600 MB observed beyond the sort buffer" in limit["line"]
    shared = prof.model_copy(update={"map_heap_use": need(100)})
    assert lint_config(shared, cfg(100), CLUSTER).limits["sort_buffer"]["set_by"] == "share"
    bare = prof.model_copy(update={"map_heap_use": None})
    assert lint_config(bare, cfg(100), CLUSTER).limits == {}


def _sleep_profile(tmp_path: Path) -> Path:
    out = tmp_path / "sleep.json"
    runner = CliRunner()
    res = runner.invoke(
        cli_app, ["profile", str(SLEEP), "--conf", str(SLEEP_CONF), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "map heap: 73 MB observed beyond the sort buffer" in res.stdout
    return out


def test_whatif_warns_when_a_set_leaves_less_than_the_observed_need(tmp_path: Path) -> None:
    """Maps that took 400 MB beside their buffer in a 1000 MB heap: io.sort.mb 650 leaves
    350, severe (the share rule alone says low: 65% of the heap)."""
    prof = JobProfile(job_id="j", input_bytes=20 * GB, stats=DataflowStats(input_pair_width=100))
    path = tmp_path / "p.json"
    conf = {"mapreduce.map.java.opts": HEAP, "mapreduce.map.memory.mb": "1300"}
    with_need = prof.model_copy(update={"map_heap_use": need(400), "source_properties": conf})
    path.write_text(with_need.model_dump_json())
    runner = CliRunner()
    args = ["whatif", str(path), "--samples", "0", "--set", "mapreduce.task.io.sort.mb=650"]
    res = runner.invoke(cli_app, args)
    assert res.exit_code == 0, res.output
    assert "warning: lint severe sort-buffer-heap" in res.stderr
    assert "which took 400 MB beside its buffer" in res.stderr
    res = runner.invoke(cli_app, [*args, "--format", "json"])
    assert [f["severity"] for f in json.loads(res.stdout)["lint"]] == ["severe"]
    assert "lint" not in res.stderr  # the document carries it
    bare = tmp_path / "bare.json"
    bare.write_text(with_need.model_copy(update={"map_heap_use": None}).model_dump_json())
    res = runner.invoke(cli_app, ["whatif", str(bare), *args[2:], "--format", "json"])
    assert [f["severity"] for f in json.loads(res.stdout)["lint"]] == ["low"]
    # a question that does not move the buffer or the heap is not linted
    other = ["whatif", str(path), "--samples", "0", "--set", "mapreduce.job.reduces=2"]
    res = runner.invoke(cli_app, [*other, "--format", "json"])
    assert json.loads(res.stdout)["lint"] == [] and "lint" not in res.stderr


def test_optimize_names_the_observed_figure(tmp_path: Path) -> None:
    prof = str(_sleep_profile(tmp_path))
    res = CliRunner().invoke(cli_app, ["optimize", prof, "--format", "json"])
    assert res.exit_code == 0, res.output
    limit = json.loads(res.stdout)["lint"]["limits"]["sort_buffer"]
    assert limit["map_heap_use"]["need_mb"] == 72.875
    assert limit["cap_mb"] == 250  # half of 500: 500 - 1.25 x 72.9 leaves more
    res = CliRunner().invoke(cli_app, ["optimize", prof])
    assert "sort buffer: io.sort.mb <= 250 MB in the 500 MB map heap" in res.stdout
    assert "73 MB observed beyond the sort buffer" in " ".join(res.stdout.split())


def test_a_saturated_heap_at_the_runs_own_buffer_is_no_finding() -> None:
    # the examples on the mini-cluster (-Xmx179m, io.sort.mb 100) committed their whole heap:
    # "took 80 MB beside its buffer" is what was left, and the run worked with that buffer
    full = MapHeapUse(
        need_mb=80, committed_mb=180, sort_mb=100, heap_mb=179, attempts=5, source="test"
    )
    small = HadoopConfig(io_sort_mb=100, map_java_opts="-Xmx179m", map_memory_mb=256)
    got = sort_buffer_findings(small, full)[0]
    assert got.severity < Severity.SEVERE and "a bound; the run worked" in got.message
    larger = small.model_copy(update={"io_sort_mb": 120})  # beyond what the run proved
    assert sort_buffer_findings(larger, full)[0].severity == Severity.SEVERE


def test_a_map_only_job_gets_no_sort_buffer_finding() -> None:
    prof = JobProfile(
        job_id="m", input_bytes=GB, map_only=True, stats=DataflowStats(input_pair_width=100)
    )
    report = lint_config(prof, cfg(100).model_copy(update={"num_reducers": 0}), CLUSTER)
    assert not any(f.rule == "sort-buffer-heap" for f in report.findings)
