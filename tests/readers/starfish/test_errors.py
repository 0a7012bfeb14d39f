"""Bad XML, missing sections and unknown keys give clear messages (issue 9 checks).

Errors are :class:`~mrtune.errors.InputError` naming the file and the element; unknown keys are
kept and reported as warnings on the profile, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.errors import InputError
from mrtune.profiling.starfish import load_starfish
from mrtune.readers.starfish import read_cluster_spec, read_input_spec, read_job_conf

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROFILE = FIXTURES / "terasort_profile.xml"


def _edited(tmp_path: Path, source: Path, edit: Callable[[ET.Element], None]) -> Path:
    root = ET.parse(source).getroot()
    edit(root)
    out = tmp_path / source.name
    ET.ElementTree(root).write(out)
    return out


def _remove(path: str) -> Callable[[ET.Element], None]:
    def edit(root: ET.Element) -> None:
        parent_path, _, tag = path.rpartition("/")
        parent = root.find(parent_path) if parent_path else root
        parent.remove(parent.find(tag))

    return edit


def _set(path: str, attr: str, value: str) -> Callable[[ET.Element], None]:
    def edit(root: ET.Element) -> None:
        (root.find(path) if path else root).set(attr, value)

    return edit


# ----------------------------------------------------------------------------- malformed XML
def test_not_well_formed(tmp_path: Path) -> None:
    bad = tmp_path / "broken.xml"
    bad.write_text("<job_profile id='x' num_mappers='1' num_reducers='0'><map_profile>")
    with pytest.raises(InputError) as exc:
        load_starfish(bad)
    msg = str(exc.value)
    assert str(bad) in msg and "not well-formed XML" in msg and "line 1" in msg


def test_entity_expansion_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_text(
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
        "<job_profile>&lol2;</job_profile>"
    )
    with pytest.raises(InputError, match=r"unsafe XML refused .*EntitiesForbidden"):
        load_starfish(bomb)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read file"):
        load_starfish(tmp_path / "nope.xml")


@pytest.mark.parametrize(
    ("reader", "root", "expected"),
    [
        (load_starfish, "<jobprofile/>", "root element is <jobprofile> allowed: <job_profile>"),
        (read_cluster_spec, "<clusters/>", "root element is <clusters> allowed: <cluster>"),
        (read_job_conf, "<conf/>", "the root element is <conf> allowed: <configuration>"),
    ],
)
def test_wrong_root(tmp_path: Path, reader, root: str, expected: str) -> None:
    path = tmp_path / "f.xml"
    path.write_text(root)
    with pytest.raises(InputError, match=re.escape(expected)):
        reader(path)


# ----------------------------------------------------------------------------- missing sections
@pytest.mark.parametrize(
    ("edit", "element", "message"),
    [
        (_remove("map_profile"), "job_profile", "missing <map_profile>"),
        (
            _remove("map_profile/statistics"),
            "job_profile/map_profile[0]",
            "missing <statistics> section",
        ),
        (
            _remove("reduce_profile/cost_factors"),
            "job_profile/reduce_profile[0]",
            "missing <cost_factors> section",
        ),
        (
            _remove("map_profile/counters"),
            "job_profile/map_profile[0]",
            "missing <counters> section",
        ),
        (
            _remove("reduce_profile"),
            "job_profile",
            "missing <reduce_profile> although num_reducers=4",
        ),
        (
            _set("map_profile", "num_tasks", "many"),
            "job_profile/map_profile[0]/@num_tasks",
            "not a number (got 'many')",
        ),
        (_set("", "num_mappers", ""), "job_profile/@num_mappers", "missing value"),
        (
            _set("map_profile/counters/counter", "value", "12,5"),
            "job_profile/map_profile[0]/counters/counter[@key='MAP_INPUT_RECORDS']/@value",
            "not a number (got '12,5')",
        ),
        (
            _set("map_profile/cost_factors/cost_factor", "value", "-3"),
            "cost_factor[@key='READ_HDFS_IO_COST']/@value",
            "must be >= 0",
        ),
        (
            _set("map_profile/timings/timing", "key", ""),
            "job_profile/map_profile[0]/timings/timing[0]",
            "missing attribute 'key'",
        ),
        (
            _set("map_profile/statistics/statistic", "key", "MAP_PAIRS_SEL"),
            "statistic[@key='MAP_PAIRS_SEL']",
            "duplicate key",
        ),
    ],
)
def test_profile_errors_name_file_and_element(
    tmp_path: Path, edit, element: str, message: str
) -> None:
    path = _edited(tmp_path, PROFILE, edit)
    with pytest.raises(InputError) as exc:
        load_starfish(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}:"), msg
    assert element in msg, msg
    assert message in msg, msg


def test_missing_timings_is_a_warning(tmp_path: Path) -> None:
    path = _edited(tmp_path, PROFILE, _remove("reduce_profile/timings"))
    profile, _, _ = load_starfish(path)
    assert f"{path}: job_profile/reduce_profile[0]: no <timings> section" in profile.warnings
    assert profile.observed[-1].phases_ms == {"total": 0.0}


def test_invalid_statistic_value_names_the_statistic(tmp_path: Path) -> None:
    path = _edited(
        tmp_path, PROFILE, _set("map_profile/statistics/statistic", "value", "0")
    )  # INPUT_PAIR_WIDTH must be > 0
    with pytest.raises(InputError, match=r"statistic INPUT_PAIR_WIDTH: .*greater than 0"):
        load_starfish(path)


def test_no_input_size_without_counters_or_input_spec(tmp_path: Path) -> None:
    def edit(root: ET.Element) -> None:
        c = root.find("map_profile/counters")
        c.remove(c.find("counter[@key='HDFS_BYTES_READ']"))

    path = _edited(tmp_path, PROFILE, edit)
    with pytest.raises(InputError, match="cannot tell the input size"):
        load_starfish(path)
    profile, _, _ = load_starfish(path, FIXTURES / "terasort_input.xml")
    assert profile.input_bytes == 8 * 64_000_000


# ----------------------------------------------------------------------------- unknown keys
def test_unknown_keys_are_kept_and_reported(tmp_path: Path) -> None:
    def edit(root: ET.Element) -> None:
        mp = root.find("map_profile")
        ET.SubElement(
            mp.find("counters"), "counter", key="MAP_OUTPUT_MATERIALIZED_BYTES", value="42"
        )
        ET.SubElement(mp.find("statistics"), "statistic", key="MAP_FUNC_MAGIC", value="1.5")
        ET.SubElement(mp.find("cost_factors"), "cost_factor", key="GPU_COST", value="7")
        ET.SubElement(mp.find("timings"), "timing", key="PREFETCH", value="9")
        ET.SubElement(mp, "histograms")
        mp.set("locality", "rack")
        root.find("reduce_profile/counters/counter").set("unit", "records")

    path = _edited(tmp_path, PROFILE, edit)
    profile, _, _ = load_starfish(path)
    obs = profile.observed[0]
    assert obs.counters["MAP_OUTPUT_MATERIALIZED_BYTES"] == 42
    assert obs.counters["statistic:MAP_FUNC_MAGIC"] == 1.5
    assert obs.counters["cost_factor:GPU_COST"] == 7
    assert obs.phases_ms["prefetch"] == 9
    assert profile.observed_counters["MAP_OUTPUT_MATERIALIZED_BYTES"] == 42 * 8
    where = f"{path}: job_profile/map_profile[0]:"
    expected = [
        f"{where} unknown counter MAP_OUTPUT_MATERIALIZED_BYTES=42 kept in profile.observed but not used by the model",
        f"{where} unknown statistic MAP_FUNC_MAGIC=1.5 kept in profile.observed but not used by the model",
        f"{where} unknown cost_factor GPU_COST=7 kept in profile.observed but not used by the model",
        f"{where} unknown timing PREFETCH=9 kept in profile.observed but not used by the model",
        f"{where} unknown element <histograms> ignored",
        f"{where} unknown attribute locality='rack' ignored",
    ]
    for line in expected:
        assert line in profile.warnings, (line, profile.warnings)
    assert any("unknown attribute unit='records'" in w for w in profile.warnings)
    # The model still runs: unknown keys are never fatal.
    assert profile.stats.input_pair_width == 100.0


# ----------------------------------------------------------------------------- other files
def test_input_spec_errors(tmp_path: Path) -> None:
    empty = tmp_path / "in.xml"
    empty.write_text("<input_specs/>")
    with pytest.raises(InputError, match=r"in.xml: input_specs: no <split"):
        read_input_spec(empty)
    bad = tmp_path / "bad.xml"
    bad.write_text('<input_specs><split num_splits="2" size="10" compress="maybe"/></input_specs>')
    with pytest.raises(
        InputError, match=r"split\[0\]/@compress: not a boolean .*allowed: true\|false"
    ):
        read_input_spec(bad)
    other = tmp_path / "idx.xml"
    other.write_text(
        '<input_specs><split input_index="3" num_splits="2" size="10"/></input_specs>'
    )
    with pytest.raises(InputError, match=r"input_index \[3\] has no <map_profile>"):
        load_starfish(PROFILE, other)


def test_three_split_sizes_are_kept_apart(tmp_path: Path) -> None:
    """Three sizes: one class of maps per size (tests/readers/starfish/test_split_classes.py),
    nothing averaged."""
    spec = tmp_path / "in.xml"
    spec.write_text(
        '<input><split input_index="0" num_splits="6" size="64000000" compress="false"/>'
        '<split input_index="0" num_splits="1" size="40000000" compress="false"/>'
        '<split input_index="0" num_splits="1" size="16000000" compress="false"/></input>'
    )
    profile, _, _ = load_starfish(PROFILE, spec)
    assert profile.input_bytes == 6 * 64_000_000 + 40_000_000 + 16_000_000
    assert profile.input_files == 8
    assert profile.cluster_facts["input_split_groups"] == (
        "6 x 64000000 + 1 x 40000000 + 1 x 16000000"
    )
    assert [(c.input_files, c.input_bytes) for c in profile.map_classes] == [
        (6, 6 * 64_000_000),
        (1, 40_000_000),
        (1, 16_000_000),
    ]
    assert not any("equal splits" in w for w in profile.warnings)


def test_configured_block_size_gives_way_to_the_specification(tmp_path: Path) -> None:
    """The job's dfs.block.size is not the input files' (HDFS block size is per file): the
    specification's splits are kept, with a warning."""
    spec = tmp_path / "in.xml"
    spec.write_text(
        '<input><split input_index="0" num_splits="7" size="64000000" compress="false"/>'
        '<split input_index="0" num_splits="1" size="16000000" compress="false"/></input>'
    )
    conf = tmp_path / "conf.xml"
    conf.write_text(
        "<configuration><property><name>dfs.block.size</name><value>134217728</value>"
        "</property></configuration>"
    )
    profile, config, _ = load_starfish(PROFILE, spec, conf_xml=conf)
    assert profile.input_files == 1 and config.dfs_blocksize == 64_000_000
    assert any(
        "dfs.block.size=134217728 (split size 134217728) would cut" in w for w in profile.warnings
    )
    # A minimum split size the block size cannot undo: splits do not cross files, so each
    # split stays one file of its own size (two classes of maps), nothing averaged.
    conf.write_text(
        "<configuration><property><name>mapred.min.split.size</name><value>268435456</value>"
        "</property></configuration>"
    )
    profile, config, cluster = load_starfish(PROFILE, spec, conf_xml=conf)
    assert profile.input_files == 8
    assert [c.input_files for c in profile.map_classes] == [7, 1]
    assert not any("equal splits" in w for w in profile.warnings)
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert pred.num_maps[0] == 8


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        ("<cluster/>", "cluster: missing <rack> or <specs>"),
        ("<cluster><rack/></cluster>", "cluster/rack[0]: missing <slave_host>"),
        (
            '<cluster><rack><master_host name="m"><job_tracker port="1"/></master_host></rack>'
            "</cluster>",
            "cluster: no <slave_host> with a <task_tracker>",
        ),
        (
            '<cluster><rack><slave_host name="a"/></rack></cluster>',
            "cluster/rack[0]/slave_host[0]: missing <task_tracker>",
        ),
        (
            '<cluster><rack><slave_host name="a"><task_tracker map_slots="2" reduce_slots="1"/>'
            '<task_tracker map_slots="2" reduce_slots="1"/></slave_host></rack></cluster>',
            "cluster/rack[0]/slave_host[0]: 2 <task_tracker> elements",
        ),
        (
            '<cluster><rack><slave_host name="a"><task_tracker port="http" map_slots="2" '
            'reduce_slots="1"/></slave_host></rack></cluster>',
            "slave_host[0]/task_tracker[0]/@port: not a number",
        ),
        (
            '<cluster><specs hosts_per_rack="3" map_slots_per_host="2"/></cluster>',
            "cluster/specs/@reduce_slots_per_host: missing value",
        ),
        (
            '<cluster><specs num_racks="0" hosts_per_rack="3" map_slots_per_host="2" '
            'reduce_slots_per_host="1"/></cluster>',
            "cluster/specs: the cluster has no hosts",
        ),
        (
            '<cluster><rack><host name="a"/></rack></cluster>',
            "cluster/rack[0]/host[0]: missing <task_tracker>",
        ),
        (
            '<cluster><rack><host name="a"><task_tracker map_slots="2.5" reduce_slots="1"/></host></rack></cluster>',
            "task_tracker[0]/@map_slots: must be a whole number",
        ),
    ],
)
def test_cluster_errors(tmp_path: Path, xml: str, message: str) -> None:
    path = tmp_path / "cluster.xml"
    path.write_text(xml)
    with pytest.raises(InputError, match=re.escape(message)):
        read_cluster_spec(path)


def test_uneven_hosts_warn_and_keep_totals(tmp_path: Path) -> None:
    path = tmp_path / "cluster.xml"
    path.write_text(
        '<cluster name="c"><rack name="r">'
        '<host name="a"><task_tracker map_slots="4" reduce_slots="2"/></host>'
        '<host name="b"><task_tracker map_slots="4" reduce_slots="2"/></host>'
        '<host name="c"><task_tracker map_slots="2" reduce_slots="1"/>'
        '<task_tracker map_slots="2" reduce_slots="1"/></host>'
        '<host name="d"><task_tracker map_slots="2" reduce_slots="1"/></host>'
        "</rack></cluster>"
    )
    _, _, cluster = load_starfish(PROFILE, cluster_xml=path)
    assert cluster.num_nodes == 4
    assert (cluster.map_slots_per_node, cluster.reduce_slots_per_node) == (4, 2)
    profile, _, _ = load_starfish(PROFILE, cluster_xml=path)
    assert any(
        "hosts have different slot counts (map [2, 4], reduce [1, 2])" in w
        for w in profile.warnings
    )


def test_conf_errors(tmp_path: Path) -> None:
    bad = tmp_path / "c2.xml"
    bad.write_text(
        "<configuration><property><name>io.sort.mb</name><value>lots</value></property></configuration>"
    )
    with pytest.raises(
        InputError, match=r"c2.xml: io.sort.mb \(mapreduce.task.io.sort.mb\): .*integer.*'lots'"
    ):
        load_starfish(PROFILE, conf_xml=bad)
    clash = tmp_path / "c3.xml"
    clash.write_text(
        "<configuration><property><name>io.sort.mb</name><value>50</value></property>"
        "<property><name>mapreduce.task.io.sort.mb</name><value>80</value></property></configuration>"
    )
    with pytest.raises(InputError, match=r"io.sort.mb='50' and mapreduce.task.io.sort.mb='80'"):
        load_starfish(PROFILE, conf_xml=clash)
