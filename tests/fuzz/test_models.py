"""Hypothesis on the three input models (profile, configuration, cluster): whatever values
they are given, validation refuses them or the prediction is finite and non-negative."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.whatif import what_if
from mrtune.readers.safe_io import check_profile_numbers
from tests.fuzz.harness import check_prediction
from tests.fuzz.mutators import EXAMPLES

BASE = json.loads((EXAMPLES / "profiles" / "wordcount-rumen.json").read_text())
NUMBERS = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, -1, 0.5, 1e-300, 1e300, 2**63, 2**31, 1e18])
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _predict(profile: JobProfile, config: HadoopConfig, cluster: ClusterSpec) -> None:
    try:
        cluster.check_fits(config)
    except ValueError:
        return
    out = what_if(profile, config, cluster, {})
    assert check_prediction(out) == [], out


@SETTINGS
@given(section=st.sampled_from(["stats", "costs"]), data=st.data())
def test_profile_numbers(section: str, data: st.DataObject) -> None:
    d = json.loads(json.dumps(BASE))
    keys = sorted(k for k, v in d[section].items() if isinstance(v, int | float | None))
    for k in data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3)):
        d[section][k] = data.draw(NUMBERS)
    if data.draw(st.booleans()):
        d["input_bytes"] = data.draw(NUMBERS)
    try:
        p = JobProfile.model_validate(d)
        check_profile_numbers(p, "p.json")
    except (ValidationError, InputError):
        return
    cfg = HadoopConfig.from_properties(p.source_properties, hadoop_version=2)
    _predict(p, cfg, ClusterSpec(num_nodes=4))


CONFIG_KEYS = [
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "mapreduce.task.io.sort.factor",
    "mapreduce.job.reduces",
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.map.memory.mb",
    "mapreduce.reduce.memory.mb",
    "mapreduce.map.cpu.vcores",
    "mapreduce.reduce.input.buffer.percent",
    "mapreduce.input.fileinputformat.split.maxsize",
    "dfs.blocksize",
]


@SETTINGS
@given(
    values=st.dictionaries(st.sampled_from(CONFIG_KEYS), NUMBERS, min_size=1, max_size=4),
    heap=st.sampled_from([None, "-Xmx100g", "-Xmx512m", "-Xmx99999999999999999999g", "-Xmx1m"]),
    nodes=st.integers(1, 100_000),
    node_mb=st.sampled_from([256, 8192, 2**31, 2**40]),
    node_vc=st.sampled_from([1, 8, 2**40]),
    startup=st.sampled_from([0.0, 1e308, float("inf")]),
)
def test_config_and_cluster(
    values: dict, heap: str | None, nodes: int, node_mb: int, node_vc: int, startup: float
) -> None:
    props = {k: str(v) for k, v in values.items()}
    if heap:
        props["mapreduce.map.java.opts"] = heap
    try:
        cfg = HadoopConfig.from_properties(props, hadoop_version=3)
        cluster = ClusterSpec(
            num_nodes=nodes, node_memory_mb=node_mb, node_vcores=node_vc, task_startup_ms=startup
        )
    except (ValidationError, ValueError):
        return
    _predict(JobProfile.model_validate(BASE), cfg, cluster)
