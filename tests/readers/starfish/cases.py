"""The two Starfish-format test jobs, and the writer of their XML files.

Each case fixes a Hadoop 1 configuration, the job's statistics and cost factors, its input
splits and its cluster; :func:`profile_tree` computes the profile's counters and ``<timings>``
with the reference equations (:mod:`.reference_model`) and lays them out in Starfish's format.
``python -m tests.readers.starfish.make_fixtures`` writes them to ``fixtures/``; a test checks that the
files on disk still equal what this module generates.

* ``terasort``: no combiner, map output compressed (Snappy, ratio 0.35), 8 splits of 64 MB,
  4 reducers; cost factors of the magnitude of Starfish's TeraSort test profile (reference
  §1.3). Three spills per map (the accounting buffer is the bottleneck), one in-memory merge
  per reducer and one segment evicted at the final merge.
* ``wordcount``: a combiner (pairs and size selectivity 0.1), no compression, 4 splits of
  15 MB, 2 reducers, ``io.sort.record.percent=0.4`` so each map spills once; every shuffled
  segment stays in memory until the final merge.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from xml.etree import ElementTree as ET

from .reference_model import MB, RefConf, RefCosts, RefStats, reference_job


@dataclass(frozen=True)
class Case:
    name: str
    job_id: str
    conf: RefConf
    conf_properties: dict[str, str]
    stats: RefStats
    costs: RefCosts
    split_size: float
    num_splits: int
    setup_ms: dict[str, float]
    cleanup_ms: dict[str, float]
    memory_stats: dict[str, float]
    hosts: list[tuple[str, str, int, int]]  # (rack, host, map slots, reduce slots)
    combiner_class: str | None = None
    inputs: list[str] = field(default_factory=list)


TERASORT_COSTS = RefCosts(
    hdfs_read=91.7,
    hdfs_write=863.7,
    local_read=297.8,
    local_write=1138.3,
    network=443.5,
    map_cpu=12568.0,
    reduce_cpu=13630.0,
    combine_cpu=0.0,
    partition_cpu=2580.0,
    serde_cpu=5421.0,
    sort_cpu=329.8,
    merge_cpu=114.6,
    in_uncompr=100.0,
    interm_uncompr=396.0,
    interm_compr=317.7,
    out_compr=276.2,
)

TERASORT = Case(
    name="terasort",
    job_id="job_201108081200_0001",
    conf=RefConf(num_reducers=4, interm_compressed=True),
    conf_properties={
        "io.sort.mb": "100",
        "io.sort.record.percent": "0.05",
        "io.sort.spill.percent": "0.80",
        "io.sort.factor": "10",
        "min.num.spills.for.combine": "3",
        "mapred.reduce.tasks": "4",
        "mapred.child.java.opts": "-Xmx200m",
        "mapred.compress.map.output": "true",
        "mapred.map.output.compression.codec": "org.apache.hadoop.io.compress.SnappyCodec",
        "mapred.output.compress": "false",
        "mapred.output.compression.codec": "org.apache.hadoop.io.compress.GzipCodec",
        "mapred.job.shuffle.input.buffer.percent": "0.70",
        "mapred.job.shuffle.merge.percent": "0.66",
        "mapred.inmem.merge.threshold": "1000",
        "mapred.job.reduce.input.buffer.percent": "0.0",
        "mapred.reduce.slowstart.completed.maps": "0.05",
        "mapred.tasktracker.map.tasks.maximum": "2",
        "mapred.tasktracker.reduce.tasks.maximum": "2",
        "dfs.block.size": "67108864",
        "mapred.job.name": "TeraSort",
    },
    stats=RefStats(
        input_pair_width=100.0,
        interm_compress_ratio=0.35,
        out_compress_ratio=0.3,
    ),
    costs=TERASORT_COSTS,
    split_size=64_000_000.0,
    num_splits=8,
    setup_ms={"map": 120.0, "reduce": 120.0},
    cleanup_ms={"map": 30.0, "reduce": 30.0},
    memory_stats={
        "STARTUP_MEM": 10.0 * MB,
        "SETUP_MEM": 1.0 * MB,
        "MAP_MEM_PER_RECORD": 100.0,
        "REDUCE_MEM_PER_RECORD": 100.0,
        "CLEANUP_MEM": 1.0 * MB,
    },
    hosts=[
        ("rack1", "node1", 2, 2),
        ("rack1", "node2", 2, 2),
        ("rack2", "node3", 2, 2),
        ("rack2", "node4", 2, 2),
    ],
    inputs=["hdfs://namenode:9000/user/hero/terasort/in"],
)

WORDCOUNT = Case(
    name="wordcount",
    job_id="job_201108081200_0002",
    conf=RefConf(num_reducers=2, rec_perc=0.4, use_combine=True),
    conf_properties={
        "io.sort.mb": "100",
        "io.sort.record.percent": "0.4",
        "mapred.reduce.tasks": "2",
        "mapred.child.java.opts": "-Xmx200m",
        "mapred.combiner.class": "org.apache.hadoop.examples.WordCount$IntSumReducer",
    },
    stats=RefStats(
        input_pair_width=60.0,
        map_size_sel=1.6,
        map_pairs_sel=8.0,
        combine_pairs_sel=0.1,
        combine_size_sel=0.1,
        reduce_pairs_sel=0.25,
        reduce_size_sel=0.25,
        reduce_pairs_per_group=4.0,
    ),
    costs=RefCosts(
        hdfs_read=20.0,
        hdfs_write=60.0,
        local_read=8.0,
        local_write=12.0,
        network=15.0,
        map_cpu=3000.0,
        reduce_cpu=1200.0,
        combine_cpu=900.0,
        partition_cpu=150.0,
        serde_cpu=400.0,
        sort_cpu=60.0,
        merge_cpu=80.0,
        in_uncompr=0.0,
        interm_uncompr=0.0,
        interm_compr=0.0,
        out_compr=0.0,
    ),
    split_size=15_000_000.0,
    num_splits=4,
    setup_ms={"map": 80.0, "reduce": 80.0},
    cleanup_ms={"map": 20.0, "reduce": 20.0},
    memory_stats={},
    hosts=[("default-rack", f"slave{i}", 4, 2) for i in range(1, 4)],
    combiner_class="org.apache.hadoop.examples.WordCount$IntSumReducer",
    inputs=["hdfs://namenode:9000/user/hero/wikipedia/2011-01"],
)

CASES = {c.name: c for c in (TERASORT, WORDCOUNT)}

MAP_COSTS = {
    "READ_HDFS_IO_COST": "hdfs_read",
    "READ_LOCAL_IO_COST": "local_read",
    "WRITE_LOCAL_IO_COST": "local_write",
    "MAP_CPU_COST": "map_cpu",
    "PARTITION_CPU_COST": "partition_cpu",
    "SERDE_CPU_COST": "serde_cpu",
    "SORT_CPU_COST": "sort_cpu",
    "MERGE_CPU_COST": "merge_cpu",
}
REDUCE_COSTS = {
    "WRITE_HDFS_IO_COST": "hdfs_write",
    "READ_LOCAL_IO_COST": "local_read",
    "WRITE_LOCAL_IO_COST": "local_write",
    "NETWORK_COST": "network",
    "REDUCE_CPU_COST": "reduce_cpu",
    "MERGE_CPU_COST": "merge_cpu",
}


def _costs_for(case: Case, kind: str) -> dict[str, float]:
    c = case.costs
    out = {k: getattr(c, f) for k, f in (MAP_COSTS if kind == "map" else REDUCE_COSTS).items()}
    if case.conf.use_combine:
        out["COMBINE_CPU_COST"] = c.combine_cpu
    if case.conf.interm_compressed:
        out["INTERM_COMPRESS_CPU_COST"] = c.interm_compr
        out["INTERM_UNCOMPRESS_CPU_COST"] = c.interm_uncompr
    if kind == "reduce" and case.stats.out_compress_ratio < 1:
        out["OUTPUT_COMPRESS_CPU_COST"] = c.out_compr
    return out


def _stats_for(case: Case, kind: str) -> dict[str, float]:
    s = case.stats
    if kind == "map":
        out = {
            "INPUT_PAIR_WIDTH": s.input_pair_width,
            "MAP_SIZE_SEL": s.map_size_sel,
            "MAP_PAIRS_SEL": s.map_pairs_sel,
        }
        if case.conf.use_combine:
            out["COMBINE_PAIRS_SEL"] = s.combine_pairs_sel
            out["COMBINE_SIZE_SEL"] = s.combine_size_sel
        if case.conf.interm_compressed:
            out["INTERM_COMPRESS_RATIO"] = s.interm_compress_ratio
    else:
        out = {
            "REDUCE_SIZE_SEL": s.reduce_size_sel,
            "REDUCE_PAIRS_SEL": s.reduce_pairs_sel,
            "REDUCE_PAIRS_PER_GROUP": s.reduce_pairs_per_group,
        }
        if s.out_compress_ratio < 1:
            out["OUT_COMPRESS_RATIO"] = s.out_compress_ratio
    out.update(case.memory_stats)
    return out


MAP_TIMING_KEYS = {
    "read": "READ",
    "map": "MAP",
    "collect": "COLLECT",
    "spill": "SPILL",
    "merge": "MERGE",
}
REDUCE_TIMING_KEYS = {"shuffle": "SHUFFLE", "merge": "SORT", "reduce": "REDUCE", "write": "WRITE"}


def _fmt(v: float) -> str:
    return repr(float(v))


def _section(parent: ET.Element, tag: str, entry: str, values: dict[str, float]) -> None:
    sec = ET.SubElement(parent, tag)
    for k, v in values.items():
        ET.SubElement(sec, entry, {"key": k, "value": _fmt(v)})


def profile_tree(case: Case) -> ET.Element:
    """The ``<job_profile>`` of ``case`` with reference-equation counters and timings."""
    m, r = reference_job(
        case.split_size, case.num_splits, False, case.conf, case.stats, case.costs
    )
    root = ET.Element(
        "job_profile",
        {
            "id": case.job_id,
            "num_mappers": str(case.num_splits),
            "num_reducers": str(case.conf.num_reducers),
        },
    )
    inputs = ET.SubElement(root, "inputs")
    for path in case.inputs:
        ET.SubElement(inputs, "input").text = path
    mp = ET.SubElement(
        root,
        "map_profile",
        {"id": f"{root.get('id')}_map_0", "input_index": "0", "num_tasks": str(case.num_splits)},
    )
    _section(mp, "counters", "counter", m.counters)
    _section(mp, "statistics", "statistic", _stats_for(case, "map"))
    _section(mp, "cost_factors", "cost_factor", _costs_for(case, "map"))
    timings = {MAP_TIMING_KEYS[k]: v for k, v in m.phases_ms.items()}
    timings["SETUP"] = case.setup_ms["map"]
    timings["CLEANUP"] = case.cleanup_ms["map"]
    _section(mp, "timings", "timing", timings)
    rp = ET.SubElement(
        root,
        "reduce_profile",
        {"id": f"{root.get('id')}_reduce", "num_tasks": str(case.conf.num_reducers)},
    )
    _section(rp, "counters", "counter", r.counters)
    _section(rp, "statistics", "statistic", _stats_for(case, "reduce"))
    _section(rp, "cost_factors", "cost_factor", _costs_for(case, "reduce"))
    timings = {REDUCE_TIMING_KEYS[k]: v for k, v in r.phases_ms.items()}
    timings["SETUP"] = case.setup_ms["reduce"]
    timings["CLEANUP"] = case.cleanup_ms["reduce"]
    _section(rp, "timings", "timing", timings)
    return root


def input_tree(case: Case) -> ET.Element:
    """Starfish's ``XMLInputSpecsParser`` form: ``<input>`` → ``<split …/>``, sizes in bytes."""
    root = ET.Element("input")
    ET.SubElement(
        root,
        "split",
        {
            "input_index": "0",
            "num_splits": str(case.num_splits),
            "size": str(int(case.split_size)),
            "compress": "false",
        },
    )
    return root


def unequal_input_tree() -> ET.Element:
    """Starfish's TeraSort what-if input: 200 splits of 128 MB and 100 of 30 MB."""
    root = ET.Element("input")
    for num, size in ((200, 128 * MB), (100, 30 * MB)):
        ET.SubElement(
            root,
            "split",
            {
                "input_index": "0",
                "num_splits": str(num),
                "size": str(int(size)),
                "compress": "false",
            },
        )
    return root


def cluster_tree(case: Case) -> ET.Element:
    """Starfish's ``XMLClusterParser`` form: a master rack with the JobTracker's host, then
    ``slave_host`` → ``task_tracker`` (with its port; ``max_slot_memory`` in MB)."""
    root = ET.Element("cluster", {"name": f"{case.name}-cluster"})
    master = ET.SubElement(root, "rack", {"name": "master-rack"})
    host = ET.SubElement(master, "master_host", {"name": "namenode", "ip": "10.0.0.254"})
    ET.SubElement(host, "job_tracker", {"name": "job_tracker_namenode", "port": "50002"})
    racks: dict[str, ET.Element] = {}
    for i, (rack, name, maps, reds) in enumerate(case.hosts):
        if rack not in racks:
            racks[rack] = ET.SubElement(root, "rack", {"name": rack})
        h = ET.SubElement(racks[rack], "slave_host", {"name": name, "ip": f"10.0.0.{i + 1}"})
        ET.SubElement(
            h,
            "task_tracker",
            {
                "name": f"tracker_{name}",
                "port": str(50060 + i),
                "map_slots": str(maps),
                "reduce_slots": str(reds),
                "max_slot_memory": "200",
            },
        )
    return root


def host_cluster_tree(case: Case) -> ET.Element:
    """mrtune's older ``rack`` → ``host`` → ``task_tracker`` form (memory in bytes)."""
    root = ET.Element("cluster", {"name": f"{case.name}-cluster"})
    racks: dict[str, ET.Element] = {}
    for rack, name, maps, reds in case.hosts:
        if rack not in racks:
            racks[rack] = ET.SubElement(root, "rack", {"name": rack})
        h = ET.SubElement(
            racks[rack], "host", {"name": name, "ip": f"10.0.0.{len(racks[rack]) + 1}"}
        )
        ET.SubElement(
            h,
            "task_tracker",
            {
                "name": f"tracker_{name}:localhost/127.0.0.1:50060",
                "map_slots": str(maps),
                "reduce_slots": str(reds),
                "max_slot_memory": str(200 * MB),
            },
        )
    return root


def specs_cluster_tree(case: Case) -> ET.Element:
    """Starfish's compact ``<specs>`` form of ``case``'s cluster (identical hosts only)."""
    racks = sorted({rack for rack, *_ in case.hosts})
    per_rack = {sum(1 for r, *_ in case.hosts if r == rack) for rack in racks}
    slots = {(m, r) for *_, m, r in case.hosts}
    assert len(per_rack) == 1 and len(slots) == 1, "the compact form needs identical hosts"
    (maps, reds), (hosts,) = slots.pop(), per_rack
    root = ET.Element("cluster", {"name": f"{case.name}-cluster"})
    ET.SubElement(
        root,
        "specs",
        {
            "num_racks": str(len(racks)),
            "hosts_per_rack": str(hosts),
            "map_slots_per_host": str(maps),
            "reduce_slots_per_host": str(reds),
            "max_slot_memory": "200",
        },
    )
    return root


def conf_tree(case: Case) -> ET.Element:
    root = ET.Element("configuration")
    for name, value in case.conf_properties.items():
        p = ET.SubElement(root, "property")
        ET.SubElement(p, "name").text = name
        ET.SubElement(p, "value").text = value
    return root


def to_bytes(root: ET.Element) -> bytes:
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def all_files(case: Case) -> dict[str, bytes]:
    """``{file name: content}`` of the Starfish files of ``case`` (the cluster in three forms)."""
    return {
        f"{case.name}_profile.xml": to_bytes(profile_tree(case)),
        f"{case.name}_input.xml": to_bytes(input_tree(case)),
        f"{case.name}_cluster.xml": to_bytes(cluster_tree(case)),
        f"{case.name}_cluster_hosts.xml": to_bytes(host_cluster_tree(case)),
        f"{case.name}_cluster_specs.xml": to_bytes(specs_cluster_tree(case)),
        f"{case.name}_conf.xml": to_bytes(conf_tree(case)),
    }


#: What Starfish's optimizer tunes (``jobopt.params.HadoopParameter``, Hadoop 0.20 names), set
#: as one of its recommendations for the wordcount case would be: the combiner off through
#: Starfish's own switch, map output compressed through the Hadoop 1 switch.
STARFISH_RECOMMENDATION = {
    "io.sort.mb": "150",
    "io.sort.spill.percent": "0.9",
    "io.sort.record.percent": "0.25",
    "io.sort.factor": "40",
    "min.num.spills.for.combine": "5",
    "mapred.reduce.tasks": "5",
    "mapred.inmem.merge.threshold": "395",
    "mapred.job.shuffle.input.buffer.percent": "0.6121171562839351",
    "mapred.job.shuffle.merge.percent": "0.2866603346724543",
    "mapred.job.reduce.input.buffer.percent": "0.1",
    "mapred.reduce.slowstart.completed.maps": "0.3",
    "starfish.use.combiner": "false",
    "mapred.compress.map.output": "true",
    "mapred.map.output.compression.codec": "org.apache.hadoop.io.compress.DefaultCodec",
    "mapred.output.compress": "false",
}


def recommended_conf_tree() -> ET.Element:
    """The wordcount configuration with :data:`STARFISH_RECOMMENDATION` applied, written as
    Starfish's optimizer writes its best configuration (``Configuration.writeXml``)."""
    return conf_tree(
        replace(
            WORDCOUNT, conf_properties={**WORDCOUNT.conf_properties, **STARFISH_RECOMMENDATION}
        )
    )


#: The join's second input: narrower records, half of them kept by the map, a map function
#: three times as costly per record (its own ``<map_profile>``, input_index 1).
JOIN_RIGHT = replace(
    TERASORT,
    stats=replace(TERASORT.stats, input_pair_width=50.0, map_size_sel=0.5, map_pairs_sel=0.5),
    costs=replace(TERASORT_COSTS, map_cpu=3 * TERASORT_COSTS.map_cpu, serde_cpu=2000.0),
    num_splits=6,
    split_size=32_000_000.0,
)
#: The join's input specification: three split sizes over two inputs.
JOIN_SPLITS = ((0, 100, 128 * MB), (0, 50, 30 * MB), (1, 40, 64 * MB))


def join_profile_tree() -> ET.Element:
    """A two-input job (a reduce-side join) as Starfish profiles it: one ``<map_profile>``
    per input (``input_index`` 0 and 1, each with its own counters, statistics, cost factors
    and timings), one ``<reduce_profile>``."""
    root = profile_tree(TERASORT)
    root.set("id", "job_201108081200_0007")
    right = profile_tree(JOIN_RIGHT).find("map_profile")
    assert right is not None
    right.set("id", "job_201108081200_0007_map_1")
    right.set("input_index", "1")
    left = root.find("map_profile")
    assert left is not None
    left.set("id", "job_201108081200_0007_map_0")
    root.insert(list(root).index(left) + 1, right)
    ET.SubElement(root.find("inputs"), "input").text = "hdfs://namenode:9000/user/hero/join/right"
    root.set("num_mappers", str(TERASORT.num_splits + JOIN_RIGHT.num_splits))
    return root


def join_input_tree() -> ET.Element:
    """100 x 128 MB + 50 x 30 MB of input 0, 40 x 64 MB of input 1."""
    root = ET.Element("input")
    for index, num, size in JOIN_SPLITS:
        ET.SubElement(
            root,
            "split",
            {
                "input_index": str(index),
                "num_splits": str(num),
                "size": str(int(size)),
                "compress": "false",
            },
        )
    return root


def extra_files() -> dict[str, bytes]:
    """Fixtures that are not one case's own files: the unequal-split inputs, the two-input
    join's profile and a Starfish recommendation for the wordcount case."""
    return {
        "terasort_input_unequal.xml": to_bytes(unequal_input_tree()),
        "join_profile.xml": to_bytes(join_profile_tree()),
        "join_input.xml": to_bytes(join_input_tree()),
        "wordcount_recommended_conf.xml": to_bytes(recommended_conf_tree()),
    }


def with_conf(case: Case, **changes: float | int | bool) -> RefConf:
    """The reference configuration of ``case`` with ``changes`` (RefConf field names)."""
    return replace(case.conf, **changes)
