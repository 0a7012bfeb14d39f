"""Real MapReduce on Hadoop's mini-cluster (marker ``yarn``; `.ci/run` fetches the jars).

One small sort on 2 NodeManagers: 20 MiB of records in 2 MiB HDFS blocks (10 maps), 1 MiB sort
buffer (several spills per map), 2 reduces, slow-start 1.0 (reducers take no map slots), 256 MiB
task containers on 1024 MiB NodeManagers beside a 512 MiB AM: 6 map slots, so 2 waves. The
model, profiled from the run's own .jhist/_conf.xml through the readers, must match its record
counters and its waves; and no process of the run may survive it.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.yarn

MIB = 1 << 20


@pytest.fixture(scope="module")
def yarn_run():
    """One run for the module. Its folder is our own mkdtemp, not pytest's numbered basetemp:
    on a shared machine another session's pytest may prune /tmp/pytest-of-<user> meanwhile."""
    import shutil
    import tempfile
    from pathlib import Path

    from mrtune.harness.compile import compile_jobs
    from mrtune.harness.datagen import write_records
    from mrtune.harness.jars import HadoopJars
    from mrtune.harness.minicluster import find_minicluster
    from mrtune.harness.yarn_run import MiniCluster, run_on_minicluster

    mc = find_minicluster()
    jobs_jar = compile_jobs(HadoopJars("minicluster", mc.directory, tuple(mc.jars()), "3.5.0"))
    base = Path(tempfile.mkdtemp(prefix="mrtune-yarn-test-"))
    data = base / "in.dat"
    write_records(data, 20 * MIB)
    cluster = MiniCluster(block_size=2 * MIB)
    args = [
        "sort",
        "-D",
        "mapreduce.job.reduces=2",
        "-D",
        "mapreduce.task.io.sort.mb=1",
        "-D",
        "mapreduce.job.reduce.slowstart.completedmaps=1.0",
        "/in",
        "/out",
    ]
    run = run_on_minicluster(
        mc, jobs_jar, "mrtune.jobs.Driver", args, base / "run", cluster, {data: "/in/in.dat"}
    )
    yield run, cluster
    shutil.rmtree(base, ignore_errors=True)


def test_run_succeeds_and_keeps_real_history(yarn_run) -> None:
    run, _ = yarn_run
    assert run.success, (run.run_dir / "launcher.log").read_text()[-3000:]
    assert run.jhist.read_text(errors="replace").startswith("Avro-Json")
    assert "<configuration" in run.conf_xml.read_text()
    assert run.launcher["cluster_start_s"] > 0


def test_no_process_left_behind(yarn_run) -> None:
    run, _ = yarn_run
    from mrtune.harness.yarn_run import leftover_processes

    assert run.leftover_pids == []
    assert leftover_processes(run.run_dir) == []


def test_model_counters_and_waves_match_the_jhist(yarn_run) -> None:
    from mrtune.harness.yarn_check import RECORD_COUNTERS, compare

    run, cluster = yarn_run
    got = compare(run.jhist, run.conf_xml, cluster)
    meas, pred = got["measured"], got["predicted"]
    assert meas["num_maps"] == pred["num_maps"] == 10
    assert meas["num_reduces"] == pred["num_reduces"] == 2
    for name in RECORD_COUNTERS:
        assert meas[name] is not None, name
        assert pred[name] == pytest.approx(meas[name], rel=1e-9), name
    # several spills per map: SPILLED_RECORDS is more than twice the map output records
    assert meas["SPILLED_RECORDS"] > 2 * meas["MAP_OUTPUT_RECORDS"]
    assert pred["map_slots"] == meas["map_slots"] == 6
    assert pred["map_waves"] == meas["map_waves"] == 2
