"""Eq. 15-17 job-time prediction, the Table II inputs, and model serialisation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from mrtune.costmodel.regression import (
    CEESAY2019,
    JobInputs,
    PhaseModel,
    RegressionModel,
    compute_drivers,
)

TOY = RegressionModel(
    name="toy",
    phases={
        "read": PhaseModel(phase="read", intercept=10.0, coefficients={"d": 1.0}),
        "spill": PhaseModel(phase="spill", intercept=0.0, coefficients={"M_d": 2.0}),
        "shuffle": PhaseModel(phase="shuffle", intercept=100.0, coefficients={"S_d": 1.0}),
        "write": PhaseModel(phase="write", intercept=0.0, coefficients={"R_d": 0.5}),
    },
)


def test_inputs_derive_mappers_and_sizes_from_the_paper_definitions() -> None:
    inputs = JobInputs(
        data_size_mb=1000, block_size_mb=128, map_selectivity_pct=50, reducers=2, containers=4
    )
    assert inputs.mappers == 8  # ceil(1000 / 128)
    drv = compute_drivers(inputs.base(), ("d", "M_d", "S_d", "R_d", "M_d_log_M_d"))
    assert drv["d"] == pytest.approx(125.0)  # 1000 MB over 8 splits
    assert drv["M_d"] == pytest.approx(62.5)  # eq. 3
    assert drv["S_d"] == pytest.approx(250.0)  # eq. 7: 125 * 0.5 * 8 / 2
    assert drv["R_d"] == pytest.approx(250.0)  # eq. 10, R_sel = 100 %
    assert drv["M_d_log_M_d"] == pytest.approx(62.5 * math.log(62.5))


def test_job_time_is_waves_times_task_brackets() -> None:
    inputs = JobInputs(
        data_size_mb=1000,
        block_size_mb=128,
        map_selectivity_pct=50,
        reducers=2,
        containers=4,
        t_map_ms=7,
        t_reduce_ms=3,
    )
    job = TOY.predict_job(inputs)
    map_task = (10 + 125) + 2 * 62.5 + 7
    reduce_task = (100 + 250) + 0.5 * 250 + 3
    assert job.map_task_ms == pytest.approx(map_task)
    assert job.reduce_task_ms == pytest.approx(reduce_task)
    assert job.total_ms == pytest.approx(8 / 4 * map_task + 2 / 4 * reduce_task)
    ceil_job = TOY.model_copy(update={"waves": "ceil"}).predict_job(inputs)
    assert ceil_job.total_ms == pytest.approx(2 * map_task + 1 * reduce_task)


def test_map_only_job_has_no_reduce_term() -> None:
    inputs = JobInputs(
        data_size_mb=256, mappers=2, map_selectivity_pct=100, reducers=0, containers=1
    )
    job = TOY.predict_job(inputs)
    assert job.reduce_ms == 0.0 and job.total_ms == job.map_ms
    # no sort either: NewDirectOutputCollector writes the map output, nothing spills
    assert job.phases_ms["spill"] == 0.0
    assert job.map_task_ms == job.phases_ms["read"]
    with_reduce = TOY.predict_job(inputs.model_copy(update={"reducers": 1}))
    assert with_reduce.phases_ms["spill"] > 0.0


@given(
    containers=st.integers(1, 64),
    data=st.floats(1, 1e5),
    sel=st.floats(0, 200),
    reducers=st.integers(1, 100),
)
def test_fractional_waves_scale_inversely_with_containers(
    containers: int, data: float, sel: float, reducers: int
) -> None:
    """Eq. 17 with M_t/N_c and R_t/N_c: N_c * T_job does not depend on N_c."""
    one = JobInputs(
        data_size_mb=data,
        block_size_mb=128,
        map_selectivity_pct=sel,
        reducers=reducers,
        containers=1,
    )
    many = one.model_copy(update={"containers": containers})
    assert CEESAY2019.predict_job(many).total_ms * containers == pytest.approx(
        CEESAY2019.predict_job(one).total_ms, rel=1e-9
    )


def test_inputs_reject_bad_values_with_field_names() -> None:
    with pytest.raises(ValidationError, match="data_size_mb"):
        JobInputs(data_size_mb=-1, mappers=2, map_selectivity_pct=10, reducers=1, containers=1)
    with pytest.raises(ValidationError, match="mappers"):
        JobInputs(data_size_mb=10, map_selectivity_pct=10, reducers=1, containers=1)
    with pytest.raises(ValidationError, match="extra"):
        JobInputs.model_validate({"D": 10, "M_t": 1, "M_sel": 1, "R_t": 1, "N_c": 1, "typo": 3})


def test_model_json_round_trip_and_validation() -> None:
    text = TOY.to_json()
    assert RegressionModel.from_json(text) == TOY
    with pytest.raises(ValidationError, match="unknown phase"):
        RegressionModel.from_json(text.replace('"phase": "spill"', '"phase": "spil"'))
    with pytest.raises(ValidationError):
        RegressionModel.from_json(text.replace("mrtune-regression-model", "other"))
