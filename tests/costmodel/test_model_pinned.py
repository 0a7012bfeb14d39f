"""The analytic job model gives the numbers pinned in ``fixtures/model_reference.npz``.

The fixture holds a few thousand configurations over sixteen profiles (benchmark jobs, Hadoop 1,
map-only, compressed non-splittable input, local mode) and every output array the model gave
before its hot path was vectorised (closed forms and level-by-level merges instead of per-key
simulations, trimmed numpy). Each must still agree to 1e-12 relative; the fixture is regenerated
only when the model is meant to change (``fixtures/make_model_reference.py`` says how).
"""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile, evaluate, predict_job
from mrtune.costmodel.batch import ConfigBatch

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "model_reference.npz"
RTOL = 1e-12


@cache
def _fixture() -> dict[str, np.ndarray]:
    with np.load(FIXTURE) as z:
        return {k: z[k] for k in z.files}


def _cases() -> list[dict]:
    return json.loads(str(_fixture()["cases"]))


def _case(i: int) -> tuple[JobProfile, ClusterSpec, ConfigBatch, dict[str, np.ndarray]]:
    data = _fixture()
    meta = _cases()[i]
    n = len(data[f"case{i}.in.io_sort_mb"])
    # columns added after the fixture was made (the old API's split inputs, which these
    # new-API profiles never read) take Hadoop's defaults
    default = ConfigBatch.from_base(HadoopConfig(), n)
    batch = ConfigBatch(
        **{
            f.name: data.get(f"case{i}.in.{f.name}", getattr(default, f.name))
            for f in fields(ConfigBatch)
        }
    )
    prefix = f"case{i}.out."
    expected = {k[len(prefix) :]: v for k, v in data.items() if k.startswith(prefix)}
    # The fixture's clusters predate the SpillThread overlap on every cluster type and the
    # data-locality term (issue 20): loaded as they were (serial phases, every block local),
    # the pinned numbers keep testing the vectorised dataflow, merges and waves exactly;
    # tests/costmodel/test_cluster_terms.py tests the new terms.
    cluster = {"spill_overlap": False, "block_size_mb": float(2**20), **meta["cluster"]}
    # The fixture's combiner profiles predate JobProfile.old_api_combiner: they were modelled
    # with the combiner in the reduce's in-memory merges, which Hadoop 2/3 does for an
    # old-API combiner only (tests/calibration/test_shuffle_combiner.py tests the new API's).
    # They also predate JobProfile.map_output_floor: every map's output was floor(n·p), the
    # selectivity job's rule (tests/calibration/test_record_rounding.py tests a tokeniser's).
    profile = {"old_api_combiner": True, "map_output_floor": True, **meta["profile"]}
    return (
        JobProfile.model_validate(profile),
        ClusterSpec.model_validate(cluster),
        batch,
        expected,
    )


def _actual(pred: object, key: str) -> np.ndarray:
    """Look up ``job.x``, ``map_full.x``, ``reduce.phase_io_ms.shuffle`` … on a prediction."""
    head, *rest = key.split(".")
    obj = pred if head == "job" else getattr(pred, head)
    value = getattr(obj, rest[0])
    if len(rest) == 2:
        value = value[rest[1]]
    return np.broadcast_to(np.asarray(value, dtype=np.float64), pred.job_ms.shape)


def _assert_close(name: str, actual: np.ndarray, expected: np.ndarray) -> None:
    # 1e-12 relative; an absolute slack of 1e-12 of the field's scale lets a sum that cancels
    # to zero in one order come out as 1e-20 in another.
    atol = RTOL * float(np.max(np.abs(expected), initial=0.0))
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=atol, err_msg=name)


N_CASES = len(_cases())


def test_fixture_covers_the_model_branches() -> None:
    """The pinned rows reach every path of the merge planners and the task models."""
    seen = {"hadoop1": 0, "map_only": 0, "map_merge_beyond_f2": 0, "reduce_disk_merges": 0}
    seen |= {"evicted_kept": 0, "evicted_to_disk": 0, "to_disk_fetch": 0, "combine_in_merge": 0}
    for i in range(N_CASES):
        _, _, batch, exp = _case(i)
        seen["hadoop1"] += int(batch.hadoop1.sum())
        seen["map_only"] += int((exp["job.num_reducers"] == 0).sum())
        spills = exp["map_full.spills"]
        seen["map_merge_beyond_f2"] += int((spills > batch.sort_factor**2).sum())
        seen["reduce_disk_merges"] += int((exp["reduce.shuffle_disk_merges"] > 0).sum())
        ev = exp["reduce.evicted_segments"] > 0
        to_disk = exp["reduce.evicted_merged_to_disk"] > 0
        seen["evicted_kept"] += int((ev & ~to_disk).sum())
        seen["evicted_to_disk"] += int(to_disk.sum())
        seen["to_disk_fetch"] += int((exp["reduce.fetches_to_disk"] > 0).sum())
        seen["combine_in_merge"] += int(
            (exp["map_full.combine_input_records"] > exp["map_full.output_records"]).sum()
        )
    assert all(v >= 20 for v in seen.values()), seen


@pytest.mark.parametrize("i", range(N_CASES))
def test_predict_job_matches_pinned_outputs(i: int) -> None:
    profile, cluster, batch, expected = _case(i)
    pred = predict_job(profile, batch, cluster)
    for key, exp in expected.items():
        _assert_close(f"{_cases()[i]['name']}: {key}", _actual(pred, key), exp)


@pytest.mark.parametrize("i", range(N_CASES))
def test_evaluate_in_chunks_matches_pinned_outputs(i: int) -> None:
    """``evaluate`` (the optimizer's path) gives the same objectives, whatever the chunking."""
    profile, cluster, batch, expected = _case(i)
    for chunk in (1, 37, len(batch)):
        job_ms, gb_s = evaluate(profile, batch, cluster, chunk=chunk)
        _assert_close("job_ms", job_ms, expected["job.job_ms"])
        _assert_close("container_gb_s", gb_s, expected["job.container_gb_s"])


@pytest.mark.parametrize("i", [0, 12, N_CASES - 1])
def test_single_rows_match_pinned_outputs(i: int) -> None:
    """The scalar API is the same code with length-1 batches (issue 2, deliver 8)."""
    profile, cluster, batch, expected = _case(i)
    for row in range(0, len(batch), 17):
        pred = predict_job(profile, batch.take(slice(row, row + 1)), cluster)
        _assert_close("job_ms", pred.job_ms, expected["job.job_ms"][row : row + 1])
        _assert_close(
            "total_task_ms", pred.total_task_ms, expected["job.total_task_ms"][row : row + 1]
        )
