"""A run's combiner and key law: the profile's combiner statistics from one run's counters
and task log (split from :mod:`mrtune.calibration.run_profile`; issue 20 Deliver 3).

The map output keys' Zipf law (``costmodel/combiner.py``) is fitted to every combine the run
did (spill- and merge-level COMBINE_* counters per map, spill record counts from the task
log) and to REDUCE_INPUT_GROUPS; without it, the Heaps-law selectivity of DESIGN decision 4.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq, least_squares

from mrtune.calibration.run_record import counter_value as _c
from mrtune.calibration.run_record import flat_counters, local_cluster, map_split_bytes
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.combiner import knot_factor, zipf_distinct
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import MapTaskResult, map_task
from mrtune.costmodel.profile import JobProfile
from mrtune.profiling.combine_fit import (
    fit_key_law_knots,
    fit_zipf_key_law,
    knots_on_model_layout,
    record_key_law,
    saturated,
)
from mrtune.profiling.combine_units import several_per_key
from mrtune.readers.run_records import MapAttemptEvents, RunRecord


class Prov:
    """Measured statistics and their provenance, gathered step by step."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.prov: dict[str, str] = {}

    def measured(self, name: str, value: float, how: str) -> None:
        self.values[name] = float(value)
        self.prov[f"stats.{name}"] = f"measured: {how}"

    def defaulted(self, name: str, why: str) -> None:
        self.prov[f"stats.{name}"] = f"defaulted: {why}"


def map_combine_split(a: MapAttemptEvents) -> tuple[float, float, float, float]:
    """``(raw records, spill-combine output, merge-combine input, merge-combine output)``.

    Every map output record goes through the spill combine; the merge combine
    (``MapTask.mergeParts``, spills ≥ ``combine.minspills``) reads the spill outputs. So
    COMBINE_INPUT = raw + [merge]·Σspill-outputs and COMBINE_OUTPUT = Σspill-outputs +
    [merge]·final.
    """
    raw = _c(a.counters, "MAP_OUTPUT_RECORDS")
    cir = _c(a.counters, "COMBINE_INPUT_RECORDS")
    cor = _c(a.counters, "COMBINE_OUTPUT_RECORDS")
    if cir > raw:
        spill_out = cir - raw
        return raw, spill_out, spill_out, cor - spill_out
    return raw, cor, 0.0, 0.0


def _fit_key_law(rec: RunRecord, st: Prov) -> bool:
    """Fit the map output keys' Zipf law (``key_vocabulary``, ``key_zipf_exponent``;
    ``mrtune.costmodel.combiner.zipf_distinct``) to what the run says about distinct keys.

    Each map's spill-level combine output is the sum over its spills of the distinct keys in
    each spill's raw records (the spills' record counts come from the task log), a merge-level
    combine outputs the distinct keys of the whole map, and the reduce's input groups are the
    distinct keys of the whole job: two or more observations of one curve at very different
    sample sizes, enough for its two parameters. Returns False (the Heaps law is kept) when the
    run cannot tell (no groups, no spill events) or the law does not fit within 1%.
    """
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    obs: list[tuple[list[float], float]] = []
    for a in rec.map_attempts:
        spills = [float(x.records) for x in a.spills if x.records]
        if not spills or len(spills) != a.num_spills:
            return False
        _, spill_out, merge_in, merge_out = map_combine_split(a)
        obs.append((spills, spill_out))
        if merge_in > 0:
            obs.append(([float(sum(spills))], merge_out))
    if groups <= 0 or total <= 0 or not obs:
        return False
    why = several_per_key(obs, groups)
    if why is not None:
        st.defaulted("key_vocabulary", why)
        return False
    obs.append(([total], groups))
    got = fit_zipf_key_law(obs, groups)
    if got is None:
        return False
    vocab, s, worst = got
    how = (
        f"fitted with key_zipf_exponent to {len(obs) - 1} per-map combine outputs (spill "
        f"record counts from the task log) and REDUCE_INPUT_GROUPS {groups:.0f} of "
        f"{total:.0f} records; worst relative error {worst:.2%}"
    )
    record_key_law(st, vocab, s, how, saturated(obs, groups))
    return True


def _fit_groups_scale(profile: JobProfile, rec: RunRecord, st: Prov) -> None:
    """``key_groups_scale``: the job's REDUCE_INPUT_GROUPS over the key law's distinct keys of
    all its map output records, so the model's groups (and so the reduce output) are the
    profiled run's own at its own input (the law's fit leaves up to 1% there)."""
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    vocab, s = profile.stats.key_vocabulary, profile.stats.key_zipf_exponent
    if groups <= 0 or total <= 0 or vocab is None or s is None:
        st.defaulted("key_groups_scale", "REDUCE_INPUT_GROUPS not recorded")
        return
    # the table the model interpolates (combined_records), so the scale is exact there
    law = st.values.get("key_law_scale", 1.0) * float(zipf_distinct(total, vocab, s))
    knots = st.values.get("key_law_knots")
    if knots is not None:
        law *= float(knot_factor(total, knots))  # type: ignore[arg-type]
    st.measured(
        "key_groups_scale",
        min(max(groups / law, 0.5), 2.0),
        f"REDUCE_INPUT_GROUPS {groups:.0f} ÷ the key law's {law:.0f} distinct keys in "
        f"{total:.0f} map output records",
    )


def _fit_knots(profile: JobProfile, rec: RunRecord, first: MapTaskResult, st: Prov) -> None:
    """``key_law_knots`` (:func:`mrtune.profiling.combine_fit.fit_key_law_knots`) through
    each map's spill-level and merge-level combine outputs, on the model's own spill layout
    (full spills of ``records_per_full_spill`` and the rest), and REDUCE_INPUT_GROUPS."""
    vocab, s = profile.stats.key_vocabulary, profile.stats.key_zipf_exponent
    if vocab is None or s is None:
        return
    scale = st.values["key_law_scale"]
    obs: list[tuple[list[float], float]] = []
    for i, a in enumerate(rec.map_attempts):
        out, k = float(first.output_records[i]), int(first.spills[i])
        r = float(first.records_per_full_spill[i])
        _, spill_out, merge_in, merge_out = map_combine_split(a)
        if k < 1 or out <= 0 or spill_out <= 0:
            return
        obs.append(([r] * (k - 1) + [out - r * (k - 1)], spill_out))
        if merge_in > 0 and merge_out > 0:
            obs.append(([out], merge_out))
    J = flat_counters(rec.counters)
    groups, total = J.get("REDUCE_INPUT_GROUPS", 0.0), J.get("MAP_OUTPUT_RECORDS", 0.0)
    if groups > 0 and total > 0:
        obs.append(([total], groups))
    got = fit_key_law_knots(obs, lambda n: scale * zipf_distinct(n, vocab, s))
    if got is None:
        st.defaulted("key_law_knots", "no knots: the key law's factors are out of range")
        return
    knots, worst = got
    st.values["key_law_knots"] = knots  # type: ignore[assignment]
    st.prov["stats.key_law_knots"] = (
        f"measured: the key law's factor at {len(knots)} sample sizes through {len(obs)} "
        "observations (each map's spill- and merge-level COMBINE_OUTPUT_RECORDS on the "
        f"model's spill layout, REDUCE_INPUT_GROUPS); worst relative error {worst:.1e}"
    )


def _fit_combiner(
    profile: JobProfile, cfg: HadoopConfig, rec: RunRecord, split: np.ndarray, st: Prov
) -> None:
    """Fit ``combine_pairs_sel`` (and ``combiner_heaps_beta`` when the run also combined in the
    merge) so that the model's per-map COMBINE_OUTPUT_RECORDS equal the run's
    (costmodel/combiner.py: D(n) = sel0 · n0 · (n/n0)^beta, n0 = records of one full spill)."""
    maps = rec.map_attempts
    obs = np.array([_c(a.counters, "COMBINE_OUTPUT_RECORDS") for a in maps])
    batch = ConfigBatch.from_base(cfg, len(maps))
    recs = np.rint(split / profile.stats.input_pair_width)
    first = map_task(profile, batch, split, input_records=recs)
    n0 = float(first.records_per_full_spill[0])
    merge_combines = any(map_combine_split(a)[2] > 0 for a in maps)

    def model(sel: float, beta: float) -> np.ndarray:
        stats = profile.stats.model_copy(
            update={
                "combine_pairs_sel": sel,
                "combine_profiled_input_records": n0,
                "combiner_heaps_beta": beta,
            }
        )
        p = profile.model_copy(update={"stats": stats})
        return map_task(p, batch, split, input_records=recs).combine_output_records

    beta = profile.stats.combiner_heaps_beta
    if profile.stats.key_vocabulary is not None:
        # the key law gives every combine's output: its level is set so that the model
        # reproduces this run's own sample exactly (on the model's spill layout)
        pred = float(model(profile.stats.combine_pairs_sel, beta).sum())
        if pred > 0:
            st.measured(
                "key_law_scale",
                min(max(float(obs.sum()) / pred, 0.5), 2.0),
                "this run's COMBINE_OUTPUT_RECORDS ÷ the fitted Zipf law's expectation",
            )
            _fit_knots(profile, rec, first, st)
        raw = float(sum(_c(a.counters, "MAP_OUTPUT_RECORDS") for a in maps))
        spill_out = float(sum(map_combine_split(a)[1] for a in maps))
        sel = min(max(spill_out / raw, 1e-9), 1.0) if raw > 0 else 1.0
        st.measured("combine_pairs_sel", sel, "spill-level COMBINE_OUTPUT / MAP_OUTPUT_RECORDS")
        st.measured(
            "combine_profiled_input_records", n0, "records of one full spill of the profiled run"
        )
        st.defaulted("combiner_heaps_beta", "not used: the keys' Zipf law is known")
        _fit_groups_scale(profile, rec, st)
        return
    if merge_combines:
        res = least_squares(
            lambda x: np.log(np.maximum(model(x[0], x[1]), 1e-9)) - np.log(np.maximum(obs, 1)),
            x0=[0.05, beta],
            bounds=([1e-6, 0.05], [1.0, 1.0]),
        )
        sel, beta = float(res.x[0]), float(res.x[1])
        st.measured(
            "combiner_heaps_beta",
            beta,
            "fitted to the spill-level and merge-level combines (per-map COMBINE_* counters)",
        )
    else:
        total = float(obs.sum())

        def gap(s: float) -> float:
            return float(model(s, beta).sum()) - total

        sel = float(brentq(gap, 1e-9, 1.0, xtol=1e-12)) if gap(1.0) > 0 else 1.0
        st.defaulted(
            "combiner_heaps_beta",
            "the run combined only at spills (no merge-level combine to fit it): DESIGN "
            "decision 4 default",
        )
    st.measured(
        "combine_pairs_sel",
        sel,
        f"fitted so the model's COMBINE_OUTPUT_RECORDS equal the run's ({obs.sum():.0f})",
    )
    st.measured(
        "combine_profiled_input_records", n0, "records of one full spill of the profiled run"
    )


def combiner_stats(
    profile: JobProfile,
    cfg: HadoopConfig,
    rec: RunRecord,
    J: dict[str, float],
    width_in: float,
    st: Prov,
) -> tuple[JobProfile, float]:
    """The key law and combiner selectivity; ``(profile, records the maps finally wrote)``."""
    if not (profile.has_combiner and J.get("COMBINE_INPUT_RECORDS", 0.0) > 0):
        why = (
            "the job has no combiner" if not profile.has_combiner else "COMBINE_INPUT_RECORDS is 0"
        )
        for name in ("combine_pairs_sel", "combine_profiled_input_records", "combiner_heaps_beta"):
            st.defaulted(name, why)
        return profile, J.get("MAP_OUTPUT_RECORDS", 0.0)
    if _fit_key_law(rec, st):
        profile = profile.model_copy(
            update={"stats": profile.stats.model_copy(update=dict(st.values))}
        )
    _fit_combiner(profile, cfg, rec, map_split_bytes(rec, width_in), st)
    final_recs = sum(
        (s[3] if s[2] > 0 else s[1]) for s in map(map_combine_split, rec.map_attempts)
    )
    return profile, final_recs


def run_knots_on_model_layout(
    profile: JobProfile, cfg: HadoopConfig, rec: RunRecord, J: dict[str, float]
) -> JobProfile:
    """:func:`mrtune.profiling.combine_fit.knots_on_model_layout` for a local run, as for a
    history: the key law's knots through the maps' summed distinct keys at the model's own
    map layout (the input's records over its files), so that the calibration run's combined
    records come out as its own (AggregateWordCount over 20 files: 334,499.85 had been
    predicted for its 334,510)."""
    return knots_on_model_layout(
        profile,
        cfg,
        [flat_counters(a.counters) for a in rec.map_attempts],
        all(a.num_spills <= 1 for a in rec.map_attempts),
        J.get("REDUCE_INPUT_GROUPS", 0.0),
        local_cluster(rec),  # the run's own layout: local mode (an old-API job's hint is 1)
    )
