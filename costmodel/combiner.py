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
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.profile import DataflowStats

#: Rank bins of :func:`zipf_distinct` (geometric; ranks below ``_EXACT_RANKS`` one per bin).
_BINS = 4096
_EXACT_RANKS = 1024
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


def combined_records(
    n_in: NDArray[np.float64], n_raw: NDArray[np.float64], stats: DataflowStats
) -> NDArray[np.float64]:
    """Output records of a combine over ``n_in`` records that stand for ``n_raw`` raw records."""
    n_in = np.asarray(n_in, dtype=np.float64)
    n_raw = np.asarray(n_raw, dtype=np.float64)
    sel = stats.combine_pairs_sel
    n0 = stats.combine_profiled_input_records
    if stats.key_vocabulary is not None and stats.key_zipf_exponent is not None:
        distinct = stats.key_law_scale * zipf_distinct(
            n_raw, stats.key_vocabulary, stats.key_zipf_exponent
        )
    elif n0 is None:
        distinct = sel * n_raw
    else:
        distinct = sel * n0 * np.power(np.maximum(n_raw, 1.0) / n0, stats.combiner_heaps_beta)
    out = np.minimum(distinct, n_in)
    if stats.max_distinct_keys is not None:
        out = np.minimum(out, stats.max_distinct_keys)
    out = np.maximum(out, np.minimum(n_in, 1.0))
    positive = n_in > 0
    return out if positive.all() else np.where(positive, out, 0.0)


def combined_width_factor(stats: DataflowStats) -> float:
    """Output pair width ÷ input pair width of the combiner (size sel ÷ pairs sel)."""
    return stats.combine_size_sel / stats.combine_pairs_sel
