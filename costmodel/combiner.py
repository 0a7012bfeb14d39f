"""How much a combiner shrinks its input, as a function of how much it sees (DESIGN decision 4).

A combine call collapses records with equal keys, so its output is the number of distinct keys
among the *raw* map output records that its input represents. We model that count with a
Heaps-law curve calibrated on the profile: ``D(n) = sel0 · n0 · (n / n0)^beta``, where ``sel0`` is
the selectivity measured when one combine call saw ``n0`` records, capped by the input itself and
by a known bound on distinct keys. Without a calibration point (``n0`` unknown) the selectivity is
the constant ``sel0`` (beta = 1), the reference's plain product (§2.3). Starfish instead rescales
by ``ln`` (reference §2.3); the Heaps law follows the measured WordCount behaviour in DESIGN.md
(1.3 M outputs with 2 spills per map, 4.9 M with 15).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from costmodel.profile import DataflowStats


def combined_records(
    n_in: NDArray[np.float64], n_raw: NDArray[np.float64], stats: DataflowStats
) -> NDArray[np.float64]:
    """Output records of a combine over ``n_in`` records that stand for ``n_raw`` raw records."""
    n_in = np.asarray(n_in, dtype=np.float64)
    n_raw = np.asarray(n_raw, dtype=np.float64)
    sel = stats.combine_pairs_sel
    n0 = stats.combine_profiled_input_records
    if n0 is None:
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
