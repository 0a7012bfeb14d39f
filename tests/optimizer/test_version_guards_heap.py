"""A container smaller than the task heap is refused by ``whatif`` and skipped by ``sweep``
(audit D7), and a heap that follows the container is shown.

Hadoop 2 without an ``-Xmx`` launches every task JVM with ``mapred.child.java.opts``' default
``-Xmx200m`` (JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS) whatever the container: QMC's what-if of
``mapreduce.map.memory.mb=128`` was priced, and its sweep from 128 MB printed rows 128..197 MB,
while the same heap named by ``-Xmx`` was refused. Hadoop 3 derives such a heap from the
container (``memory.mb x heap.memory-mb.ratio``, MAPREDUCE-5785): 128 MB is a legal 103 MB heap,
which the what-if must show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.optimizer.whatif import apply_changes, what_if
from mrtune.profiling import profile_config

WORDCOUNT = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "profiles"
WORDCOUNT = WORDCOUNT / "wordcount-rumen.json"
MB = 2**20
runner = CliRunner()


def _yarn(version: int, tmp_path: Path | None = None) -> tuple[JobProfile, HadoopConfig, Path]:
    """The bundled wordcount as a YARN job of ``version`` with 1024 MB containers, no -Xmx."""
    data = json.loads(WORDCOUNT.read_text())
    data["cluster_facts"]["hadoop_version"] = float(version)
    data["source_properties"] = {
        "mapreduce.map.memory.mb": "1024",
        "mapreduce.reduce.memory.mb": "1024",
        "mapreduce.job.reduces": "1",
    }
    prof = JobProfile.model_validate(data)
    path = Path()
    if tmp_path is not None:
        path = tmp_path / f"wc{version}.json"
        path.write_text(prof.model_dump_json())
    base = profile_config(prof)
    assert base.hadoop_version == version and base.map_java_opts is None
    return prof, base, path


@pytest.mark.parametrize("side", ["map", "reduce"])
def test_hadoop2_default_heap_must_fit_the_container(side: str) -> None:
    with pytest.raises(ValidationError, match="default -Xmx200m") as info:
        HadoopConfig(hadoop_version=2, **{f"{side}_memory_mb": 128})
    assert f"mapreduce.{side}.memory.mb >= 200" in str(info.value)
    assert HadoopConfig(hadoop_version=2, **{f"{side}_memory_mb": 200})
    derived = HadoopConfig(hadoop_version=3, **{f"{side}_memory_mb": 128})  # MAPREDUCE-5785
    assert getattr(derived, f"{side}_heap_bytes") == 103 * MB
    assert HadoopConfig(hadoop_version=1, **{f"{side}_memory_mb": 128})  # slots: no container


def test_whatif_refuses_a_container_under_the_default_heap() -> None:
    prof, base, _ = _yarn(2)
    with pytest.raises(ValueError, match="smaller than the map task heap"):
        what_if(prof, base, ClusterSpec(), {"mapreduce.map.memory.mb": "128"})
    ok = what_if(prof, base, ClusterSpec(), {"mapreduce.map.memory.mb": "512"})
    assert ok["changes"] == {"mapreduce.map.memory.mb": {"from": "1024", "to": "512"}}


def test_cli_whatif_one_line_exit_2(tmp_path: Path) -> None:
    _, _, path = _yarn(2, tmp_path)
    r = runner.invoke(
        app, ["whatif", str(path), "--set", "mapreduce.map.memory.mb=128", "--samples", "0"]
    )
    assert r.exit_code == 2, r.output
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "mapreduce.map.memory.mb=128" in errors[0]


def test_whatif_shows_the_heap_that_follows_the_container_on_hadoop3() -> None:
    prof, base, _ = _yarn(3)
    out = what_if(prof, base, ClusterSpec(), {"mapreduce.map.memory.mb": "128"})
    heap = [k for k in out["changes"] if k.startswith("map heap")]
    assert heap and "mapreduce.map.memory.mb=128" in heap[0]
    assert out["changes"][heap[0]] == {"from": "-Xmx820m", "to": "-Xmx103m"}


def test_a_heap_asked_with_its_container_is_kept_whatever_the_order() -> None:
    """The container's knob rewrote a named -Xmx to its ratio when it came after the heap:
    ``--set java.opts=-Xmx900m --set memory.mb=2048`` ran a 1638 MB heap."""
    prof, base, _ = _yarn(2)
    base = base.with_changes({"mapreduce.map.java.opts": "-Xmx800m"})
    heap, mem = ("mapreduce.map.java.opts", "-Xmx900m"), ("mapreduce.map.memory.mb", "2048")
    one = apply_changes(base, dict([heap, mem]), prof)
    two = apply_changes(base, dict([mem, heap]), prof)
    assert one == two and one.map_heap_bytes == 900 * MB and one.map_memory_mb == 2048
    alone = apply_changes(base, dict([mem]), prof)  # the heap follows a container alone
    assert alone.map_heap_bytes == 1638 * MB
    with pytest.raises(ValueError, match="larger than its container"):
        apply_changes(base, {heap[0]: "-Xmx900m", mem[0]: "512"}, prof)


def test_sweep_skips_the_containers_a_task_could_not_run_in(tmp_path: Path) -> None:
    _, _, path = _yarn(2, tmp_path)
    args = ["sweep", str(path), "--param", "mapreduce.map.memory.mb", "--steps", "8"]
    r = runner.invoke(app, [*args, "--range", "128:1024", "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert min(p["value"] for p in out["points"]) >= 200
    assert any(n.startswith("skipped 2 values") and "-Xmx200m" in n for n in out["notes"])
    text = runner.invoke(app, [*args, "--range", "128:1024"], env={"COLUMNS": "300"})
    assert "note: skipped 2 values" in text.output
    none = runner.invoke(app, [*args, "--range", "128:190"])
    assert none.exit_code == 2 and "error: --range:" in none.output


def test_sweep_keeps_to_what_the_jobs_hadoop_reads(tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        ["sweep", str(WORDCOUNT), "--param", "mapreduce.map.output.compress.codec", "--format",
         "json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert "lz4" not in {p["value"] for p in out["points"]}
    assert any(n.startswith("not swept: lz4: no Hadoop 1.x release") for n in out["notes"])
    mem = runner.invoke(app, ["sweep", str(WORDCOUNT), "--param", "mapreduce.map.memory.mb"])
    assert mem.exit_code == 2 and "Hadoop 1 has no containers" in mem.output


def test_qmc_as_the_audit_ran_it(shared_data: Path) -> None:
    jhist = sorted((shared_data / "jhist").glob("job_1526555215992_0001-*.jhist"))[0]
    conf = shared_data / "jhist" / "job_1526555215992_0001_conf.xml"
    src = [str(jhist), "--conf", str(conf)]
    r = runner.invoke(
        app, ["whatif", *src, "--set", "mapreduce.map.memory.mb=128", "--samples", "0"]
    )
    assert r.exit_code == 2 and "default -Xmx200m" in r.output, r.output
    s = runner.invoke(
        app,
        ["sweep", *src, "--param", "mapreduce.map.memory.mb", "--range", "128:1024", "--format",
         "json"],
    )  # fmt: skip
    assert s.exit_code == 0, s.output
    out = json.loads(s.stdout)
    assert min(p["value"] for p in out["points"]) >= 200 and out["notes"]
