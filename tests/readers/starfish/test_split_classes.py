"""Three split sizes and two map profiles reach the model apart (issue 16, Deliver 1).

``join_profile.xml`` is a two-input job in Starfish's format: input 0's ``<map_profile>`` is
the TeraSort case's, input 1's (``cases.JOIN_RIGHT``) has half as wide records, keeps half
of them and costs three times as much per record. ``join_input.xml`` gives 100 x 128 MB and
50 x 30 MB splits of input 0 and 40 x 64 MB of input 1. Each class of map tasks must be the
map tasks of a job holding only that class's splits and map profile.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.costmodel.profile import MapClass
from mrtune.profiling.starfish import load_starfish
from mrtune.readers.starfish import read_job_profile

from .cases import JOIN_RIGHT, profile_tree, to_bytes

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MB = 2**20
CLUSTER = FIXTURES / "terasort_cluster.xml"
CONF = FIXTURES / "terasort_conf.xml"


def _join():
    return load_starfish(FIXTURES / "join_profile.xml", FIXTURES / "join_input.xml", CLUSTER, CONF)


def _spec(tmp_path: Path, name: str, groups: list[tuple[int, int, int]]) -> Path:
    path = tmp_path / name
    path.write_text(
        "<input>"
        + "".join(
            f'<split input_index="{i}" num_splits="{n}" size="{s}" compress="false"/>'
            for i, n, s in groups
        )
        + "</input>"
    )
    return path


def _alone(profile_xml: Path, spec: Path):
    """A job of one class: its map profile alone, its splits alone."""
    p, c, cl = load_starfish(profile_xml, spec, CLUSTER, CONF)
    return predict_job(p, ConfigBatch.from_configs([c]), cl)


def _class_maps(pred) -> dict[float, tuple[float, object]]:  # noqa: ANN001
    """``{split bytes: (maps, result)}`` of the groups that hold maps."""
    return {
        float(g.split_bytes[0]): (float(g.count[0]), g.result)
        for g in pred.map_groups
        if g.count[0] > 0
    }


def test_the_fixture_is_starfish_two_inputs_three_sizes() -> None:
    job = read_job_profile(FIXTURES / "join_profile.xml")
    assert job.warnings == []
    assert [m.input_index for m in job.maps] == [0, 1]
    assert len(job.inputs) == 2 and job.num_mappers == 14
    profile, _, _ = _join()
    assert profile.cluster_facts["input_split_groups"] == (
        "100 x 134217728 + 40 x 67108864 + 50 x 31457280"
    )


def test_each_class_keeps_its_count_size_and_map_profile() -> None:
    profile, config, cluster = _join()
    assert not any("equal splits" in w or "task-weighted mean" in w for w in profile.warnings)
    assert [(c.input_files, c.input_bytes / c.input_files) for c in profile.map_classes] == [
        (100, 128 * MB),
        (40, 64 * MB),
        (50, 30 * MB),
    ]
    left, right, tail = profile.map_classes
    assert left.stats is not None and right.stats is not None
    assert (left.stats.map_pairs_sel, right.stats.map_pairs_sel) == (1.0, 0.5)
    assert right.stats.input_pair_width == 50.0
    # the factors are the profiles' own, as ratios to the job-level (task-weighted) values
    assert profile.costs.map_cpu * left.cost_scale["map_cpu"] == pytest.approx(12568.0)
    assert profile.costs.map_cpu * right.cost_scale["map_cpu"] == pytest.approx(3 * 12568.0)
    assert tail.stats == left.stats and tail.cost_scale == left.cost_scale
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert pred.num_maps[0] == 190
    maps = _class_maps(pred)
    assert {size: n for size, (n, _) in maps.items()} == {
        128 * MB: 100,
        64 * MB: 40,
        30 * MB: 50,
    }


def test_each_class_is_the_job_of_its_own_splits_and_profile(tmp_path: Path) -> None:
    """Class by class, the map task equals that of a job with only the class's input."""
    profile, config, cluster = _join()
    maps = _class_maps(predict_job(profile, ConfigBatch.from_configs([config]), cluster))
    right_xml = tmp_path / "right_profile.xml"
    right_xml.write_bytes(to_bytes(profile_tree(JOIN_RIGHT)))
    for xml, size, n in (
        (FIXTURES / "terasort_profile.xml", 128 * MB, 100),
        (FIXTURES / "terasort_profile.xml", 30 * MB, 50),
        (right_xml, 64 * MB, 40),
    ):
        alone = _alone(xml, _spec(tmp_path, f"in_{size}.xml", [(0, n, size)]))
        ((_, one),) = _class_maps(alone).values()
        mine = maps[size][1]
        assert mine.task_ms[0] == pytest.approx(one.task_ms[0], rel=1e-9)
        assert mine.spills[0] == one.spills[0]
        assert mine.output_records[0] == one.output_records[0]
    # the three classes spill differently: an average split would give one figure
    assert len({float(r.spills[0]) for _, r in maps.values()}) == 3


def test_job_totals_and_map_stage_are_over_every_class() -> None:
    profile, config, cluster = _join()
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    c = pred.counters
    assert c["HDFS_BYTES_READ"][0] == pytest.approx(profile.input_bytes)
    # each class's records are its bytes over its width, unrounded per file
    left = (100 * 128 * MB + 50 * 30 * MB) / 100
    right = 40 * 64 * MB / 50
    assert c["MAP_INPUT_RECORDS"][0] == pytest.approx(left + right, rel=1e-12)
    # input 1 keeps half its records: a profile with no maps' counters shows no share to
    # floor (JobProfile.map_output_floor), so the maps emit the expectation
    assert c["MAP_OUTPUT_RECORDS"][0] == pytest.approx(left + right * 0.5, rel=1e-12)
    work = sum(float(n * r.task_ms[0]) for n, r in _class_maps(pred).values())
    assert pred.map_task_ms[0] * 190 == pytest.approx(work, rel=1e-9)
    # 8 map slots: the map stage lasts at least the waves' average and the longest map
    assert pred.map_stage_ms[0] >= np.ceil(190 / 8) * work / 190 * (1 - 1e-9)


def test_classes_evaluate_as_one_vectorised_call() -> None:
    profile, config, cluster = _join()
    configs = [config.with_changes({"mapreduce.task.io.sort.mb": mb}) for mb in (50, 100, 150)]
    together = predict_job(profile, ConfigBatch.from_configs(configs), cluster)
    for i, cfg in enumerate(configs):
        one = predict_job(profile, ConfigBatch.from_configs([cfg]), cluster)
        assert together.job_ms[i] == pytest.approx(one.job_ms[0], rel=1e-12)
    assert len(set(together.job_ms.tolist())) == 3


def test_classes_survive_profile_json() -> None:
    from mrtune.profiling.build import profile_config

    profile, config, cluster = _join()
    again = JobProfile.model_validate_json(profile.model_dump_json())
    assert again.map_classes == profile.map_classes
    a = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    b = predict_job(again, ConfigBatch.from_configs([profile_config(again)]), cluster)
    assert b.job_ms[0] == pytest.approx(a.job_ms[0], rel=1e-12)


def test_three_sizes_of_one_input_share_its_profile(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "three.xml", [(0, 4, 64 * MB), (0, 3, 40 * MB), (0, 2, 10 * MB)])
    profile, config, cluster = load_starfish(FIXTURES / "terasort_profile.xml", spec)
    assert [c.input_files for c in profile.map_classes] == [4, 3, 2]
    assert all(c.stats is None and not c.cost_scale for c in profile.map_classes)
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert sorted(_class_maps(pred)) == [10 * MB, 40 * MB, 64 * MB]
    assert not any("equal splits" in w for w in profile.warnings)


def test_two_map_profiles_without_an_input_spec_are_two_classes() -> None:
    profile, config, cluster = load_starfish(FIXTURES / "join_profile.xml", None, CLUSTER, CONF)
    assert [(c.input_files, c.input_bytes / c.input_files) for c in profile.map_classes] == [
        (8, 64_000_000),
        (6, 32_000_000),
    ]
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    assert pred.num_maps[0] == 14


def test_map_classes_must_add_up_to_the_input() -> None:
    with pytest.raises(ValidationError, match="map_classes hold"):
        JobProfile(
            input_bytes=100.0,
            input_files=2,
            map_classes=[MapClass(name="a", input_bytes=60.0, input_files=1)],
        )
    with pytest.raises(ValidationError, match="unknown cost factor"):
        MapClass(name="a", input_bytes=1.0, input_files=1, cost_scale={"nope": 1.0})


def test_the_event_schedule_runs_every_class_largest_first() -> None:
    """The per-task simulation (costmodel.scheduler) starts the 190 maps of all three
    classes, largest split first, and its map work is the analytic model's."""
    from mrtune.costmodel.scheduler import simulate_schedule

    profile, config, cluster = _join()
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    sched = simulate_schedule(profile, config, cluster)
    maps = sorted(sched.spans("map"), key=lambda t: (t.start_ms, t.index))
    assert len(maps) == 190
    times = {float(r.task_ms[0]) for _, r in _class_maps(pred).values()}
    longest = max(times)
    startup = cluster.task_startup_ms + cluster.heartbeat_ms
    first_wave = maps[:8]
    assert all(t.end_ms - t.start_ms == pytest.approx(longest + startup) for t in first_wave)
    work = sum(t.end_ms - t.start_ms for t in maps)
    assert work == pytest.approx(float(pred.map_task_ms[0]) * 190 + 190 * startup, rel=1e-9)
