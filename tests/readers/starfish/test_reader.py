"""Every field of the Starfish-format fixture files lands in the profile, configuration or cluster.

The expectations are read from the XML files themselves with the standard library parser (the
files are the project's own), so a field added to a fixture is checked without editing this test.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mrtune.costmodel import CODEC_PRIORS, ConfigBatch, JobProfile, predict_job
from mrtune.errors import InputError
from mrtune.profiling.starfish import load_starfish
from mrtune.readers.starfish import (
    COST_FIELDS,
    MAP_TIMINGS,
    REDUCE_TIMINGS,
    STATISTIC_FIELDS,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CASE_NAMES = ("terasort", "wordcount")

#: Hadoop 0.20 property → (HadoopConfig attribute, how to compare). Every property of the
#: fixture confs must be listed here or be kept verbatim in ``other_properties``.
CONF_FIELDS: dict[str, tuple[str, type]] = {
    "io.sort.mb": ("io_sort_mb", int),
    "io.sort.record.percent": ("io_sort_record_percent", float),
    "io.sort.spill.percent": ("sort_spill_percent", float),
    "io.sort.factor": ("io_sort_factor", int),
    "min.num.spills.for.combine": ("combine_min_spills", int),
    "mapred.reduce.tasks": ("num_reducers", int),
    "mapred.child.java.opts": ("child_java_opts", str),
    "mapred.compress.map.output": ("map_output_compress", bool),
    "mapred.map.output.compression.codec": ("map_output_codec", str),
    "mapred.output.compress": ("output_compress", bool),
    "mapred.output.compression.codec": ("output_codec", str),
    "mapred.job.shuffle.input.buffer.percent": ("shuffle_input_buffer_percent", float),
    "mapred.job.shuffle.merge.percent": ("shuffle_merge_percent", float),
    "mapred.inmem.merge.threshold": ("inmem_merge_threshold", int),
    "mapred.job.reduce.input.buffer.percent": ("reduce_input_buffer_percent", float),
    "mapred.reduce.slowstart.completed.maps": ("reduce_slowstart", float),
    "dfs.block.size": ("dfs_blocksize", int),
    "mapred.combiner.class": ("combine_class", str),
}
CODEC_SHORT = {
    "org.apache.hadoop.io.compress.SnappyCodec": "snappy",
    "org.apache.hadoop.io.compress.GzipCodec": "gzip",
    "org.apache.hadoop.io.compress.DefaultCodec": "default",
}


def _entries(el: ET.Element, section: str) -> dict[str, float]:
    sec = el.find(section)
    return {} if sec is None else {e.get("key"): float(e.get("value")) for e in sec}


def _files(name: str) -> tuple[Path, Path, Path, Path]:
    return tuple(
        FIXTURES / f"{name}_{kind}.xml" for kind in ("profile", "input", "cluster", "conf")
    )  # type: ignore[return-value]


@pytest.fixture(params=CASE_NAMES)
def loaded(request: pytest.FixtureRequest):
    files = _files(request.param)
    return files, load_starfish(*files)


def test_profile_sections_land_verbatim(loaded) -> None:
    (profile_xml, *_), (profile, _, _) = loaded
    root = ET.parse(profile_xml).getroot()
    assert profile.job_id == root.get("id")
    assert profile.cluster_facts["profiled_num_maps"] == float(root.get("num_mappers"))
    assert profile.cluster_facts["profiled_num_reduces"] == float(root.get("num_reducers"))
    assert profile.source_properties["mapred.input.dir"] == ",".join(
        i.text for i in root.findall("inputs/input")
    )
    els = [*root.findall("map_profile"), *root.findall("reduce_profile")]
    assert [t.attempt_id for t in profile.observed] == [e.get("id") for e in els]
    totals: dict[str, float] = {}
    for el, obs in zip(els, profile.observed, strict=True):
        kind = el.tag.removesuffix("_profile")
        assert obs.kind == kind
        assert obs.counters["num_tasks"] == float(el.get("num_tasks"))
        for key, value in _entries(el, "counters").items():
            assert obs.counters[key] == value
            totals[key] = totals.get(key, 0.0) + value * float(el.get("num_tasks"))
        for key, value in _entries(el, "statistics").items():
            assert obs.counters[f"statistic:{key}"] == value
        for key, value in _entries(el, "cost_factors").items():
            assert obs.counters[f"cost_factor:{key}"] == value
        names = MAP_TIMINGS if kind == "map" else REDUCE_TIMINGS
        timings = _entries(el, "timings")
        assert obs.phases_ms == {
            **{names[k]: v for k, v in timings.items()},
            "total": sum(timings.values()),
        }
        assert obs.finish_ms == round(sum(timings.values()))
    assert profile.observed_counters == pytest.approx(totals)
    assert profile.warnings == []


def test_statistics_and_cost_factors_map_to_the_model(loaded) -> None:
    (profile_xml, *_), (profile, config, _) = loaded
    root = ET.parse(profile_xml).getroot()
    mp, rp = root.find("map_profile"), root.find("reduce_profile")
    stats = {**_entries(mp, "statistics"), **_entries(rp, "statistics")}
    for key, fname in STATISTIC_FIELDS.items():
        if key in stats:
            assert getattr(profile.stats, fname) == stats[key], key
            assert profile.provenance[f"stats.{fname}"].startswith("measured: Starfish statistic")
    costs = {**_entries(mp, "cost_factors"), **_entries(rp, "cost_factors")}
    for key, fname in COST_FIELDS.items():
        if key in costs:
            assert getattr(profile.costs, fname) == costs[key], key
    assert profile.stats.ifile_record_overhead == 0.0
    mt, rt = _entries(mp, "timings"), _entries(rp, "timings")
    assert profile.costs.setup_ms == (mt["SETUP"] + rt["SETUP"]) / 2  # same in both fixtures
    assert profile.costs.cleanup_ms == mt["CLEANUP"]
    # Compression ratios go to the codecs the configuration names.
    if "INTERM_COMPRESS_RATIO" in stats:
        codec = profile.codecs[config.map_output_codec]
        assert codec.ratio == stats["INTERM_COMPRESS_RATIO"]
        assert codec.compress_ns_per_byte == costs["INTERM_COMPRESS_CPU_COST"]
        assert codec.uncompress_ns_per_byte == costs["INTERM_UNCOMPRESS_CPU_COST"]
    if "OUT_COMPRESS_RATIO" in stats:
        codec = profile.codecs[config.output_codec]
        assert codec.ratio == stats["OUT_COMPRESS_RATIO"]
        assert codec.compress_ns_per_byte == costs["OUTPUT_COMPRESS_CPU_COST"]
        assert (
            codec.uncompress_ns_per_byte
            == CODEC_PRIORS[config.output_codec].uncompress_ns_per_byte
        )
    combining = _entries(mp, "counters").get("COMBINE_INPUT_RECORDS", 0.0) > 0
    assert profile.has_combiner is combining
    if combining:
        assert (
            profile.stats.combine_profiled_input_records
            == _entries(mp, "counters")["MAP_RECS_PER_BUFF_SPILL"]
        )


def test_input_and_cluster_land(loaded) -> None:
    (_, input_xml, cluster_xml, _), (profile, _, cluster) = loaded
    splits = ET.parse(input_xml).getroot().findall("split")
    assert profile.input_bytes == sum(
        float(s.get("num_splits")) * float(s.get("size")) for s in splits
    )
    assert profile.input_files == sum(int(s.get("num_splits")) for s in splits)
    assert profile.input_compressed is any(s.get("compress") == "true" for s in splits)
    croot = ET.parse(cluster_xml).getroot()
    hosts = croot.findall("rack/slave_host")
    trackers = croot.findall("rack/slave_host/task_tracker")
    assert hosts and len(trackers) == len(hosts)  # Starfish's own form, one tracker a host
    assert cluster.num_nodes == len(hosts)
    assert cluster.num_nodes * cluster.map_slots_per_node == sum(
        int(t.get("map_slots")) for t in trackers
    )
    assert cluster.num_nodes * cluster.reduce_slots_per_node == sum(
        int(t.get("reduce_slots")) for t in trackers
    )
    assert profile.cluster_facts["cluster_name"] == croot.get("name")
    assert profile.cluster_facts["racks"] == len(croot.findall("rack"))
    assert profile.cluster_facts["task_trackers"] == len(trackers)
    # Starfish writes max_slot_memory in MB (XMLClusterParser shifts it by 20 bits).
    assert (
        profile.cluster_facts["max_slot_memory"]
        == float(trackers[0].get("max_slot_memory")) * 2**20
    )
    assert profile.cluster_facts["master_host"] == croot.find("rack/master_host").get("name")
    # Starfish's scheduler delays (reference §6.2): half a heartbeat before and after each task.
    assert cluster.heartbeat_ms == 1500.0 and cluster.task_startup_ms == 1500.0


def test_hadoop020_configuration_lands(loaded) -> None:
    (*_, conf_xml), (_, config, _) = loaded
    assert config.hadoop_version == 1
    for prop in ET.parse(conf_xml).getroot().findall("property"):
        name, value = prop.findtext("name"), prop.findtext("value")
        if name not in CONF_FIELDS:
            assert config.other_properties[name] == value, name
            continue
        attr, kind = CONF_FIELDS[name]
        got = getattr(config, attr)
        if kind is bool:
            assert got is (value == "true"), name
        elif name.endswith("codec"):
            assert got == CODEC_SHORT[value], name
        else:
            assert got == kind(value), name


def test_one_map_per_split_and_hadoop1_slots(loaded) -> None:
    (_, input_xml, *_), (profile, config, cluster) = loaded
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert pred.num_maps[0] == profile.input_files
    assert pred.map_slots[0] == cluster.num_nodes * cluster.map_slots_per_node
    assert pred.reduce_slots[0] == cluster.num_nodes * cluster.reduce_slots_per_node


def test_profile_only_uses_counters_and_hadoop1_defaults() -> None:
    """Without input, cluster and conf files: input from HDFS_BYTES_READ, Hadoop 1 defaults."""
    profile, config, cluster = load_starfish(FIXTURES / "terasort_profile.xml")
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    mp = root.find("map_profile")
    assert profile.input_bytes == _entries(mp, "counters")["HDFS_BYTES_READ"] * int(
        mp.get("num_tasks")
    )
    assert profile.input_files == int(mp.get("num_tasks"))
    assert config.hadoop_version == 1
    assert config.num_reducers == int(root.get("num_reducers"))
    assert config.io_sort_mb == 100 and config.io_sort_record_percent == 0.05
    assert config.reduce_heap_bytes == 200 * 2**20  # Hadoop 1 -Xmx200m
    assert config.dfs_blocksize == 64 * 2**20  # Hadoop 1 dfs.block.size
    assert not config.map_output_compress
    assert (cluster.num_nodes, cluster.map_slots_per_node, cluster.reduce_slots_per_node) == (
        1,
        2,
        2,
    )
    assert any("no cluster specification" in w for w in profile.warnings)
    # The intermediate ratio is kept for DefaultCodec, with a warning that compression is off.
    assert profile.codecs["default"].ratio == 0.35
    assert any("INTERM_COMPRESS_RATIO=0.35" in w for w in profile.warnings)


def test_statistics_derived_from_counters_when_missing(tmp_path: Path) -> None:
    """A profile without <statistic> entries gets Table 2 from its counters."""
    root = ET.parse(FIXTURES / "wordcount_profile.xml").getroot()
    for sec in root.iter("statistics"):
        for child in list(sec):
            sec.remove(child)
    path = tmp_path / "p.xml"
    ET.ElementTree(root).write(path)
    profile, _, _ = load_starfish(path, conf_xml=FIXTURES / "wordcount_conf.xml")
    full, _, _ = load_starfish(
        FIXTURES / "wordcount_profile.xml", conf_xml=FIXTURES / "wordcount_conf.xml"
    )
    for fname in (
        "input_pair_width",
        "map_size_sel",
        "map_pairs_sel",
        "combine_pairs_sel",
        "reduce_pairs_sel",
        "reduce_size_sel",
        "reduce_pairs_per_group",
    ):
        assert getattr(profile.stats, fname) == pytest.approx(getattr(full.stats, fname)), fname
        assert "derived from Starfish counters" in profile.provenance[f"stats.{fname}"]


def test_shared_cost_factor_is_kept_apart_per_side(tmp_path: Path) -> None:
    """READ_LOCAL_IO_COST differs between the profiles: the map profile's value is the factor,
    the reduce profile's its reduce-side override (nothing averaged, no warning)."""
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    rp = root.find("reduce_profile")
    rp.find("cost_factors/cost_factor[@key='READ_LOCAL_IO_COST']").set("value", "500.0")
    path = tmp_path / "p.xml"
    ET.ElementTree(root).write(path)
    profile, _, _ = load_starfish(path)
    assert profile.costs.local_read == 297.8
    assert profile.costs.reduce_side == {"local_read": 500.0}
    assert profile.costs.reduce_value("local_read") == 500.0
    assert profile.costs.reduce_value("local_write") == 1138.3
    assert "reduce profile 500" in profile.provenance["costs.local_read"]
    assert not any("READ_LOCAL_IO_COST" in w for w in profile.warnings)


def test_two_inputs_are_two_classes_of_maps(tmp_path: Path) -> None:
    """Two <map_profile>s (one per input): each input's maps at their own profile (map
    classes); the job-level factor is the task-weighted mean, with nothing averaged away."""
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    ET.SubElement(root.find("inputs"), "input").text = "hdfs://namenode:9000/second"
    second = ET.fromstring(ET.tostring(root.find("map_profile")))
    second.set("id", "second_map")
    second.set("input_index", "1")
    second.set("num_tasks", "24")
    second.find("cost_factors/cost_factor[@key='MAP_CPU_COST']").set("value", "4000")
    root.insert(2, second)
    root.set("num_mappers", "32")
    path = tmp_path / "two.xml"
    ET.ElementTree(root).write(path)
    profile, _, _ = load_starfish(path)
    assert profile.costs.map_cpu == pytest.approx((12568.0 * 8 + 4000.0 * 24) / 32)
    assert profile.input_files == 32
    assert not any("differs between the inputs' map profiles" in w for w in profile.warnings)
    first, second_class = profile.map_classes
    assert (first.input_files, second_class.input_files) == (8, 24)
    assert profile.costs.map_cpu * first.cost_scale["map_cpu"] == pytest.approx(12568.0)
    assert profile.costs.map_cpu * second_class.cost_scale["map_cpu"] == pytest.approx(4000.0)
    assert [t.attempt_id for t in profile.observed][:2] == [
        "job_201108081200_0001_map_0",
        "second_map",
    ]


def test_map_only_job(tmp_path: Path) -> None:
    root = ET.parse(FIXTURES / "wordcount_profile.xml").getroot()
    root.remove(root.find("reduce_profile"))
    root.set("num_reducers", "0")
    ET.SubElement(root.find("map_profile/timings"), "timing", key="WRITE", value="123.0")
    path = tmp_path / "maponly.xml"
    ET.ElementTree(root).write(path)
    profile, config, cluster = load_starfish(path)
    assert profile.map_only and config.num_reducers == 0
    assert profile.observed[0].phases_ms["write"] == 123.0
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert pred.reduce_task_ms[0] == 0.0


def test_combiner_in_conf_without_one_in_the_profile_warns(tmp_path: Path) -> None:
    conf = tmp_path / "conf.xml"
    conf.write_text(
        "<configuration><property><name>mapred.combiner.class</name><value>my.Combiner</value>"
        "</property></configuration>"
    )
    profile, config, _ = load_starfish(FIXTURES / "terasort_profile.xml", conf_xml=conf)
    assert not profile.has_combiner and config.combine_class == "my.Combiner"
    assert any(
        "sets a combiner (my.Combiner) but the profile has no" in w for w in profile.warnings
    )


def test_cluster_without_reduce_slots_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "cluster.xml"
    path.write_text(
        '<cluster><rack><host name="a"><task_tracker map_slots="2" reduce_slots="0"/>'
        "</host></rack></cluster>"
    )
    with pytest.raises(InputError, match="no reduce slots but the job runs 4 reducers"):
        load_starfish(FIXTURES / "terasort_profile.xml", cluster_xml=path)


def test_profile_round_trips_through_json(loaded) -> None:
    """``mrtune profile --from starfish -o profile.json`` writes this; reading it back is lossless."""
    _, (profile, _, _) = loaded
    again = JobProfile.model_validate_json(profile.model_dump_json())
    assert again == profile


def test_profile_json_carries_the_hadoop1_configuration(loaded) -> None:
    """``mrtune whatif profile.json`` rebuilds the same Hadoop 1 configuration from the profile."""
    from mrtune.profiling.build import profile_config

    _, (profile, config, _) = loaded
    again = JobProfile.model_validate_json(profile.model_dump_json())
    rebuilt = profile_config(again)
    assert rebuilt.hadoop_version == 1
    assert rebuilt.to_properties() == config.to_properties()
