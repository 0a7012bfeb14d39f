"""Pig's stage partition of a job DAG."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtune.costmodel.workflow import pig_stages


def test_tpch_like_dag() -> None:
    deps = {
        "scan_orders": [],
        "scan_lineitem": [],
        "scan_customer": [],
        "join_ol": ["scan_orders", "scan_lineitem"],
        "join_c": ["join_ol", "scan_customer"],
        "group": ["join_c"],
    }
    assert pig_stages(deps) == [
        ("scan_orders", "scan_lineitem", "scan_customer"),
        ("join_ol",),
        ("join_c",),
        ("group",),
    ]


def test_stage_keeps_listed_order() -> None:
    assert pig_stages({"z": [], "a": [], "m": ["z"]}) == [("z", "a"), ("m",)]


@pytest.mark.parametrize(
    ("deps", "message"),
    [
        ({"a": ["b"], "b": ["a"]}, "cycle"),
        ({"a": ["x"]}, "unknown job 'x'"),
        ({"a": ["a"]}, "itself"),
    ],
)
def test_bad_graphs(deps: dict[str, list[str]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pig_stages(deps)


@st.composite
def dags(draw: st.DrawFn) -> dict[str, list[str]]:
    n = draw(st.integers(1, 12))
    names = [f"j{i}" for i in range(n)]
    return {
        name: draw(st.lists(st.sampled_from(names[:i]), unique=True)) if i else []
        for i, name in enumerate(names)
    }


@given(dags())
def test_stage_is_one_after_the_latest_predecessor(deps: dict[str, list[str]]) -> None:
    stages = pig_stages(deps)
    level = {job: s for s, jobs in enumerate(stages) for job in jobs}
    assert sorted(level) == sorted(deps)
    for job, preds in deps.items():
        # Pig submits a job as soon as all its predecessors are done: exactly one stage later.
        assert level[job] == (1 + max(level[p] for p in preds) if preds else 0)
