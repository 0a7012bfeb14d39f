"""Combiner statistics shared by every profile source: the combined-width law and the
distinct-keys curve's exponent, fitted from the counters of the profiled run (issue 20).

* Width. ``MAP_OUTPUT_BYTES / MAP_OUTPUT_RECORDS`` is the raw record width (merge factor 1);
  uncompressed, ``(MAP_OUTPUT_MATERIALIZED_BYTES − 6 · segments) / final records − 2`` (IFile
  framing: EOF + CRC per segment, two vint lengths per record, ``IFile.Writer``) is the
  combined width at the run's merge factor ``MAP_OUTPUT_RECORDS / final records``. Two points of
  the affine law of :func:`mrtune.costmodel.combiner.combined_pair_width`; its slope is kept
  when it is list growth (≥ 1 byte per merged record), else the combiner is a summing one.
* Distinct keys. One spill's combine gives the Heaps anchor ``(n0, sel · n0)``; the job's
  ``REDUCE_INPUT_GROUPS`` (distinct keys of all map output) and, for Starfish,
  ``MAP_MAX_UNIQUE_GROUPS`` (distinct keys of one map's output) give further points, through
  which the exponent is fitted (:func:`mrtune.costmodel.combiner.fit_heaps_beta`), so that the
  law reproduces the profile's own distinct-key figures instead of a default exponent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

from mrtune.costmodel.combiner import fit_heaps_beta, knot_basis, list_growth_per_record
from mrtune.profiling.combine_units import several_per_key

if TYPE_CHECKING:
    from mrtune.costmodel import HadoopConfig, JobProfile
    from mrtune.costmodel.cluster import ClusterSpec

#: ``IFile.Writer``: two 1-byte vint lengths per record whose key and value are < 128 bytes.
IFILE_SMALL_RECORD_OVERHEAD = 2.0


class _Stats(Protocol):
    values: dict
    prov: dict

    def measured(self, name: str, value: float, how: str) -> None: ...


def _defaulted(st: _Stats, name: str, why: str) -> None:
    st.prov[f"stats.{name}"] = f"defaulted: {why}"


def fit_width_law(st: _Stats, raw_width: float, raw_records: float, final_records: float) -> None:
    """Record the profiled merge factor and the width growth per merged record, from the
    combined width already in ``st`` (``raw_width × combine_size_sel / combine_pairs_sel``)."""
    sel = st.values.get("combine_pairs_sel")
    size_sel = st.values.get("combine_size_sel")
    if not sel or not size_sel or final_records <= 0 or raw_records <= 0 or raw_width <= 0:
        _defaulted(st, "combine_width_growth", "combined width not measured: width kept")
        return
    m_c = max(raw_records / final_records, 1.0)
    comb_w = raw_width * size_sel / sel
    st.measured(
        "combine_profiled_merge_factor",
        m_c,
        f"MAP_OUTPUT_RECORDS / final map output records ({raw_records:.0f} / {final_records:.0f})",
    )
    g = list_growth_per_record(raw_width, comb_w, m_c)
    if g is None:
        _defaulted(
            st,
            "combine_width_growth",
            f"0, a summing combiner: combined width {comb_w:.2f} B vs raw {raw_width:.2f} B at "
            f"{m_c:.1f} records merged per record (< 1 byte per merged record is key-mix "
            "drift, not list growth)",
        )
        st.values["combine_width_growth"] = 0.0
        return
    st.measured(
        "combine_width_growth",
        g,
        f"(combined width {comb_w:.2f} B − raw width {raw_width:.2f} B) / ({m_c:.2f} − 1) "
        "merged records: a list-building combiner, width affine in the merge factor "
        "(one calibration point and the raw width at merge factor 1)",
    )


def combined_width_from_materialized(
    materialized: float, segments: float, final_records: float, segment_bytes: float = 6.0
) -> float | None:
    """Serialized key + value bytes per final map output record, from uncompressed
    MAP_OUTPUT_MATERIALIZED_BYTES (records of < 128-byte keys and values assumed for the
    IFile vints; a longer value's 2-byte vint is absorbed into the width)."""
    if final_records <= 0 or materialized <= 0:
        return None
    w = (materialized - segment_bytes * segments) / final_records - IFILE_SMALL_RECORD_OVERHEAD
    return w if w > 0 else None


def fit_beta_from_groups(
    st: _Stats, points: list[tuple[float, float, str]], default_why: str
) -> None:
    """Fit ``combiner_heaps_beta`` through the anchor ``(combine_profiled_input_records,
    combine_pairs_sel × it)`` and ``points`` ``(records, distinct keys, counter name)``."""
    n0 = st.values.get("combine_profiled_input_records")
    sel = st.values.get("combine_pairs_sel")
    if not n0 or not sel or not points:
        _defaulted(st, "combiner_heaps_beta", default_why)
        return
    got = fit_heaps_beta(float(n0), float(sel) * float(n0), [(n, d) for n, d, _ in points])
    if got is None:
        _defaulted(st, "combiner_heaps_beta", default_why + " (no point far enough from a spill)")
        return
    beta, worst = got
    names = ", ".join(f"{name} {d:.0f} of {n:.0f} records" for n, d, name in points)
    st.measured(
        "combiner_heaps_beta",
        beta,
        f"Heaps exponent through one spill's combine ({sel * n0:.0f} of {n0:.0f} records) and "
        f"{names}; worst relative error {worst:.1%}",
    )


def measure_combined_width(
    st: _Stats,
    raw_width: float,
    raw_records: float,
    materialized: float,
    segments: float,
    final_records: float,
) -> None:
    """``combine_size_sel`` from uncompressed MAP_OUTPUT_MATERIALIZED_BYTES (IFile framing of
    small records assumed, so ``ifile_record_overhead`` keeps its 2-byte default), then the
    width law (:func:`fit_width_law`)."""
    comb_w = combined_width_from_materialized(materialized, segments, final_records)
    sel = st.values.get("combine_pairs_sel")
    if comb_w is None or not sel or raw_width <= 0:
        _defaulted(st, "ifile_record_overhead", "combined output width not separable")
        return
    st.measured(
        "combine_size_sel",
        min(max(sel * comb_w / raw_width, 1e-9), 1.5),
        "combine_pairs_sel × combined width / map output width, the combined width from "
        "(MAP_OUTPUT_MATERIALIZED_BYTES − 6·segments) / final records − 2",
    )
    _defaulted(st, "ifile_record_overhead", "2 bytes (two 1-byte vints) assumed with a combiner")
    fit_width_law(st, raw_width, raw_records, final_records)


#: Observations closer than this in sample size share one knot (their factors would be
#: told apart only by noise).
_KNOT_GAP = float(np.log(1.05))


def fit_key_law_knots(
    observations: list[tuple[list[float], float]],
    law: Callable[[np.ndarray], np.ndarray],
) -> tuple[tuple[tuple[float, float], ...], float] | None:
    """``(key_law_knots, worst relative error)``: the factor on ``law`` (expected distinct keys
    in n records) that reproduces every observation ``(sample sizes, distinct keys summed
    over them)`` of the profiled run, or None when nothing is to be gained.

    An observation is one map's spill-level combine output (the distinct keys of each spill,
    summed over its spills, sizes on the model's spill layout), a merge-level combine (one
    sample of the map's whole output) or the job's REDUCE_INPUT_GROUPS (the whole map
    output). One knot sits at each observation's record-weighted log-mean size (observations
    within 5% of each other share one); the factor is linear in the knot values
    (:func:`mrtune.costmodel.combiner.knot_basis`), so they are solved for by least squares
    on relative errors: exactly, when every observation has its own knot.
    """
    sizes = [np.asarray(ns, dtype=np.float64) for ns, _ in observations]
    y = np.array([d for _, d in observations], dtype=np.float64)
    if len(y) == 0 or not np.all(y > 0) or any(len(s) == 0 or np.any(s <= 0) for s in sizes):
        return None
    rep = np.array([np.sum(s * np.log(s)) / np.sum(s) for s in sizes])
    order = np.sort(rep)
    groups: list[list[float]] = [[order[0]]]
    for x in order[1:]:
        if x - groups[-1][-1] < _KNOT_GAP:
            groups[-1].append(x)
        else:
            groups.append([x])
    positions = np.exp(np.array([np.mean(g) for g in groups]))
    # Σ_s law(n_s) · (1 + Σ_k δ_k B[s, k]) = y, linear in the knots' δ = value − 1
    a = np.array([np.sum(law(s)[:, None] * knot_basis(s, positions), axis=0) for s in sizes])
    base = np.array([float(np.sum(law(s))) for s in sizes])
    a, rhs = a / y[:, None], 1.0 - base / y
    delta, *_ = np.linalg.lstsq(a, rhs, rcond=None)
    values = 1.0 + delta
    if not np.all(np.isfinite(values)) or np.any(values < 0.8) or np.any(values > 1.25):
        return None
    worst = float(np.max(np.abs(a @ delta - rhs)))
    knots = tuple((float(p), float(v)) for p, v in zip(positions, values, strict=True))
    return knots, worst


#: A Zipf key law is kept only if it reproduces every distinct-key observation this closely.
ZIPF_FIT_TOLERANCE = 0.01


#: A sample holding this share of the job's keys has seen them all (saturated).
SATURATED_SHARE = 0.99
#: What a saturated key law's provenance says (:func:`fit_zipf_key_law`).
SATURATED_NOTE = (
    "every sample held every key (saturated): the exponent is not identified, so uniform "
    "keys are assumed, the most keys a smaller spill can hold"
)


def saturated(observations: list[tuple[list[float], float]], groups: float) -> bool:
    """Whether every observation's samples each held (almost) all ``groups`` keys."""
    return all(y >= SATURATED_SHARE * groups * len(ns) for ns, y in observations)


def fit_zipf_key_law(
    observations: list[tuple[list[float], float]], groups: float
) -> tuple[float, float, float] | None:
    """``(key_vocabulary, key_zipf_exponent, worst relative error)`` of the Zipf law
    (:func:`mrtune.costmodel.combiner.zipf_distinct`) through ``observations`` ``(sample
    sizes, distinct keys summed over them)``, or None when it misses one by more than
    :data:`ZIPF_FIT_TOLERANCE`. ``groups``: the job's distinct keys (a lower bound on the
    vocabulary).

    Why not a power law: real keys saturate. Through one map's spill (486 k records, 45.6 k
    distinct words) and the job's REDUCE_INPUT_GROUPS (1.94 M, 81.8 k), Heaps' ``K·n^β`` has
    β = 0.42, but the local slope between a 4× smaller spill and the map is 0.63: extrapolated
    to the spills of ``io.sort.mb = 5`` it gave 25 k keys a spill where there were 19 k
    (SPILLED_RECORDS +14% on the YARN round 2 runs), and 61 k where an 8 MiB split has 63.8 k
    (−4.3%). The Zipf law through the same points recovers the generator's vocabulary and
    exponent (99.9 k words, s = 1.100) and gives 76.2 k keys over those spills (measured
    76.5 k) and 63.8 k in 8 MiB (63.8 k).
    """
    from scipy.optimize import least_squares

    from mrtune.costmodel.combiner import zipf_distinct_exact

    if not observations or groups <= 0:
        return None
    if saturated(observations, groups):
        # every sample held every key: the exponent is not identified; uniform keys give
        # the most keys a smaller sample can hold (a fitted s = 1.16 gave AggregateWordCount's
        # 85 k-record spills 4,030 keys where each held all 4,816: SPILLED_RECORDS -14%)
        return float(groups), 0.0, 0.0
    sizes = sorted({n for ns, _ in observations for n in ns})
    index = {n: i for i, n in enumerate(sizes)}

    def residuals(x: np.ndarray) -> np.ndarray:
        d = zipf_distinct_exact(np.array(sizes), float(np.exp(x[0])), float(x[1]))
        return np.array([sum(d[index[n]] for n in ns) / y - 1.0 for ns, y in observations])

    res = least_squares(
        residuals,
        x0=[np.log(max(groups * 1.05, 2.0)), 1.0],
        bounds=([np.log(max(groups, 1.0)), 0.0], [np.log(1e12), 5.0]),
        diff_step=[1e-3, 1e-3],
        x_scale=[1.0, 0.1],
    )
    worst = float(np.max(np.abs(res.fun)))
    if worst > ZIPF_FIT_TOLERANCE:
        return None
    return float(np.exp(res.x[0])), float(res.x[1]), worst


def record_key_law(st: _Stats, vocab: float, s: float, how: str, full: bool) -> None:
    """The key law's vocabulary (measured) and exponent (defaulted when every sample was
    saturated, :data:`SATURATED_NOTE`)."""
    st.measured("key_vocabulary", vocab, how)
    if full:
        st.values["key_zipf_exponent"] = s
        _defaulted(st, "key_zipf_exponent", f"{SATURATED_NOTE} ({how})")
    else:
        st.measured("key_zipf_exponent", s, how)


def _per_map_distinct(
    maps: Iterable[Mapping[str, float]], one_spill: bool
) -> list[tuple[list[float], float]]:
    """Each map attempt's distinct keys as ``([records], distinct)``: its combine output when
    it spilled once (no merge combine: COMBINE_INPUT = MAP_OUTPUT records), or its merge
    combine's output (the distinct keys of the whole map) when that ran. A map that spilled
    more than once without a merge combine tells only a sum over unknown spill sizes."""
    obs: list[tuple[list[float], float]] = []
    for c in maps:
        raw = c.get("MAP_OUTPUT_RECORDS", 0.0)
        cir = c.get("COMBINE_INPUT_RECORDS", 0.0)
        cor = c.get("COMBINE_OUTPUT_RECORDS", 0.0)
        if raw <= 0 or cor <= 0:
            continue
        if cir > raw:  # merge combine: it read the spill outputs, cir − raw of them
            obs.append(([raw], cor - (cir - raw)))
        elif cir == raw and one_spill:
            obs.append(([raw], cor))
    return obs


def zipf_key_law(
    st: _Stats, maps: Iterable[Mapping[str, float]], one_spill: bool, groups: float, raw: float
) -> None:
    """The keys' Zipf law (``key_vocabulary``, ``key_zipf_exponent``) through each map
    attempt's distinct keys (``maps``: their counters; ``one_spill``: the maps spilled once)
    and REDUCE_INPUT_GROUPS (:func:`fit_zipf_key_law`: a power law misses at other spill and
    split sizes), and the knots that make it exact at those sample sizes
    (:func:`fit_key_law_knots`), fading to the law outside. The Heaps exponent stays as the
    fallback when the law does not fit within 1% (the model reads the Zipf law when it is
    there)."""
    from mrtune.costmodel.combiner import zipf_distinct

    obs = _per_map_distinct(maps, one_spill)
    if not obs:
        return
    why = several_per_key(obs, groups)
    if why is not None:
        _defaulted(st, "key_vocabulary", why)
        return
    obs.append(([raw], groups))
    got = fit_zipf_key_law(obs, groups)
    if got is None:
        return
    vocab, s, worst = got
    how = (
        f"fitted to {len(obs) - 1} maps' distinct keys (one-spill or merge-level "
        f"COMBINE_OUTPUT_RECORDS) and REDUCE_INPUT_GROUPS {groups:.0f} of {raw:.0f} records; "
        f"worst relative error {worst:.2%}"
    )
    record_key_law(st, vocab, s, how, saturated(obs, groups))
    # the knots through the maps' SUM (maps of one size share a knot: fitted one by one, the
    # least squares would leave their sum, the reduce input, a few records off)
    per_map = obs[:-1]
    summed = [([n for ns, _ in per_map for n in ns], sum(d for _, d in per_map)), obs[-1]]
    knots = fit_key_law_knots(summed, lambda n: zipf_distinct(n, vocab, s))
    if knots is not None:
        st.values["key_law_knots"] = knots[0]
        st.prov["stats.key_law_knots"] = (
            f"measured: the Zipf law's factor at {len(knots[0])} sample sizes through the "
            f"maps' summed distinct keys and REDUCE_INPUT_GROUPS; worst relative error "
            f"{knots[1]:.1e}"
        )


def knots_on_model_layout(
    profile: JobProfile,
    cfg: HadoopConfig,
    maps: Iterable[Mapping[str, float]],
    one_spill: bool,
    groups: float,
    cluster: ClusterSpec | None = None,
) -> JobProfile:
    """``profile`` with its ``key_law_knots`` refitted on the model's OWN map layout.

    :func:`zipf_key_law` puts the knots through the attempts' real sample sizes (each map's
    MAP_OUTPUT_RECORDS), but the job model evaluates the law at its split layout's sizes
    (``map_groups``: full splits of ``rint(split / width)`` records and the file's tail), which
    differ by a few hundred records a map. The law is concave, so the two sums differ: on
    WordCount's YARN default run the model's combined records came to 182,420.955 for 182,421
    (REDUCE_INPUT_RECORDS exact once rounded, but MAP_OUTPUT_MATERIALIZED_BYTES 0.65 byte
    short: 0.045 records × 14.5 bytes a combined record). Refitted on the model's sizes, the
    profiled run's distinct keys come out exactly, and so the byte counters built on them.
    Unchanged when the maps are not all observed one by one or the layout's map output
    records do not add up to the run's (another input layout than the model's)."""
    from mrtune.costmodel import ClusterSpec, ConfigBatch
    from mrtune.costmodel.combiner import zipf_distinct
    from mrtune.costmodel.map_groups import map_groups
    from mrtune.costmodel.map_task import MapInputs

    st = profile.stats
    vocab, s = st.key_vocabulary, st.key_zipf_exponent
    if st.key_law_knots is None or vocab is None or s is None or groups <= 0:
        return profile
    maps = list(maps)
    per_map = _per_map_distinct(maps, one_spill)
    if not per_map or len(per_map) != len(maps):
        return profile
    batch = ConfigBatch.from_configs([cfg])
    layout = map_groups(
        profile, batch, cluster or ClusterSpec(), MapInputs.build(profile, batch), counters=True
    )
    sizes = [float(g.result.output_records[0]) for g in layout for _ in range(int(g.count[0]))]
    raw = sum(n for ns, _ in per_map for n in ns)
    if len(sizes) != len(per_map) or abs(sum(sizes) - raw) > 0.5:
        return profile
    summed = [(sizes, sum(d for _, d in per_map)), ([raw], groups)]
    got = fit_key_law_knots(summed, lambda n: st.key_law_scale * zipf_distinct(n, vocab, s))
    if got is None:
        return profile
    knots, worst = got
    prov = dict(profile.provenance)
    prov["stats.key_law_knots"] = (
        f"measured: the Zipf law's factor at {len(knots)} sample sizes through the maps' "
        f"summed distinct keys on the model's split layout and REDUCE_INPUT_GROUPS; worst "
        f"relative error {worst:.1e}"
    )
    stats = st.model_copy(update={"key_law_knots": knots})
    return profile.model_copy(update={"stats": stats, "provenance": prov})
