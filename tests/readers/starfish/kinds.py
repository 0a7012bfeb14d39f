"""Constructed profiles of Starfish's three sample job kinds, written in Starfish's format.

Starfish 0.2.0 ships what-if samples of a word co-occurrence job, TeraSort and WordCount. These
cases have the shape of each kind at a cluster scale (the fixtures in ``fixtures/`` are small):

* ``cooccurrence``: word pairs in a window; many small map output records (about 20 bytes,
  30 per input line), a combiner that keeps 40% of them, 24 splits of 64 MB, 4 reducers;
* ``terasort-large``: TeraSort's 100-byte records, no combiner, Snappy-compressed map output,
  40 splits of 128 MB on 8 TaskTrackers, 8 reducers;
* ``wordcount-large``: WordCount over 32 splits of 64 MB (combiner selectivity 0.1), 4 reducers.

Their ``<timings>`` and counters are the reference equations' (:mod:`.reference_model`), as for
the fixtures; :func:`write_case` writes a case's profile, input, cluster and configuration files
and :func:`load_case` reads them with mrtune's Starfish reader.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile

from .cases import TERASORT, TERASORT_COSTS, WORDCOUNT, Case, all_files
from .reference_model import RefConf, RefCosts, RefStats

COOCCURRENCE = replace(
    WORDCOUNT,
    name="cooccurrence",
    job_id="job_201108081200_0003",
    conf=RefConf(num_reducers=4, use_combine=True),
    conf_properties={
        "io.sort.mb": "100",
        "mapred.reduce.tasks": "4",
        "mapred.child.java.opts": "-Xmx200m",
        "mapred.combiner.class": "edu.umd.cloud9.example.cooccur.ComputeCooccurrenceMatrixPairs$MyReducer",
    },
    stats=RefStats(
        input_pair_width=100.0,
        map_size_sel=6.0,
        map_pairs_sel=30.0,
        combine_pairs_sel=0.4,
        combine_size_sel=0.4,
        reduce_pairs_sel=0.3,
        reduce_size_sel=0.35,
        reduce_pairs_per_group=3.0,
    ),
    costs=RefCosts(
        hdfs_read=25.0,
        hdfs_write=70.0,
        local_read=10.0,
        local_write=14.0,
        network=18.0,
        map_cpu=9000.0,
        reduce_cpu=1500.0,
        combine_cpu=700.0,
        partition_cpu=160.0,
        serde_cpu=450.0,
        sort_cpu=70.0,
        merge_cpu=120.0,
        in_uncompr=0.0,
        interm_uncompr=0.0,
        interm_compr=0.0,
        out_compr=0.0,
    ),
    split_size=64.0 * 2**20,
    num_splits=24,
    hosts=[("rack1", f"slave{i}", 2, 2) for i in range(1, 5)],
    combiner_class="edu.umd.cloud9.example.cooccur.ComputeCooccurrenceMatrixPairs$MyReducer",
    inputs=["hdfs://namenode:9000/user/hero/wikipedia/2011-01"],
)

TERASORT_LARGE = replace(
    TERASORT,
    name="terasort-large",
    job_id="job_201108081200_0004",
    conf=RefConf(num_reducers=8, interm_compressed=True),
    conf_properties={
        **TERASORT.conf_properties,
        "mapred.reduce.tasks": "8",
        "dfs.block.size": str(128 * 2**20),
    },  # fmt: skip
    costs=TERASORT_COSTS,
    split_size=128.0 * 2**20,
    num_splits=40,
    hosts=[(f"rack{1 + (i - 1) // 4}", f"node{i}", 2, 2) for i in range(1, 9)],
)

WORDCOUNT_LARGE = replace(
    WORDCOUNT,
    name="wordcount-large",
    job_id="job_201108081200_0005",
    conf=RefConf(num_reducers=4, use_combine=True),
    conf_properties={
        **WORDCOUNT.conf_properties,
        "mapred.reduce.tasks": "4",
        "io.sort.record.percent": "0.05",
    },  # fmt: skip
    split_size=64.0 * 2**20,
    num_splits=32,
)

KINDS: dict[str, Case] = {c.name: c for c in (COOCCURRENCE, TERASORT_LARGE, WORDCOUNT_LARGE)}


def write_case(case: Case, folder: Path) -> dict[str, Path]:
    """Write ``case``'s Starfish files into ``folder``: ``{"profile"|"input"|"cluster"|"conf": path}``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, data in all_files(case).items():
        (folder / name).write_bytes(data)
        kind = name.removeprefix(f"{case.name}_").removesuffix(".xml")
        out[kind] = folder / name
    return out


#: The public co-occurrence sample's MERGE_CPU_COST, map profile and reduce profile (ns per
#: record; ×108 apart, issue 16).
COOCCURRENCE_MERGE_SIDES = {"MERGE_CPU_COST": (168.6, 18234.7)}


def set_cost_sides(profile_xml: Path, sides: dict[str, tuple[float, float]]) -> None:
    """Give each cost factor in ``sides`` its own ``(map, reduce)`` value in the profile file
    (Starfish measures them apart, one per ``<map_profile>`` / ``<reduce_profile>``)."""
    from xml.etree import ElementTree as ET

    root = ET.parse(profile_xml).getroot()
    for key, values in sides.items():
        for section, value in zip(("map_profile", "reduce_profile"), values, strict=True):
            for prof in root.iter(section):
                costs = prof.find("cost_factors")
                el = costs.find(f"cost_factor[@key='{key}']")
                if el is None:
                    el = ET.SubElement(costs, "cost_factor", key=key)
                el.set("value", repr(value))
    ET.ElementTree(root).write(profile_xml)


def load_case(
    case: Case,
    folder: Path,
    input_xml: Path | None = None,
    cost_sides: dict[str, tuple[float, float]] | None = None,
) -> tuple[JobProfile, HadoopConfig, ClusterSpec]:
    """``case`` written to ``folder`` and read back by ``load_starfish`` (``input_xml`` replaces
    the case's own input specification; ``cost_sides`` gives factors their own map and reduce
    values, :func:`set_cost_sides`)."""
    from mrtune.profiling.starfish import load_starfish

    files = write_case(case, folder)
    if cost_sides:
        set_cost_sides(files["profile"], cost_sides)
    return load_starfish(
        files["profile"], input_xml or files["input"], files["cluster"], files["conf"]
    )
