"""Map-side and reduce-side cost factors kept apart (issue 16, ``CostFactors.reduce_side``).

Starfish's ``<map_profile>`` and ``<reduce_profile>`` both carry local I/O, merge and combine
costs, measured on each side's own work; its What-if Engine prices the map task with the map
profile's and the reduce task with the reduce profile's. The public co-occurrence sample has
MERGE_CPU_COST 168.6 ns on the map side and 18,234.7 ns on the reduce side (×108).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pytest

from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.costmodel.profile import CostFactors
from mrtune.costmodel.stacked import StackedProfiles, reduce_side_costs
from mrtune.profiling.starfish import load_starfish
from tests.readers.starfish.cases import CASES
from tests.readers.starfish.kinds import COOCCURRENCE_MERGE_SIDES, KINDS, load_case
from tests.readers.starfish.reference_model import reference_job

FIXTURES = Path(__file__).resolve().parents[1] / "readers" / "starfish" / "fixtures"
REDUCE_PHASES = ("shuffle", "merge", "reduce", "write")
MAP_PHASES = ("read", "map", "collect", "spill", "merge")


def _set_cost(root: ET.Element, section: str, key: str, value: float) -> None:
    sec = root.find(f"{section}/cost_factors")
    el = sec.find(f"cost_factor[@key='{key}']")
    if el is None:
        el = ET.SubElement(sec, "cost_factor", key=key)
    el.set("value", repr(value))


def _terasort(tmp_path: Path, map_merge: float, reduce_merge: float) -> tuple:
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    _set_cost(root, "map_profile", "MERGE_CPU_COST", map_merge)
    _set_cost(root, "reduce_profile", "MERGE_CPU_COST", reduce_merge)
    path = tmp_path / f"terasort-{map_merge}-{reduce_merge}.xml"
    ET.ElementTree(root).write(path)
    return load_starfish(
        path,
        FIXTURES / "terasort_input.xml",
        FIXTURES / "terasort_cluster.xml",
        FIXTURES / "terasort_conf.xml",
    )


def _predict(profile: JobProfile, config, cluster):  # noqa: ANN001, ANN202
    return predict_job(profile, ConfigBatch.from_configs([config]), cluster)


def test_reduce_merge_time_scales_with_the_reduce_value_only(tmp_path: Path) -> None:
    """Moving the reduce profile's MERGE_CPU_COST moves only the reduce task, linearly; moving
    the map profile's moves only the map task."""
    base = 114.6
    runs = {
        (m, r): _predict(*_terasort(tmp_path, m, r))
        for m, r in ((base, base), (base, 10 * base), (base, 20 * base), (5 * base, base))
    }
    p0, p10, p20, pm = (runs[k] for k in sorted(runs, key=lambda k: (k[0], k[1])))
    # the map task never reads the reduce value
    for ph in MAP_PHASES:
        assert p10.map_phase_ms[ph][0] == p0.map_phase_ms[ph][0] == p20.map_phase_ms[ph][0]
    # the reduce task's merge charge is affine in it, and grows (Terasort's reducers merge in
    # memory during the shuffle and evict one segment at the final merge)
    r0, r10, r20 = (float(p.reduce_task_ms[0]) for p in (p0, p10, p20))
    assert r10 > r0
    assert (r20 - r10) / 10 == pytest.approx((r10 - r0) / 9, rel=1e-9)
    # the map value moves the map task and leaves the reduce task as it was
    assert float(pm.map_task_ms[0]) > float(p0.map_task_ms[0])
    for ph in REDUCE_PHASES:
        assert pm.reduce_phase_ms[ph][0] == p0.reduce_phase_ms[ph][0]


def test_apart_factors_reproduce_the_reference_equations(tmp_path: Path) -> None:
    """Starfish's equations price each task at its own profile's factors (reference §2–§4):
    with MERGE_CPU_COST ×20 on the reduce side only, mrtune still reproduces every phase
    within 1%, where one averaged value would miss both tasks."""
    case = CASES["terasort"]
    reduce_merge = 20 * case.costs.merge_cpu
    profile, config, cluster = _terasort(tmp_path, case.costs.merge_cpu, reduce_merge)
    pred = _predict(profile, config, cluster)
    ref_map, _ = reference_job(
        case.split_size, case.num_splits, False, case.conf, case.stats, case.costs
    )
    _, ref_red = reference_job(
        case.split_size,
        case.num_splits,
        False,
        case.conf,
        case.stats,
        replace(case.costs, merge_cpu=reduce_merge),
    )
    for ph in MAP_PHASES:
        assert float(pred.map_phase_ms[ph][0]) == pytest.approx(ref_map.phases_ms[ph], rel=0.01)
    for ph in REDUCE_PHASES:
        assert float(pred.reduce_phase_ms[ph][0]) == pytest.approx(
            ref_red.phases_ms[ph], rel=0.01
        ), ph
    # one averaged value (the reader's old behaviour) overcharges the map's merge and
    # undercharges the reduce's merges; kept apart, each is closer to the reference
    mean = 0.5 * (case.costs.merge_cpu + reduce_merge)
    avg = profile.model_copy(
        update={"costs": profile.costs.model_copy(update={"merge_cpu": mean, "reduce_side": {}})}
    )
    pa = _predict(avg, config, cluster)

    def err(p, side: str, ph: str, ref: float) -> float:  # noqa: ANN001
        return float(getattr(p, f"{side}_phase_ms")[ph][0]) / ref - 1.0

    assert err(pa, "map", "merge", ref_map.phases_ms["merge"]) > 0.005
    for ph in ("shuffle", "merge"):
        assert err(pa, "reduce", ph, ref_red.phases_ms[ph]) < -0.005
        assert abs(err(pred, "reduce", ph, ref_red.phases_ms[ph])) < 1e-3


def _cooccurrence(tmp_path: Path) -> tuple:
    """The co-occurrence kind with the public sample's MERGE_CPU_COST on each side."""
    return load_case(KINDS["cooccurrence"], tmp_path / "cooc", cost_sides=COOCCURRENCE_MERGE_SIDES)


def _averaged(profile: JobProfile) -> JobProfile:
    """The reader's old single value: the two sides' mean weighted by SPILLED_RECORDS."""
    maps = [t for t in profile.observed if t.kind == "map"]
    red = next(t for t in profile.observed if t.kind == "reduce")
    wm = sum(t.counters["SPILLED_RECORDS"] * t.counters["num_tasks"] for t in maps)
    wr = red.counters["SPILLED_RECORDS"] * red.counters["num_tasks"]
    mean = (168.6 * wm + 18234.7 * wr) / (wm + wr)
    costs = profile.costs.model_copy(update={"merge_cpu": mean, "reduce_side": {}})
    return profile.model_copy(update={"costs": costs})


def test_cooccurrence_apart_vs_averaged(tmp_path: Path) -> None:
    """On the co-occurrence kind the averaged factor overcharges the map's merges and
    undercharges the reduce's; kept apart, each task is priced at its own side's value."""
    profile, config, cluster = _cooccurrence(tmp_path)
    assert profile.costs.merge_cpu == 168.6
    assert profile.costs.reduce_side == {"merge_cpu": 18234.7}
    assert not any("MERGE_CPU_COST" in w for w in profile.warnings)
    apart = _predict(profile, config, cluster)
    avg = _predict(_averaged(profile), config, cluster)
    assert float(apart.map_phase_ms["merge"][0]) < float(avg.map_phase_ms["merge"][0])
    assert float(apart.reduce_task_ms[0]) > float(avg.reduce_task_ms[0])
    assert float(apart.job_ms[0]) != pytest.approx(float(avg.job_ms[0]), rel=0.01)


def test_no_override_is_the_same_object_and_stacked_rows_match(tmp_path: Path) -> None:
    """Without overrides the reduce task reads ``profile.costs`` itself (bit-identical, the
    pinned fixture); with them, stacked rows equal each job's own call bit for bit."""
    plain = JobProfile(input_bytes=1e9)
    assert reduce_side_costs(plain) is plain.costs
    cooc, config, cluster = _cooccurrence(tmp_path)
    profiles = [plain, cooc, _averaged(cooc)]
    batch = ConfigBatch.from_configs([config] * 3)
    stacked = StackedProfiles.of(profiles, np.arange(3))
    together = predict_job(stacked, batch, cluster)
    alone = [_predict(p, config, cluster) for p in profiles]
    for name in ("job_ms", "total_task_ms", "container_gb_s"):
        np.testing.assert_array_equal(
            getattr(together, name), np.concatenate([getattr(a, name) for a in alone])
        )
    half = stacked.take(slice(1, 3))
    assert half.reduce_costs is not None
    assert half.reduce_costs.merge_cpu.tolist() == [18234.7, _averaged(cooc).costs.merge_cpu]


def test_round_trip_and_validation(tmp_path: Path) -> None:
    """The override survives profile.json; an unknown or negative one is refused."""
    cooc, _, _ = _cooccurrence(tmp_path)
    back = JobProfile.model_validate(json.loads(cooc.model_dump_json()))
    assert back.costs == cooc.costs
    assert back.costs.reduce_value("merge_cpu") == 18234.7
    with pytest.raises(ValueError, match="unknown reduce-side factor"):
        CostFactors(reduce_side={"map_cpu": 1.0})
    with pytest.raises(ValueError, match="finite number"):
        CostFactors(reduce_side={"merge_cpu": -1.0})


def test_with_factors_moves_an_override_with_its_factor() -> None:
    """A perturbed factor (confidence samples, sensitivity) keeps the measured reduce/map
    ratio; a factor without an override is set as given."""
    c = CostFactors(merge_cpu=100.0, reduce_side={"merge_cpu": 1000.0})
    d = c.with_factors({"merge_cpu": 200.0, "sort_cpu": 7.0})
    assert (d.merge_cpu, d.reduce_value("merge_cpu"), d.sort_cpu) == (200.0, 2000.0, 7.0)
    assert c.reduce_value("merge_cpu") == 1000.0


def test_intermediate_codec_costs_are_kept_apart_too(tmp_path: Path) -> None:
    """INTERM_(UN)COMPRESS_CPU_COST of the reduce profile prices the reduce task's shuffle and
    merges (the reference's reduce equations), the map profile's the map task's; stacked rows
    read the same values."""
    case = CASES["terasort"]
    root = ET.parse(FIXTURES / "terasort_profile.xml").getroot()
    _set_cost(root, "reduce_profile", "INTERM_UNCOMPRESS_CPU_COST", 10 * case.costs.interm_uncompr)
    _set_cost(root, "reduce_profile", "INTERM_COMPRESS_CPU_COST", 3 * case.costs.interm_compr)
    path = tmp_path / "p.xml"
    ET.ElementTree(root).write(path)
    files = [FIXTURES / f"terasort_{k}.xml" for k in ("input", "cluster", "conf")]
    profile, config, cluster = load_starfish(path, *files)
    snappy = profile.codecs["snappy"]
    assert snappy.uncompress_ns_per_byte == case.costs.interm_uncompr
    assert snappy.reduce_costs() == (3 * case.costs.interm_compr, 10 * case.costs.interm_uncompr)
    pred = _predict(profile, config, cluster)
    red_costs = replace(
        case.costs,
        interm_uncompr=10 * case.costs.interm_uncompr,
        interm_compr=3 * case.costs.interm_compr,
    )
    ref_map, _ = reference_job(
        case.split_size, case.num_splits, False, case.conf, case.stats, case.costs
    )
    _, ref_red = reference_job(
        case.split_size, case.num_splits, False, case.conf, case.stats, red_costs
    )
    for ph in MAP_PHASES:
        assert float(pred.map_phase_ms[ph][0]) == pytest.approx(ref_map.phases_ms[ph], rel=0.01)
    for ph in REDUCE_PHASES:
        assert float(pred.reduce_phase_ms[ph][0]) == pytest.approx(
            ref_red.phases_ms[ph], rel=0.01
        ), ph
    plain = load_starfish(FIXTURES / "terasort_profile.xml", *files)[0]
    stacked = StackedProfiles.of([plain, profile], np.arange(2))
    together = predict_job(stacked, ConfigBatch.from_configs([config] * 2), cluster)
    alone = [_predict(p, config, cluster) for p in (plain, profile)]
    np.testing.assert_array_equal(
        together.reduce_task_ms, np.concatenate([a.reduce_task_ms for a in alone])
    )
    assert float(alone[1].reduce_task_ms[0]) > float(alone[0].reduce_task_ms[0])
