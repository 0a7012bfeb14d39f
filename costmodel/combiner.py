"""How much a combiner shrinks its input, as a function of how much it sees (DESIGN decision 4).

A combine call collapses records with equal keys, so its output is the number of distinct keys
among the *raw* map output records that its input represents. We model that count with a
Heaps-law curve calibrated on the profile: ``D(n) = sel0 · n0 · (n / n0)^beta``, where ``sel0`` is
the selectivity measured when one combine call saw ``n0`` records, capped by the input itself and
by a known bound on distinct keys. Where the profile knows the keys' distribution
(``key_vocabulary``, ``key_zipf_exponent``), the expected distinct count of an i.i.d. Zipf
sample replaces the Heaps curve (:func:`zipf_distinct`). Without a calibration point
(``n0`` unknown) the selectivity is
the constant ``sel0`` (beta = 1), the reference's plain product (§2.3). Starfish instead rescales
by ``ln`` (reference §2.3); the Heaps law follows the measured WordCount behaviour in DESIGN.md
(1.3 M outputs with 2 spills per map, 4.9 M with 15).

The law counts keys over all partitions; a combine that sees one of R hash partitions gets
``D(n · R) / R`` (:func:`combined_records`), so splitting the same records over more reducers
never changes how many distinct keys they hold. How wide a combined record is follows the
number of raw records merged into it (:func:`combined_pair_width`): a summing combiner keeps
its width, a list-building one grows.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import at_least, at_most
from mrtune.costmodel.profile import DataflowStats

#: Rank bins of :func:`zipf_distinct` (geometric; ranks below ``_EXACT_RANKS`` one per bin).
_BINS = 4096
_EXACT_RANKS = 1024
#: ``key_law_knots`` fade to the law's own level over this much ``ln(records)`` past the
#: first and last knot.
_KNOT_TAPER = float(np.log(2.0))
#: Points of the log-spaced table :func:`_zipf_table` interpolates (n from 1 to 10^15).
_TABLE_POINTS = 601


def _rank_bins(vocabulary: float, exponent: float) -> tuple[NDArray, NDArray]:
    """(probability of one key, number of keys) per rank bin of a Zipf(s) law over V keys:
    the first ranks exactly, the rest in geometric bins (within a bin p varies by < 0.3%)."""
    v = int(round(vocabulary))
    exact = np.arange(1, min(v, _EXACT_RANKS) + 1, dtype=np.float64)
    if v > _EXACT_RANKS:
        edges = np.unique(np.round(np.geomspace(_EXACT_RANKS + 1, v + 1, _BINS)).astype(np.int64))
        lo, hi = edges[:-1].astype(np.float64), edges[1:].astype(np.float64)
        mid = np.sqrt(lo * (hi - 1.0))
        ranks, counts = (
            np.concatenate([exact, mid]),
            np.concatenate([np.ones_like(exact), hi - lo]),
        )
    else:
        ranks, counts = exact, np.ones_like(exact)
    w = ranks ** (-exponent)
    total = float(np.sum(w * counts))
    return w / total, counts


@lru_cache(maxsize=64)
def _zipf_table(vocabulary: float, exponent: float) -> tuple[NDArray, NDArray]:
    p, counts = _rank_bins(vocabulary, exponent)
    log_n = np.linspace(0.0, np.log(1e15), _TABLE_POINTS)
    lp = np.log1p(-np.minimum(p, 1.0 - 1e-16))
    # E[distinct] = Σ_i 1 − (1 − p_i)^n
    d = np.array([np.sum(counts * -np.expm1(np.exp(x) * lp)) for x in log_n])
    return log_n, np.log(np.maximum(d, 1e-300))


def zipf_distinct_exact(n: NDArray | float, vocabulary: float, exponent: float) -> NDArray:
    """:func:`zipf_distinct` without the table (each ``n`` summed over the rank bins): for
    fitting the law to a few observations."""
    p, counts = _rank_bins(vocabulary, exponent)
    lp = np.log1p(-np.minimum(p, 1.0 - 1e-16))
    n = np.atleast_1d(np.asarray(n, dtype=np.float64))
    return np.array([np.sum(counts * -np.expm1(x * lp)) for x in n])


def zipf_distinct(n: NDArray | float, vocabulary: float, exponent: float) -> NDArray:
    """Expected distinct keys among ``n`` keys drawn i.i.d. from a Zipf(``exponent``) law over
    ``vocabulary`` keys: ``Σ_i 1 − (1 − p_i)^n``.

    This is the law Heaps' ``K n^β`` approximates before the vocabulary saturates; unlike
    it, it holds across the whole range a combiner sees (one spill of a few hundred thousand
    records to a whole job). On the project's WordCount runs (Zipf text, 100 k words,
    s = 1.1) it gives 94,986 distinct words in 4,051,416 (measured 94,979), 82,862 in
    2,025,885 (82,855) and 99,433 in 8,103,540 (REDUCE_INPUT_GROUPS 99,411). Interpolated
    (log D against log n, exact where D ≈ n) in a table computed once per (vocabulary,
    exponent).
    """
    log_n, log_d = _zipf_table(float(vocabulary), float(exponent))
    x = np.log(np.maximum(np.asarray(n, dtype=np.float64), 1.0))
    return np.exp(np.interp(x, log_n, log_d))


def knot_factor(
    n: NDArray[np.float64] | float, knots: tuple[tuple[float, float], ...]
) -> NDArray[np.float64]:
    """The factor of ``key_law_knots`` at ``n`` records: piecewise linear in ``log n`` through
    the knots, back to 1 (the law itself) within a factor of 2 in records outside them.

    An i.i.d. law gives the EXPECTED distinct keys of a sample; one data set's spills hold
    their own realized counts, which scatter around it by about the square root of the count
    (postings: ±0.2% on ~80 k keys a spill). The knots are that scatter measured at the
    profiled run's sample sizes, so a configuration that spills at the same boundaries (other
    reducer counts, codecs, shuffle settings) gets the run's exact counts, and one between
    them the interpolated scatter. Beyond them the scatter of other records is unknown, so
    the expectation is kept: flat extrapolation carried the last 4 MiB's +0.24% onto the
    286 k-record spills of ``io.sort.mb = 10`` and doubled their error (+0.29% → +0.52%).
    """
    return 1.0 + _tapered(n, [k[0] for k in knots], [k[1] - 1.0 for k in knots])


def _tapered(n: NDArray[np.float64] | float, at: list[float], values: list[float]) -> NDArray:
    """Piecewise linear in ``log n`` through ``(at, values)``, to 0 over ``_KNOT_TAPER``."""
    xs = np.log(np.asarray(at, dtype=np.float64))
    xs = np.concatenate([[xs[0] - _KNOT_TAPER], xs, [xs[-1] + _KNOT_TAPER]])
    ys = np.concatenate([[0.0], np.asarray(values, dtype=np.float64), [0.0]])
    x = np.log(np.maximum(np.asarray(n, dtype=np.float64), 1.0))
    return np.interp(x, xs, ys)


def knot_basis(n: NDArray[np.float64], positions: NDArray[np.float64]) -> NDArray[np.float64]:
    """``B[j, k]``: the weight of knot ``k`` (at ``positions[k]`` records, increasing) in
    :func:`knot_factor` at ``n[j]``: the factor is ``1 + B @ (values − 1)``."""
    at = [float(p) for p in positions]
    eye = np.eye(len(at))
    return np.stack([_tapered(n, at, list(eye[k])) for k in range(len(at))], axis=-1)


def distinct_keys(n_raw: NDArray[np.float64], stats: DataflowStats) -> NDArray[np.float64]:
    """Expected distinct keys among ``n_raw`` raw map output records (of all partitions): the
    profile's key law (Zipf when known, else Heaps, else the constant selectivity)."""
    n_raw = np.asarray(n_raw, dtype=np.float64)
    n0 = stats.combine_profiled_input_records
    if stats.key_vocabulary is not None and stats.key_zipf_exponent is not None:
        law = stats.key_law_scale * zipf_distinct(
            n_raw, stats.key_vocabulary, stats.key_zipf_exponent
        )
        return (
            law if stats.key_law_knots is None else law * knot_factor(n_raw, stats.key_law_knots)
        )
    if n0 is None:
        return stats.combine_pairs_sel * n_raw
    if n_raw.ndim == 0:
        return (
            stats.combine_pairs_sel
            * n0
            * np.power(at_least(n_raw, 1.0) / n0, stats.combiner_heaps_beta)
        )
    # sel0 · n0 · (max(n, 1) / n0)^beta, in one buffer (the scalar factor first, as written)
    d = at_least(n_raw, 1.0)
    d /= n0
    np.power(d, stats.combiner_heaps_beta, out=d)
    d *= stats.combine_pairs_sel * n0
    return d


def combined_records(
    n_in: NDArray[np.float64],
    n_raw: NDArray[np.float64],
    stats: DataflowStats,
    parts: NDArray[np.float64] | float = 1.0,
) -> NDArray[np.float64]:
    """Output records of a combine over ``n_in`` records that stand for ``n_raw`` raw records
    of ONE of ``parts`` hash partitions (``parts = 1``: a whole spill or map output).

    Every key lands in exactly one partition (``HashPartitioner``), so a partition holding
    ``n_raw`` raw records is a 1/parts share of ``n_raw · parts`` records of the whole key
    space and sees ``D(n_raw · parts) / parts`` distinct keys: with a Zipf vocabulary V the
    partition draws its ``n_raw`` records from V/parts keys, with Heaps it is ``D(n)/R`` at the
    same ``n``. Summed over the partitions this is ``D(n)``, never ``R · D(n/R)`` (issue 20).
    The bound ``max_distinct_keys`` (distinct keys of the whole job) is split the same way.
    """
    n_in = np.asarray(n_in, dtype=np.float64)
    n_raw = np.asarray(n_raw, dtype=np.float64)
    parts = np.asarray(parts, dtype=np.float64)
    if parts.ndim == 0 and float(parts) == 1.0:
        out = np.minimum(distinct_keys(n_raw, stats), n_in)
    else:
        out = np.minimum(distinct_keys(n_raw * parts, stats) / parts, n_in)
    if stats.max_distinct_keys is not None:
        out = np.minimum(out, stats.max_distinct_keys / parts)
    if out.ndim == 1 and bool((n_in >= 1.0).all()):
        # every combine sees a record or more: min(n_in, 1) is 1 and no row is empty
        return at_least(out, 1.0, out=out)
    out = np.maximum(out, at_most(n_in, 1.0))
    positive = n_in > 0
    return out if positive.all() else np.where(positive, out, 0.0)


def combined_width_factor(stats: DataflowStats) -> float:
    """Output pair width ÷ input pair width of the combiner at the profiled merge factor
    (size sel ÷ pairs sel)."""
    return stats.combine_size_sel / stats.combine_pairs_sel


def combined_pair_width(
    n_raw: NDArray[np.float64] | float,
    n_out: NDArray[np.float64] | float,
    raw_width: NDArray[np.float64] | float,
    stats: DataflowStats,
) -> NDArray[np.float64]:
    """Serialized key + value bytes of a combined record that merged ``n_raw / n_out`` raw
    records on average (its *merge factor* m).

    The law is affine in m, ``w(m) = w_c + g · (m − m_c)``, where ``w_c`` is the combined width
    measured at the profiled merge factor ``m_c`` (``raw_width · combine_size_sel /
    combine_pairs_sel``) and ``g = combine_width_growth`` the bytes a combined record gains
    per raw record merged into it. Affine is the one form whose per-record law sums exactly
    over keys of any frequency: Σ_k (a + g·m_k) = a·c + g·n_raw, so the mean width depends on
    the mean merge factor only. A summing combiner (WordCount's ``IntSumReducer``) has g = 0:
    its width is kept; a list-building one (postings lists, ``Postings.ConcatReducer``) grows
    by one list element per merged record (g = 4 bytes for 4-byte ints). ``g`` is fitted by
    :func:`mrtune.profiling.dataflow.width_growth` through ``(1, raw width)`` and the
    calibration run's ``(m_c, w_c)``.
    """
    n_raw = np.asarray(n_raw, dtype=np.float64)
    n_out = np.asarray(n_out, dtype=np.float64)
    w_c = raw_width * (stats.combine_size_sel / stats.combine_pairs_sel)
    g = stats.combine_width_growth
    if isinstance(g, float | int) and g == 0:
        return np.broadcast_to(np.asarray(w_c, dtype=np.float64), np.broadcast(n_raw, n_out).shape)
    m = np.divide(n_raw, n_out, out=np.ones(np.broadcast(n_raw, n_out).shape), where=n_out > 0)
    m = np.maximum(m, 1.0)
    return np.maximum(w_c + g * (m - stats.combine_profiled_merge_factor), 0.0)


def list_growth_per_record(
    raw_width: float, combined_width: float, merge_factor: float
) -> float | None:
    """Bytes per merged raw record of the affine width law through ``(1, raw_width)`` and
    ``(merge_factor, combined_width)``, or None when that is not list growth.

    A combiner that builds lists adds at least one serialized value (≥ 1 byte) per record it
    merges; a smaller slope is the drift of the key mix (distinct keys are on average longer
    than the frequency-weighted ones: WordCount's combined records are 12.55 bytes against
    12.28 raw at m = 25.7, 0.011 bytes per merged record), not growth, and the width is kept.
    """
    if merge_factor <= 1.0 + 1e-9 or raw_width <= 0:
        return None
    g = (combined_width - raw_width) / (merge_factor - 1.0)
    return g if g >= 1.0 else None


def fit_heaps_beta(
    n0: float, d0: float, points: list[tuple[float, float]]
) -> tuple[float, float] | None:
    """The Heaps exponent of ``D(n) = d0 · (n / n0)^beta`` through the anchor ``(n0, d0)`` (one
    spill's combine) and ``points`` ``(n, distinct keys)`` of the same run: a map's whole
    output (Starfish's MAP_MAX_UNIQUE_GROUPS), the job's (REDUCE_INPUT_GROUPS over all
    reducers). Least squares in log-log through the anchor, ``beta = Σxy / Σx²``; returns
    ``(beta, worst relative error)`` or None when no point is far enough from the anchor
    (a ratio of record counts under 1.05) to tell a slope.
    """
    if n0 <= 0 or d0 <= 0:
        return None
    xs, ys = [], []
    for n, d in points:
        if n > 0 and d > 0 and abs(np.log(n / n0)) >= np.log(1.05):
            xs.append(float(np.log(n / n0)))
            ys.append(float(np.log(d / d0)))
    if not xs:
        return None
    x, y = np.array(xs), np.array(ys)
    # saturated keys (a map holds as many as the job) give 0: the field must stay > 0
    beta = float(np.clip(np.sum(x * y) / np.sum(x * x), 1e-6, 1.0))
    worst = float(np.max(np.abs(np.expm1(beta * x - y))))
    return beta, worst
