"""SearchSpace: which knobs apply to a job, repair and feasibility, encodings, job-aware grids,
and how a knob value is written as Hadoop properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.search_spaces import KNOBS, SearchSpace, find_knob, knob_to_properties
from mrtune.search_spaces.constraints import SORT_BUFFER_HEAP_SHARE
from mrtune.search_spaces.knobs import Role

GB = 2**30
MB = 2**20
CLUSTER = ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=8)
STATS = DataflowStats(input_pair_width=100, map_pairs_sel=1.0, map_size_sel=1.0)
SORT_MB = "mapreduce.task.io.sort.mb"
REDUCES = "mapreduce.job.reduces"
LIMIT = "mapreduce.reduce.shuffle.memory.limit.percent"
MERGE = "mapreduce.reduce.shuffle.merge.percent"


def job(**kw: object) -> JobProfile:
    args: dict[str, object] = {"job_id": "j", "input_bytes": 8 * GB, "stats": STATS}
    args.update(kw)
    return JobProfile(**args)  # type: ignore[arg-type]


def space(profile: JobProfile | None = None, base: HadoopConfig | None = None, **kw: object):
    return SearchSpace.for_job(
        profile or job(), base or HadoopConfig(num_reducers=4), CLUSTER, **kw
    )  # type: ignore[arg-type]


# ---------------------------------------------------------------------- which knobs apply
def test_default_space_leaves_out_memory_unmodelled_and_combiner_knobs() -> None:
    names = set(space().names)
    assert SORT_MB in names and REDUCES in names and LIMIT in names
    assert "mapreduce.map.memory.mb" not in names  # only with allow_memory
    assert "mapreduce.reduce.shuffle.parallelcopies" not in names  # no modelled effect
    assert "mapreduce.job.combine.class" not in names  # the job has no combiner
    assert "io.sort.record.percent" not in names  # Hadoop 1 only


def test_combiner_memory_and_explicit_knobs_on_request() -> None:
    s = space(job(has_combiner=True), allow_memory=True)
    assert "mapreduce.map.combine.minspills" in s.names
    # The job's code sets its combiner, which no site file overrides: asked for by name only.
    assert "mapreduce.job.combine.class" not in s.names
    named = space(job(has_combiner=True), only=["mapreduce.job.combine.class"])
    assert named.names == ["mapreduce.job.combine.class"]
    assert {"mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb"} <= set(s.names)
    only = space(only=["mapred.reduce.parallel.copies", "io.sort.mb"])
    assert only.names == [SORT_MB, "mapreduce.reduce.shuffle.parallelcopies"]  # registry order
    assert "mapreduce.map.memory.mb" not in space(only=["mapreduce.map.memory.mb"]).names


def test_map_only_job_has_no_sort_buffer_or_reduce_side_knobs() -> None:
    s = space(job(map_only=True), HadoopConfig(num_reducers=0))
    for k in s.knobs:
        assert k.side != "reduce" and not k.needs_reduce, k.name
    assert "mapreduce.input.fileinputformat.split.maxsize" in s.names
    # the maps write the job's output: its codec is searched (test_map_only_output_codec.py)
    assert "mapreduce.output.fileoutputformat.compress.codec" in s.names


def test_hadoop1_space() -> None:
    s = space(base=HadoopConfig(hadoop_version=1, num_reducers=4), allow_memory=True)
    assert "io.sort.record.percent" in s.names
    assert LIMIT not in s.names and "mapreduce.map.memory.mb" not in s.names
    codec = next(k for k in s.knobs if k.role == Role.map_codec)
    assert not {"lz4", "zstd", "snappy"} & set(codec.choices)  # 0.20 lacks them (issue 14)


def test_local_mode_drops_what_localjobrunner_ignores() -> None:
    s = space(allow_memory=True, local_mode_honoured=True)
    assert not any(k.local_mode_ignored for k in s.knobs)
    assert "mapreduce.job.reduce.slowstart.completedmaps" not in s.names


def test_unknown_setting_names_the_closest() -> None:
    with pytest.raises(KeyError, match="closest: mapreduce.task.io.sort.mb"):
        space(only=["mapreduce.task.io.sort.mbb"])


# ---------------------------------------------------------------------- repair / feasible
def test_repair_caps_the_sort_buffer_and_keeps_shuffle_limit_below_merge() -> None:
    s = space()
    heap_mb = HadoopConfig().map_heap_bytes / MB
    v = s.repair({SORT_MB: np.array([2047.0, 50.0]), LIMIT: np.array([0.9, 0.1])})
    assert v[SORT_MB][0] == np.floor(SORT_BUFFER_HEAP_SHARE * heap_mb) and v[SORT_MB][1] == 50
    assert v[LIMIT][0] < HadoopConfig().shuffle_merge_percent
    assert s.feasible(v).all()
    assert not s.feasible({SORT_MB: np.array([2047.0])})[0]
    assert not s.feasible({LIMIT: np.array([0.8]), MERGE: np.array([0.5])})[0]


def test_repair_keeps_hadoop_valid_values_outside_the_search_range() -> None:
    """20,000 reducers is above the search range but a configuration Hadoop runs."""
    s = space(only=[REDUCES, "mapreduce.task.io.sort.factor"])
    v = s.repair({REDUCES: np.array([20000.0]), "mapreduce.task.io.sort.factor": np.array([1e9])})
    assert v[REDUCES][0] == 20000
    assert v["mapreduce.task.io.sort.factor"][0] == 10000  # HadoopConfig's upper bound
    assert s.feasible(v)[0]


def test_hadoop1_has_no_single_shuffle_invariant() -> None:
    s = space(base=HadoopConfig(hadoop_version=1, num_reducers=4), only=[MERGE])
    assert s.feasible({MERGE: np.array([0.2])})[0]


# ---------------------------------------------------------------------- encodings
@given(st.lists(st.floats(0, 1), min_size=1, max_size=1).map(lambda x: x[0]))
def test_unit_cube_round_trip(u: float) -> None:
    s = space(job(has_combiner=True))
    point = np.full((1, len(s.knobs)), u)
    values = s.from_unit(point)
    again = s.from_unit(s.to_unit(values))
    for k in s.knobs:
        if k.kind in {"bool", "categorical"}:
            assert again[k.name][0] == values[k.name][0]
        else:
            assert again[k.name][0] == pytest.approx(values[k.name][0], rel=1e-6, abs=1.0)


def test_values_to_config_writes_codecs_and_keeps_unchanged_properties() -> None:
    base = HadoopConfig(num_reducers=4, map_output_compress=True, map_output_codec="snappy")
    s = space(base=base)
    codec = find_knob("mapreduce.map.output.compress.codec")
    cur = s.current_values()
    assert cur[codec.name] == "snappy"
    row = {k.name: k.encode(cur[k.name]) for k in s.knobs}
    assert s.values_to_config(row) == base
    row[codec.name] = codec.encode("none")
    off = s.values_to_config(row)
    assert not off.map_output_compress and off.map_output_codec == "snappy"


def test_split_knob_is_written_as_filesplit_min_and_max() -> None:
    k = find_knob("mapreduce.input.fileinputformat.split.maxsize")
    base = HadoopConfig()
    big = base.with_changes(knob_to_properties(k, 512 * MB, base, job()))
    small = base.with_changes(knob_to_properties(k, 32 * MB, base, job()))
    assert big.split_size == 512 * MB and big.split_minsize == 512 * MB
    assert small.split_size == 32 * MB and small.split_maxsize == 32 * MB


def test_combiner_knob_writes_the_jobs_combiner_class() -> None:
    k = find_knob("mapreduce.job.combine.class")
    prof = job(has_combiner=True, combine_class="org.example.Sum")
    on = knob_to_properties(k, True, HadoopConfig(), prof)
    assert on == {"mapreduce.job.combine.class": "org.example.Sum"}
    assert (
        HadoopConfig()
        .with_changes(knob_to_properties(k, False, HadoopConfig(), prof))
        .combine_class
        is None
    )


# ---------------------------------------------------------------------- job-aware grids
def test_job_aware_grids() -> None:
    s = space()
    reduces = s.grid(find_knob(REDUCES))
    slots = s._slots(HadoopConfig().reduce_container_mb, 1, reduce=True)
    assert slots in reduces and 2 * slots in reduces
    sort = s.grid(find_knob(SORT_MB))
    split = HadoopConfig().split_size
    need = np.ceil((split + 16.0 * split / 100) / 0.8 / MB) + 1  # one map's output in one spill
    assert need in sort
    assert set(KNOBS[0].grid) <= set(sort)


def test_sort_buffer_cap_only_when_the_map_heap_is_fixed() -> None:
    assert space().sort_buffer_cap_mb() == np.floor(
        SORT_BUFFER_HEAP_SHARE * HadoopConfig().map_heap_bytes / MB
    )
    assert space(allow_memory=True).sort_buffer_cap_mb() is None


def test_a_container_change_writes_the_heap_with_it() -> None:
    """Issue 14's case: an 819 MB map heap must not stay in a 512 MB container."""
    from mrtune.costmodel import HadoopConfig, JobProfile
    from mrtune.search_spaces import find_knob, knob_to_properties

    base = HadoopConfig(map_java_opts="-Xmx819m -XX:+UseG1GC", map_memory_mb=1024)
    props = knob_to_properties(
        find_knob("mapreduce.map.memory.mb"), 512, base, JobProfile(input_bytes=1e9)
    )
    assert props == {
        "mapreduce.map.memory.mb": 512,
        "mapreduce.map.java.opts": "-Xmx409m -XX:+UseG1GC",
    }
    cfg = base.with_changes(props)  # valid: the heap now fits its container
    assert cfg.map_heap_bytes <= 512 * 2**20
    # a derived heap (no -Xmx) follows the container by itself: nothing else is written
    derived = knob_to_properties(
        find_knob("mapreduce.map.memory.mb"), 512, HadoopConfig(), JobProfile(input_bytes=1e9)
    )
    assert derived == {"mapreduce.map.memory.mb": 512}
