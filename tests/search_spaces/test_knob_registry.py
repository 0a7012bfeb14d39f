"""Meta-test of the knob registry: for every knob, the registry, ``HadoopConfig`` and the property
names written for Hadoop 1 and Hadoop 2/3 agree (issue 13, "a knob has one identity").

The reference data here is independent of the code under test: the property names each Hadoop
line really has (Hadoop 1.2.1 ``mapred-default.xml`` / ``JobContext`` constants; Hadoop 3.3
``mapred-default.xml`` / ``MRJobConfig``) and Hadoop 3.3's defaults (reference §8.4).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Annotated, Any

import pytest
from pydantic import TypeAdapter, ValidationError

from mrtune.costmodel import DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.batch import ConfigBatch
from mrtune.optimizer.outputs import NameStyle, rename
from mrtune.search_spaces import KNOBS, Knob, find_knob, knob_property_names, knob_to_properties
from mrtune.search_spaces.space import HEAP_OPTS

#: Property names a Hadoop 1.x job configuration has for the tuned settings.
HADOOP1_NAMES = {
    "io.sort.mb",
    "io.sort.spill.percent",
    "io.sort.record.percent",
    "io.sort.factor",
    "min.num.spills.for.combine",
    "mapreduce.combine.class",  # new-API JobContext.COMBINE_CLASS_ATTR in Hadoop 1
    "mapred.combiner.class",
    "mapred.compress.map.output",
    "mapred.map.output.compression.codec",
    "mapred.output.compress",
    "mapred.output.compression.codec",
    "mapred.reduce.tasks",
    "mapred.reduce.slowstart.completed.maps",
    "mapred.job.shuffle.input.buffer.percent",
    "mapred.job.shuffle.merge.percent",
    "mapred.job.reduce.input.buffer.percent",
    "mapred.inmem.merge.threshold",
    "mapred.reduce.parallel.copies",
    "mapred.min.split.size",
    "mapred.max.split.size",
    "mapred.job.map.memory.mb",
    "mapred.job.reduce.memory.mb",
}
#: Property names Hadoop 2/3 has for the tuned settings (MRJobConfig constants).
HADOOP3_NAMES = {
    "mapreduce.map.java.opts",
    "mapreduce.reduce.java.opts",
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "mapreduce.task.io.sort.factor",
    "mapreduce.map.combine.minspills",
    "mapreduce.job.combine.class",
    "mapreduce.map.output.compress",
    "mapreduce.map.output.compress.codec",
    "mapreduce.output.fileoutputformat.compress",
    "mapreduce.output.fileoutputformat.compress.codec",
    "mapreduce.job.reduces",
    "mapreduce.job.reduce.slowstart.completedmaps",
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.shuffle.memory.limit.percent",
    "mapreduce.reduce.merge.inmem.threshold",
    "mapreduce.reduce.input.buffer.percent",
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.map.memory.mb",
    "mapreduce.reduce.memory.mb",
}
#: Hadoop 3.3 defaults in the knobs' own units (reference §8.4; split = the 128 MB block;
#: memory.mb -1 = inferred, 1024 without an -Xmx; the combiner is off unless the job sets one).
HADOOP3_DEFAULTS: dict[str, Any] = {
    "mapreduce.task.io.sort.mb": 100,
    "mapreduce.map.sort.spill.percent": 0.80,
    "io.sort.record.percent": 0.05,
    "mapreduce.task.io.sort.factor": 10,
    "mapreduce.map.combine.minspills": 3,
    "mapreduce.job.combine.class": False,
    "mapreduce.map.output.compress.codec": "none",
    "mapreduce.output.fileoutputformat.compress.codec": "none",
    "mapreduce.job.reduces": 1,
    "mapreduce.job.reduce.slowstart.completedmaps": 0.05,
    "mapreduce.reduce.shuffle.input.buffer.percent": 0.70,
    "mapreduce.reduce.shuffle.merge.percent": 0.66,
    "mapreduce.reduce.shuffle.memory.limit.percent": 0.25,
    "mapreduce.reduce.merge.inmem.threshold": 1000,
    "mapreduce.reduce.input.buffer.percent": 0.0,
    "mapreduce.reduce.shuffle.parallelcopies": 5,
    "mapreduce.input.fileinputformat.split.maxsize": 128 * 2**20,
    "mapreduce.map.memory.mb": 1024,
    "mapreduce.reduce.memory.mb": 1024,
}
VERSIONS = (1, 2, 3)
PROFILE = JobProfile(
    job_id="j",
    input_bytes=2**30,
    has_combiner=True,
    combine_class="org.example.Sum",
    stats=DataflowStats(input_pair_width=100, combine_pairs_sel=0.5, combine_size_sel=0.5),
)
IDS = [k.name for k in KNOBS]


def roomy_base(version: int) -> HadoopConfig:
    """A configuration in which every probe value of every knob is valid on its own: a heap
    above 2047 MB (io.sort.mb edges) and a single-shuffle limit below every merge percent."""
    return HadoopConfig(
        hadoop_version=version,
        map_java_opts="-Xmx4096m",
        reduce_java_opts="-Xmx4096m",
        shuffle_memory_limit_percent=0.05,
        shuffle_merge_percent=0.99,
    )


def probe_values(k: Knob) -> list[Any]:
    """The search ends, the grid, the default and the choices of ``k``, as knob values."""
    if k.kind == "bool":
        return [False, True]
    if k.kind == "categorical":
        return list(k.choices)
    raw = [k.low, k.high, k.default, *k.grid]
    return sorted({k.decode(float(v)) for v in raw})  # type: ignore[arg-type]


@pytest.mark.parametrize("knob", KNOBS, ids=IDS)
def test_knob_is_a_hadoop_config_field_and_a_batch_column(knob: Knob) -> None:
    field = HadoopConfig.model_fields[knob.field]
    assert field.alias == knob.name
    assert knob.column in {f.name for f in fields(ConfigBatch)}
    assert find_knob(knob.name) is knob
    assert find_knob(knob.field) is knob
    assert find_knob(knob.hadoop1_name) is knob
    for prop in knob_property_names(knob):
        if prop in HEAP_OPTS.values():
            continue  # the heap written with a container size: coupled to it, not a knob
        assert find_knob(prop) is knob


@pytest.mark.parametrize("knob", KNOBS, ids=IDS)
def test_type_and_default_agree_with_hadoop(knob: Knob) -> None:
    assert knob.default == HADOOP3_DEFAULTS[knob.name]
    assert type(knob.default) is type(HADOOP3_DEFAULTS[knob.name])
    ann = HadoopConfig.model_fields[knob.field].annotation
    if knob.kind in {"int", "float"}:
        assert ann is {"int": int, "float": float}[knob.kind]


def _field_accepts(knob: Knob, value: float) -> bool:
    field = HadoopConfig.model_fields[knob.field]
    try:
        adapter = TypeAdapter(Annotated[(field.annotation, *field.metadata)])  # type: ignore[valid-type]
        adapter.validate_python(value)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(
    "knob", [k for k in KNOBS if k.kind in {"int", "float"}], ids=lambda k: k.name
)
def test_hadoop_valid_range_is_the_config_fields_and_contains_the_search_range(
    knob: Knob,
) -> None:
    """``Knob.parse`` (what --set takes) accepts exactly what the HadoopConfig field accepts,
    probed at and around the valid edges and across the search range."""
    step = 1 if knob.kind == "int" else 1e-6
    probes = [knob.low, knob.high, *knob.grid]
    for edge in (knob.valid_low, knob.valid_high):
        if abs(edge) < 2**62:
            probes += [edge - step, edge, edge + step]
    for v in probes:
        v = int(v) if knob.kind == "int" else float(v)  # type: ignore[arg-type]
        try:
            knob.parse(v)
            parsed = True
        except ValueError as exc:
            assert "allowed: " in str(exc)
            parsed = False
        assert parsed == _field_accepts(knob, v), v
    for v in (knob.low, knob.high, *knob.grid):
        assert knob.accepts(float(v))  # type: ignore[arg-type]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("knob", KNOBS, ids=IDS)
def test_written_properties_exist_in_the_version_and_read_back(knob: Knob, version: int) -> None:
    """Every value the search may propose is written under names the target Hadoop has, and
    reading the written configuration back gives the value that was scored."""
    if not knob.applies_to(version):
        pytest.skip(f"{knob.name} is not tuned in Hadoop {version}")
    base = roomy_base(version)
    known = HADOOP1_NAMES if version == 1 else HADOOP3_NAMES
    style = NameStyle.hadoop1 if version == 1 else NameStyle.hadoop2
    for value in probe_values(knob):
        props = knob_to_properties(knob, value, base, PROFILE)
        assert set(props) <= set(knob_property_names(knob))
        written = rename({p: str(v) for p, v in props.items()}, style)
        assert set(written) <= known, written
        cfg = base.with_changes(props)
        assert ConfigBatch._columns_of(cfg)[knob.column] == pytest.approx(knob.encode(value))
        out = rename(cfg.to_properties(), style)
        for prop in knob_property_names(knob):
            name = rename({prop: ""}, style).popitem()[0]
            assert name in known
        back = HadoopConfig.from_properties(out, hadoop_version=version)
        assert ConfigBatch._columns_of(back)[knob.column] == pytest.approx(knob.encode(value))


def test_version_only_properties_are_written_only_there() -> None:
    record = find_knob("io.sort.record.percent")
    limit = find_knob("mapreduce.reduce.shuffle.memory.limit.percent")
    assert record.versions == (1,)
    assert limit.versions == (2, 3)
    assert "io.sort.record.percent" in HadoopConfig(hadoop_version=1).to_properties()
    assert "io.sort.record.percent" not in HadoopConfig(hadoop_version=3).to_properties()
    assert limit.name not in HadoopConfig(hadoop_version=1).to_properties()


def test_hadoop1_defaults_follow_its_64_mb_block() -> None:
    assert find_knob("mapred.max.split.size").default_for(1) == 64 * 2**20
    assert find_knob("mapred.max.split.size").default_for(3) == 128 * 2**20


def test_a_knob_that_leaves_hadoops_range_is_refused_at_declaration() -> None:
    with pytest.raises(ValueError, match="leaves what Hadoop accepts"):
        Knob("mapreduce.task.io.sort.mb", "io_sort_mb", "map", "x", 1, 4096)
    with pytest.raises(ValueError, match="no HadoopConfig field"):
        Knob("mapreduce.no.such.setting", "io_sort_mb", "map", "x", 1, 2)
    with pytest.raises(ValueError, match="not a ConfigBatch column"):
        Knob("mapreduce.task.io.sort.mb", "sort_mb", "map", "x", 1, 2)
