"""Every form Starfish writes or reads loads, and unequal splits reach the model as they are.

The cluster fixtures hold one cluster in three forms: Starfish's ``XMLClusterParser`` export
(``master_host`` / ``slave_host`` → ``task_tracker`` with ``port``), its compact ``<specs>``
and mrtune's older ``<host>`` form. ``terasort_input_unequal.xml`` is the split layout of
Starfish's TeraSort what-if sample (200 × 128 MB + 100 × 30 MB).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.profiling.starfish import load_starfish
from mrtune.readers.starfish import read_cluster_spec

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MB = 2**20


def _files(name: str, cluster: str = "cluster", inputs: str = "input") -> list[Path]:
    return [FIXTURES / f"{name}_{k}.xml" for k in ("profile", inputs, cluster, "conf")]


@pytest.mark.parametrize("name", ["terasort", "wordcount"])
@pytest.mark.parametrize("form", ["cluster", "cluster_specs", "cluster_hosts"])
def test_every_cluster_form_loads_without_warnings(name: str, form: str) -> None:
    profile, _, cluster = load_starfish(*_files(name, form))
    assert profile.warnings == []
    _, _, reference = load_starfish(*_files(name))
    assert cluster == reference
    assert profile.cluster_facts["max_slot_memory"] == 200 * MB
    assert (
        profile.cluster_facts["cluster_form"]
        == {
            "cluster": "racks",
            "cluster_specs": "specs",
            "cluster_hosts": "hosts",
        }[form]
    )


def test_specs_form_expands_racks_times_hosts(tmp_path: Path) -> None:
    """Starfish's sample_cluster_specs.xml: 2 racks × 3 hosts, 3 map and 1 reduce slot each;
    ``num_racks`` is optional (1)."""
    path = tmp_path / "specs.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- Note: The attribute 'max_slot_memory' is expected in MB -->\n"
        '<cluster name="local">\n'
        '  <specs num_racks="2" hosts_per_rack="3" map_slots_per_host="3"\n'
        '         reduce_slots_per_host="1" max_slot_memory="200" />\n'
        "</cluster>\n"
    )
    cf = read_cluster_spec(path)
    assert cf.warnings == []
    assert (cf.racks, len(cf.host_slots), cf.trackers) == (2, 6, 6)
    assert set(cf.host_slots.values()) == {(3, 1)}
    assert cf.facts["max_slot_memory"] == 200 * MB
    path.write_text(
        '<cluster><specs hosts_per_rack="5" map_slots_per_host="2" '
        'reduce_slots_per_host="2" max_slot_memory="512"/></cluster>'
    )
    cf = read_cluster_spec(path)
    assert (cf.racks, len(cf.host_slots)) == (1, 5)


def test_specs_win_over_racks_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "both.xml"
    path.write_text(
        '<cluster><specs hosts_per_rack="2" map_slots_per_host="2" reduce_slots_per_host="1" '
        'max_slot_memory="200"/><rack name="r"><slave_host name="x"><task_tracker '
        'map_slots="8" reduce_slots="8"/></slave_host></rack></cluster>'
    )
    cf = read_cluster_spec(path)
    assert set(cf.host_slots.values()) == {(2, 1)}
    assert any("ignores the racks" in w for w in cf.warnings)


def test_unknown_attributes_are_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "odd.xml"
    path.write_text(
        '<cluster><rack name="r"><slave_host name="x" os="linux"><task_tracker map_slots="2" '
        'reduce_slots="1" port="50060" cpus="8"/></slave_host></rack></cluster>'
    )
    cf = read_cluster_spec(path)
    assert len(cf.warnings) == 2
    assert any("unknown attribute os='linux'" in w for w in cf.warnings)
    assert any("task_tracker[0]: unknown attribute cpus='8'" in w for w in cf.warnings)


def test_master_host_adds_no_slots() -> None:
    cf = read_cluster_spec(FIXTURES / "terasort_cluster.xml")
    assert "namenode" not in cf.host_slots
    assert len(cf.host_slots) == 4 and cf.racks == 3  # master-rack, rack1, rack2


# ----------------------------------------------------------------------------- unequal splits
def _load_unequal():
    return load_starfish(*_files("terasort", inputs="input_unequal"))


def test_unequal_splits_stay_two_groups_into_the_model() -> None:
    profile, config, cluster = _load_unequal()
    assert profile.input_bytes == 200 * 128 * MB + 100 * 30 * MB
    assert profile.cluster_facts["input_split_groups"] == "200 x 134217728 + 100 x 31457280"
    assert profile.cluster_facts["num_maps"] == 300
    assert not any("equal splits" in w for w in profile.warnings)
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert (pred.num_full_maps[0], pred.num_tail_maps[0]) == (200, 100)
    assert pred.full_split_bytes[0] == 128 * MB and pred.tail_split_bytes[0] == 30 * MB
    assert pred.counters["HDFS_BYTES_READ"][0] == pytest.approx(profile.input_bytes)


def _one_group(tmp_path: Path, num: int, size: int) -> Path:
    path = tmp_path / f"in_{num}.xml"
    path.write_text(
        f'<input><split input_index="0" num_splits="{num}" size="{size}" compress="false"/>'
        "</input>"
    )
    return path


def test_each_group_is_modelled_as_its_own_split_size(tmp_path: Path) -> None:
    """Each group's map tasks are the tasks of a job with only that group's splits, and the
    job's map work is their sum; the averaged layout (300 × 95.3 MB) gives other tasks."""
    profile, config, cluster = _load_unequal()
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    files = _files("terasort")
    alone = {}
    for num, size in ((200, 128 * MB), (100, 30 * MB)):
        p, c, cl = load_starfish(files[0], _one_group(tmp_path, num, size), files[2], files[3])
        alone[size] = predict_job(p, ConfigBatch.from_configs([c]), cl).map_full
    assert pred.map_full.task_ms[0] == pytest.approx(alone[128 * MB].task_ms[0], rel=1e-9)
    # the tail keeps what its files hold, unrounded (314,573.36 records against a lone
    # 30 MB split's rint, 314,573): a third of a record's work
    assert pred.map_tail.task_ms[0] == pytest.approx(alone[30 * MB].task_ms[0], rel=1e-5)
    assert pred.map_full.spills[0] == alone[128 * MB].spills[0]
    assert pred.map_tail.spills[0] == alone[30 * MB].spills[0]
    assert pred.map_full.spills[0] > pred.map_tail.spills[0]
    avg_size = round(profile.input_bytes / 300)
    p, c, cl = load_starfish(files[0], _one_group(tmp_path, 300, avg_size), files[2], files[3])
    averaged = predict_job(p, ConfigBatch.from_configs([c]), cl)
    assert averaged.map_full.spills[0] not in {pred.map_full.spills[0], pred.map_tail.spills[0]}


def test_unequal_splits_survive_profile_json(tmp_path: Path) -> None:
    """``profile.json`` keeps the layout: the block size that cuts the files travels along."""
    from mrtune.costmodel import JobProfile
    from mrtune.profiling.build import profile_config

    profile, config, cluster = _load_unequal()
    again = JobProfile.model_validate_json(profile.model_dump_json())
    rebuilt = profile_config(again)
    assert rebuilt.split_size == config.split_size == 128 * MB
    pred = predict_job(again, ConfigBatch.from_configs([rebuilt]), cluster)
    assert (pred.num_full_maps[0], pred.num_tail_maps[0]) == (200, 100)


def test_block_size_follows_the_larger_split_without_a_conf(tmp_path: Path) -> None:
    spec = tmp_path / "in.xml"
    spec.write_text(
        '<input><split input_index="0" num_splits="7" size="64000000" compress="false"/>'
        '<split input_index="0" num_splits="1" size="16000000" compress="FALSE"/></input>'
    )
    profile, config, cluster = load_starfish(FIXTURES / "terasort_profile.xml", spec)
    assert config.dfs_blocksize == 64_000_000
    assert profile.input_files == 1  # one file of 7 full splits and a 16 MB tail
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert (pred.num_full_maps[0], pred.num_tail_maps[0]) == (7, 1)
    assert pred.tail_split_bytes[0] == 16_000_000
