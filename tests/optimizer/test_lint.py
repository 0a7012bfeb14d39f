"""The lint pass: each rule trips on a constructed configuration and passes on a sound one; the
optimizer's recommendations for the example profiles lint clean of errors; an error stops
``mrtune optimize`` before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app as cli_app
from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.lint import Severity, lint_config
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.recommend import recommend

GB = 2**30
MB = 2**20
CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)
EXAMPLES = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "profiles"


def sort_job(gb: float = 20, **facts: object) -> JobProfile:
    return JobProfile(
        job_id="sort",
        input_bytes=gb * GB,
        stats=DataflowStats(input_pair_width=100),
        cluster_facts=dict(facts),
    )


def findings(cfg: HadoopConfig, rule: str, job: JobProfile | None = None, **kw: object):  # noqa: ANN201
    report = lint_config(job or sort_job(), cfg, kw.pop("cluster", CLUSTER), **kw)  # type: ignore[arg-type]
    assert rule in report.checked
    return [f for f in report.findings if f.rule == rule]


def test_spill_ratio_follows_mapper_spill_heuristic() -> None:
    # a 1 MB buffer with a 2-way merge writes every record ~8 times: 160 maps damp it to moderate
    bad = findings(HadoopConfig(num_reducers=4, io_sort_mb=1, io_sort_factor=2), "spill-ratio")
    assert bad and bad[0].severity == Severity.MODERATE
    assert bad[0].property == "mapreduce.task.io.sort.mb" and bad[0].value == "1"
    assert "2.01, 2.2, 2.5, 3.0" in bad[0].threshold and "MapperSpillHeuristic" in bad[0].source
    # one spill and one merge (ratio 2.0) is what Dr. Elephant accepts
    assert not findings(HadoopConfig(num_reducers=4), "spill-ratio")
    # the same ratio on a 3-map job is not worth reporting (num_tasks_severity damping)
    assert not findings(
        HadoopConfig(num_reducers=4, io_sort_mb=1, io_sort_factor=2), "spill-ratio", sort_job(0.3)
    )


def test_map_granularity() -> None:
    bad = findings(HadoopConfig(num_reducers=4, split_maxsize=MB), "map-granularity")
    assert bad and bad[0].severity == Severity.CRITICAL  # 20,480 maps of 1 MiB
    assert bad[0].property == "mapreduce.input.fileinputformat.split.maxsize"
    assert not findings(HadoopConfig(num_reducers=4), "map-granularity")  # whole blocks
    # tiny input: one small map is all there is
    assert not findings(HadoopConfig(num_reducers=1), "map-granularity", sort_job(0.001))


def test_reduce_granularity_catches_reducers_out_of_proportion() -> None:
    # the case: thousands of reducers for a few MB of shuffle
    tiny = sort_job(3.6 / 1024)
    bad = findings(HadoopConfig(num_reducers=3213), "reduce-granularity", tiny)
    assert bad and bad[0].severity == Severity.CRITICAL and bad[0].value == "3213"
    assert "ReducerTimeHeuristic" in bad[0].source
    assert not findings(HadoopConfig(num_reducers=1), "reduce-granularity", tiny)
    assert not findings(HadoopConfig(num_reducers=80), "reduce-granularity")  # 256 MB each


def test_sort_buffer_heap_headroom() -> None:
    heap = "-Xmx1000m"
    ok = HadoopConfig(io_sort_mb=500, map_java_opts=heap, map_memory_mb=1300)
    assert not findings(ok, "sort-buffer-heap")
    tight = HadoopConfig(io_sort_mb=790, map_java_opts=heap, map_memory_mb=1300)
    assert findings(tight, "sort-buffer-heap")[0].severity == Severity.MODERATE
    # Hadoop rejects these (the config model too, so they are built unvalidated)
    for mb in (1000, 1200):
        rejected = HadoopConfig(map_java_opts=heap, map_memory_mb=1300).model_copy(
            update={"io_sort_mb": mb}
        )
        bad = findings(rejected, "sort-buffer-heap")
        assert bad[0].severity == Severity.ERROR and bad[0].value == str(mb)


def test_heap_against_container() -> None:
    assert not findings(
        HadoopConfig(map_memory_mb=2048, map_java_opts="-Xmx1638m"), "heap-container"
    )
    tight = findings(HadoopConfig(map_memory_mb=2048, map_java_opts="-Xmx1990m"), "heap-container")
    assert tight[0].severity == Severity.SEVERE and tight[0].property == "mapreduce.map.java.opts"
    over = HadoopConfig(map_memory_mb=2048, map_java_opts="-Xmx1638m").model_copy(
        update={"map_memory_mb": 1024}
    )
    assert findings(over, "heap-container")[0].severity == Severity.ERROR
    # the heap derived from the container (no -Xmx) fits by construction
    assert not findings(HadoopConfig(map_memory_mb=2048), "heap-container")


def test_container_against_node() -> None:
    assert not findings(HadoopConfig(map_memory_mb=2048), "container-node")
    half = findings(HadoopConfig(map_memory_mb=6144, reduce_memory_mb=1024), "container-node")
    assert [f.severity for f in half] == [Severity.LOW]
    big = findings(HadoopConfig(reduce_memory_mb=9000), "container-node")
    assert big[0].severity == Severity.ERROR and big[0].property == "mapreduce.reduce.memory.mb"
    cores = findings(HadoopConfig(map_vcores=16), "container-node")
    assert cores[0].severity == Severity.ERROR
    # no containers in Hadoop 1 or in local mode
    assert not findings(
        HadoopConfig(reduce_memory_mb=9000), "container-node", cluster=ClusterSpec.local()
    )


def test_codec_availability() -> None:
    zstd = HadoopConfig(map_output_compress=True, map_output_codec="zstd")
    # a 2.7 cluster has no ZStandardCodec: ClassNotFoundException at the first spill
    bad = findings(zstd, "codec-availability", sort_job(hadoop_version="2.7.3"))
    assert bad[0].severity == Severity.ERROR and bad[0].value == "zstd"
    # 3.x ships it, but native only: an error without the flag, low with it
    bad = findings(zstd, "codec-availability", sort_job(hadoop_version="3.3.6"))
    assert bad[0].severity == Severity.ERROR and "native" in bad[0].message
    allowed = sort_job(hadoop_version="3.3.6", native_codecs=1.0)
    assert findings(zstd, "codec-availability", allowed)[0].severity == Severity.LOW
    # a codec the job already runs with loads there; gzip loads everywhere
    assert not findings(zstd, "codec-availability", sort_job(hadoop_version="2.7.3"), base=zstd)
    gz = HadoopConfig(map_output_compress=True, map_output_codec="gzip")
    assert not findings(gz, "codec-availability", sort_job(hadoop_version="2.7.3"))


def test_findings_say_whether_the_value_is_written() -> None:
    cfg = HadoopConfig(num_reducers=4, split_maxsize=MB)
    report = lint_config(sort_job(), cfg, CLUSTER, emitted={"mapreduce.job.reduces"})
    (f,) = [f for f in report.findings if f.rule == "map-granularity"]
    assert f.emitted is False and f.to_json()["severity"] == "critical"


# ---------------------------------------------------------------------- the optimizer's own output
def _jobs(shared_data: Path) -> list[Path]:
    jhist = shared_data / "jhist"
    return [
        *sorted(EXAMPLES.glob("*.json")),
        shared_data / "rumen" / "wordcount-rumen.json",
        next(jhist.glob("job_1526555215992_0001-*.jhist")),
        next(jhist.glob("job_1329348432655_0001-*SUCCEEDED*.jhist")),
    ]


@pytest.mark.parametrize(
    "objective", [ObjectiveKind.time, ObjectiveKind.resources, ObjectiveKind.pareto]
)
def test_recommendations_for_the_examples_lint_clean_of_errors(
    objective: ObjectiveKind, shared_data: Path
) -> None:
    from mrtune.cli._inputs import build_cluster, load_job

    for path in _jobs(shared_data):
        prof, base = load_job(path)
        spec, _ = build_cluster(prof, None, None, False)
        rec = recommend(
            prof, base, spec, objective=objective, n_trials=40, allow_memory=True, seed=1
        )
        report = lint_config(prof, rec.config, spec, base=base, emitted=set(rec.properties))
        assert not report.errors, (path.name, [f.line() for f in report.errors])


def test_a_lint_error_stops_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The optimizer should never emit an error; forced to (a 2.7 cluster handed ZStandard),
    the command prints one line, writes nothing and exits 2."""
    import mrtune.optimizer.recommend as rec_mod

    prof = tmp_path / "sort.json"
    prof.write_text(sort_job(hadoop_version="2.7.3").model_dump_json(), encoding="utf-8")
    real = rec_mod.recommend

    def with_zstd(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        rec = real(*args, **kwargs)
        rec.config = rec.config.with_changes(
            {"mapreduce.map.output.compress": True, "mapreduce.map.output.compress.codec": "zstd"}
        )
        return rec

    monkeypatch.setattr("mrtune.cli.optimize.recommend", with_zstd)
    out = tmp_path / "mapred-site.xml"
    res = CliRunner().invoke(
        cli_app, ["optimize", str(prof), "--trials", "8", "--nodes", "4", "-o", str(out)]
    )
    assert res.exit_code == 2, res.output
    assert "lint" in res.output and "zstd" in res.output and "nothing written" in res.output
    assert not out.exists()
    as_json = CliRunner().invoke(
        cli_app, ["optimize", str(prof), "--trials", "8", "--nodes", "4", "--format", "json"]
    )
    assert as_json.exit_code == 2  # no JSON recommendation either
    monkeypatch.undo()
    clean = CliRunner().invoke(
        cli_app, ["optimize", str(prof), "--trials", "8", "--nodes", "4", "-o", str(out)]
    )
    assert clean.exit_code == 0, clean.output
    assert out.exists() and ("lint: clean" in clean.output or "Lint" in clean.output)


def test_the_batch_cluster_wide_file_is_linted() -> None:
    """The issue's case: io.sort.mb=600 in the default 1 GiB containers (820 MB heap) leaves
    ~220 MB for user code; a container above the nodes is refused."""
    from mrtune.optimizer.batch import ClusterChoice

    def choice(**values: float) -> ClusterChoice:
        names = list(values)
        return ClusterChoice(
            names=names,
            values=dict(values),
            baseline=dict.fromkeys(names, -2.0),
            total_baseline=1.0,
            total_chosen=1.0,
        )

    report = choice(**{"mapreduce.task.io.sort.mb": 600.0}).lint(CLUSTER)
    (f,) = report.findings
    assert f.rule == "sort-buffer-heap" and f.severity == Severity.LOW and f.value == "600"
    assert not choice(**{"mapreduce.task.io.sort.mb": 300.0}).lint(CLUSTER).findings
    big = choice(**{"mapreduce.map.memory.mb": 9000.0}).lint(CLUSTER)
    assert [f.severity for f in big.errors] == [Severity.ERROR]
    over = choice(**{"mapreduce.task.io.sort.mb": 1000.0}).lint(CLUSTER)  # above the heap
    assert over.errors and over.errors[0].rule == "sort-buffer-heap"
