"""The fit's unit model calls: stacked into one call per run, remembered within a fit.

``mrtune.calibration.unit_models`` replaced one model call per column per run (the machine fit's
~13k calls) by one stacked call per run, and remembers each run's calls while a fit's scope is
open. Both must leave every row of the fit unchanged (to 1e-12 relative; in fact bit for bit).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from mrtune.calibration.rows import _collect_map, _collect_reduce, _Obs
from mrtune.calibration.run_profile import profile_from_run, run_config
from mrtune.calibration.segments import map_splits, reduce_inputs
from mrtune.calibration.unit_models import (
    map_units,
    reduce_units,
    reuse_unit_models,
    unit_profiles,
)
from mrtune.costmodel import ConfigBatch, HadoopConfig, JobProfile
from mrtune.costmodel.map_task import map_task
from mrtune.costmodel.reduce_task import reduce_task
from mrtune.readers.run_records import read_jsonl

MACHINE_RUNS = (
    Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs-machine.jsonl"
)
CODECS = ("default", "lz4", "snappy")


@pytest.fixture(scope="module")
def runs() -> list[tuple[JobProfile, HadoopConfig]]:
    """Every 7th run of the machine benchmark: spill grids, merges, reducers, codecs."""
    recs = [r for r in read_jsonl(MACHINE_RUNS) if r.success][::7]
    return [(profile_from_run(r, calibrate=False), run_config(r)) for r in recs]


def _assert_same(got: object, want: object, where: str) -> None:
    for f in fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if isinstance(b, dict):
            assert a.keys() == b.keys(), (where, f.name)
            for k in b:
                np.testing.assert_allclose(a[k], b[k], rtol=1e-12, atol=0, err_msg=where + k)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=f"{where} {f.name}")


def test_stacked_calls_equal_one_call_per_profile(runs) -> None:
    """Every field of every attempt's result at the base and at each unit profile equals the
    per-profile call's (the loop the stacked call replaced)."""
    assert any(cfg.map_output_compress for _, cfg in runs)
    for profile, cfg in runs:
        base, units = unit_profiles(profile, CODECS)
        maps = [t for t in profile.observed if t.kind == "map"]
        split = map_splits(profile, maps)
        batch = ConfigBatch.from_base(cfg, len(maps))
        r0, rk = map_units(profile, cfg, maps, CODECS)
        assert rk.keys() == units.keys()
        _assert_same(r0, map_task(base, batch, split), "map base")
        for f, p in units.items():
            _assert_same(rk[f], map_task(p, batch, split), f"map {f}")
        reds = [t for t in profile.observed if t.kind == "reduce"]
        if not reds:
            continue
        inputs = reduce_inputs(profile, cfg, reds)
        batch = ConfigBatch.from_base(cfg, len(reds))
        r0, rk = reduce_units(profile, cfg, reds, CODECS)
        _assert_same(r0, reduce_task(base, batch, *inputs), "reduce base")
        for f, p in units.items():
            _assert_same(rk[f], reduce_task(p, batch, *inputs), f"reduce {f}")


def test_scope_reuses_only_the_same_inputs(runs) -> None:
    """Within a scope an equal profile (another object) gets the remembered result; a changed
    shape factor does not; nothing survives the scope, and without one nothing is kept."""
    profile, cfg = runs[0]
    maps = [t for t in profile.observed if t.kind == "map"]
    copy = profile.model_copy(deep=True)
    slower = profile.model_copy(
        update={"costs": profile.costs.model_copy(update={"sort_cache_slowdown": 0.5})}
    )
    assert map_units(profile, cfg, maps) is not map_units(profile, cfg, maps)
    with reuse_unit_models():
        first = map_units(profile, cfg, maps)
        with reuse_unit_models():  # nested: the outer scope's results
            assert map_units(copy, cfg, maps) is first
        assert map_units(slower, cfg, maps) is not first
        assert map_units(profile, cfg.model_copy(update={"io_sort_mb": 50}), maps) is not first
        assert map_units(profile, cfg, maps, ("lz4",)) is not first
        with pytest.raises(ValueError, match="read-only"):
            first[0].spills[0] = 0.0  # shared by later fits: never changed in place
    assert map_units(profile, cfg, maps) is not first


def _rows(runs, kappa: float) -> dict[str, _Obs]:
    obs: dict[str, _Obs] = {}
    for profile, cfg in runs:
        _collect_map(profile, cfg, obs, CODECS, spill_overlap=True, theta={}, contention=kappa)
        _collect_reduce(profile, cfg, obs, CODECS)
    return obs


def test_rows_in_a_scope_equal_rows_without(runs) -> None:
    """Rows collected twice in a scope (the second time from remembered calls, at another
    contention) equal the rows collected without one."""
    with reuse_unit_models():
        _rows(runs, 0.0)
        inside = _rows(runs, 0.6)
    outside = _rows(runs, 0.6)
    assert inside.keys() == outside.keys() and "reduce.shuffle" in inside
    for name, o in outside.items():
        i = inside[name]
        assert (i.y, i.offset, i.fixed_w, i.warm_w, i.attempt) == (
            o.y,
            o.offset,
            o.fixed_w,
            o.warm_w,
            o.attempt,
        ), name
        np.testing.assert_allclose(np.vstack(i.rows), np.vstack(o.rows), rtol=1e-12, atol=0)
