"""Settings the job's own code fixes (``<source>programmatically</source>``) are not searched.

The examples' AggregateWordCount sets its reducers in code: it was offered 2 -> 1 reducers, and
a real run with ``-D mapreduce.job.reduces=4`` still launched 2.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from mrtune.calibration import load_profile_source
from mrtune.costmodel import ClusterSpec
from mrtune.profiling import profile_config
from mrtune.profiling.job_fixed import fixed_by_code
from mrtune.search_spaces import SearchSpace


def test_the_last_source_before_job_xml_decides() -> None:
    conf = SimpleNamespace(
        sources={
            "mapreduce.job.reduces": ["programmatically", "job.xml"],
            "mapreduce.job.combine.class": ["programmatically", "from command line", "job.xml"],
            "mapreduce.output.fileoutputformat.compress": ["programatically"],  # Hadoop < 2.8
            "mapreduce.map.memory.mb": ["programmatically", "job.xml"],  # cluster-level: kept
        }
    )
    assert fixed_by_code(conf) == [
        "mapreduce.job.reduces",
        "mapreduce.output.fileoutputformat.compress",
    ]
    assert fixed_by_code(None) == [] and fixed_by_code({"a": "b"}) == []


def test_the_pi_estimators_reducer_is_left_alone(shared_data: Path) -> None:
    # QuasiMonteCarlo calls setNumReduceTasks(1): its conf says "programatically"
    jhist = next((shared_data / "jhist").glob("job_1526555215992_0001-*.jhist"))
    conf = shared_data / "jhist" / "job_1526555215992_0001_conf.xml"
    prof = load_profile_source(jhist, conf)
    assert "mapreduce.job.reduces" in prof.fixed_by_job
    space = SearchSpace.for_job(prof, profile_config(prof), ClusterSpec(num_nodes=4))
    assert "mapreduce.job.reduces" not in space.names
    assert any("the job's code sets it" in w for w in space.withheld)
