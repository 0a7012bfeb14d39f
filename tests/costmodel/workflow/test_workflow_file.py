"""The workflow description: pydantic validation, profile paths, capacity forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mrtune.errors import InputError
from mrtune.readers.workflow_file import Capacity, TaskSpec, load_workflow, scaled_tasks

TASKS = {"maps": 4, "reduces": 2, "map_task_ms": 1000, "reduce_task_ms": 2000}


def write(tmp_path: Path, text: str, name: str = "wf.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_examples_load(examples: Path) -> None:
    tpch = load_workflow(examples / "tpch-q5-like.yaml")
    assert tpch.stages == [
        ("lineitem_agg", "cust_orders_join", "supp_nation"),
        ("orders_lineitem_join",),
        ("supp_join",),
        ("group_revenue",),
        ("order_by",),
    ]
    assert tpch.capacity is not None
    assert (tpch.capacity.map_capacity, tpch.capacity.reduce_capacity) == (128, 64)
    assert tpch.job("lineitem_agg").profile is not None
    assert tpch.job("order_by").tune is False
    fig = load_workflow(examples / "concurrent3-tasks.yaml")
    assert fig.stages == [("J1", "J2", "J3")]
    assert fig.estimate == "waves"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"map_slots": 128, "reduce_slots": 64}, (128, 64)),
        ({"containers": 192, "map_containers": 128}, (128, 64)),
        ({"containers": 192, "reduce_containers": 48}, (144, 48)),
        ({"containers": 100, "map_fraction": 0.75}, (75, 25)),
        ({"containers": 4, "map_fraction": 0.99}, (3, 1)),
    ],
)
def test_capacity_forms(fields: dict, expected: tuple[int, int]) -> None:
    cap = Capacity(**fields)
    assert (cap.map_capacity, cap.reduce_capacity) == expected


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"map_slots": 8}, "go together"),
        ({"map_slots": 8, "reduce_slots": 4, "containers": 12}, "not both"),
        ({"containers": 12}, "exactly one"),
        ({"containers": 12, "map_containers": 6, "map_fraction": 0.5}, "exactly one"),
        ({"containers": 12, "map_containers": 12}, "below containers"),
        ({"containers": 12, "reduce_containers": 13}, "below containers"),
        ({}, "give map_slots"),
        ({"map_slots": 0, "reduce_slots": 4}, "greater than or equal to 1"),
    ],
)
def test_capacity_errors(fields: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Capacity(**fields)


def tasks_yaml(jobs: str, extra: str = "") -> str:
    return "capacity: {map_slots: 4, reduce_slots: 2}\n" + extra + "jobs:\n" + jobs


TASK_LINE = "    tasks: {maps: 4, reduces: 2, map_task_ms: 1000, reduce_task_ms: 2000}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (tasks_yaml("  - name: a\n" + TASK_LINE + "    depends_on: [b]\n"), "unknown job 'b'"),
        (
            tasks_yaml(
                "  - name: a\n" + TASK_LINE + "    depends_on: [b]\n"
                "  - name: b\n" + TASK_LINE + "    depends_on: [a]\n"
            ),
            "cycle",
        ),
        (tasks_yaml("  - name: a\n" + TASK_LINE + "  - name: a\n" + TASK_LINE), "twice"),
        (tasks_yaml("  - name: a\n"), "exactly one of profile"),
        (
            tasks_yaml("  - name: a\n" + TASK_LINE + "    config: {mapreduce.job.reduces: 3}\n"),
            "config overrides need a profile",
        ),
        ("jobs:\n  - name: a\n" + TASK_LINE, "need an explicit capacity"),
        (tasks_yaml("  - name: 'a b'\n" + TASK_LINE), "pattern"),
        (tasks_yaml(""), "jobs"),
        (tasks_yaml("  - name: a\n" + TASK_LINE, "estimate: median\n"), "estimate"),
        (tasks_yaml("  - name: a\n" + TASK_LINE, "colour: red\n"), "colour"),
        ("jobs: [\n", "not valid YAML/JSON"),
        ("- just\n- a list\n", "must be a mapping"),
        (
            tasks_yaml("  - name: a\n    profile: missing.json\n"),
            "profile file not found",
        ),
    ],
)
def test_bad_files_name_the_file_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as info:
        load_workflow(path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_workflow(tmp_path / "nope.yaml")


def test_invalid_profile_json_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({"input_bytes": -1}))
    path = write(
        tmp_path,
        "capacity: {map_slots: 4, reduce_slots: 2}\njobs:\n  - name: a\n    profile: bad.json\n",
    )
    with pytest.raises(InputError, match="invalid job profile: input_bytes"):
        load_workflow(path)


def test_json_file_with_inline_profile_and_precedence(tmp_path: Path) -> None:
    data = {
        "capacity": {"containers": 10, "map_fraction": 0.6},
        "defaults": {"mapreduce.task.io.sort.mb": 150, "mapreduce.job.reduces": 3},
        "jobs": [
            {
                "name": "a",
                "profile": {
                    "input_bytes": 1e9,
                    "source_properties": {
                        "mapreduce.job.reduces": "2",
                        "mapreduce.task.io.sort.factor": "20",
                    },
                },
                "config": {"mapreduce.job.reduces": 7},
            },
            {"name": "b", "tasks": TASKS, "depends_on": ["a"]},
        ],
    }
    spec = load_workflow(write(tmp_path, json.dumps(data), "wf.json"))
    # profiled configuration < file defaults < the job's own overrides
    assert spec.job_properties("a") == {
        "mapreduce.job.reduces": "7",
        "mapreduce.task.io.sort.factor": "20",
        "mapreduce.task.io.sort.mb": "150",
    }
    assert spec.stages == [("a",), ("b",)]


def test_profile_path_is_relative_to_the_workflow_file(tmp_path: Path, examples: Path) -> None:
    sub = tmp_path / "deep"
    sub.mkdir()
    (sub / "p.json").write_text((examples / "profiles" / "order_by.json").read_text())
    path = write(
        tmp_path,
        "capacity: {map_slots: 4, reduce_slots: 2}\njobs:\n"
        "  - name: a\n    profile: deep/p.json\n",
    )
    spec = load_workflow(path)
    assert spec.job("a").profile is not None
    assert spec.job("a").profile.job_name == "order by revenue"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({**TASKS, "map_max_ms": 500}, "map_max_ms"),
        ({**TASKS, "reduce_max_ms": 100}, "reduce_max_ms"),
        ({**TASKS, "reduce_task_ms": 0}, "reduce_task_ms is needed"),
        ({**TASKS, "maps": 0}, "greater than or equal to 1"),
        # beyond what a Hadoop job records: a Java long of ms, a Java int of tasks (audit h3
        # section 6: 1e308 ms had printed "inf s" and "nan% below basic")
        ({**TASKS, "map_task_ms": 1e308}, "beyond a Java long of milliseconds"),
        ({**TASKS, "reduce_max_ms": 1e19}, "beyond a Java long of milliseconds"),
        ({**TASKS, "maps": 2**31}, "more tasks than a Java int holds"),
    ],
)
def test_task_spec_errors(fields: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        TaskSpec(**fields)


def test_scaled_tasks() -> None:
    # 2x the input: twice the splits of the same size, the same reducers reading twice as much.
    t = scaled_tasks(TaskSpec(**{**TASKS, "reduce_max_ms": 3000}), 2.0)
    assert (t.maps, t.reduces, t.map_task_ms, t.reduce_task_ms, t.reduce_max_ms) == (
        8,
        2,
        1000,
        4000,
        6000,
    )
    assert scaled_tasks(TaskSpec(**TASKS), 0.1).maps == 1
