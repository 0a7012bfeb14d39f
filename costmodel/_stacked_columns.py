"""The columns of :class:`~mrtune.costmodel.stacked.ProfileTable`: the jobs' codec tables,
and the columns every job of a table shares, held as one number (or one table row).

Split from :mod:`mrtune.costmodel.stacked` (which holds the stacked profiles and the key
laws): these are the table's storage rules, elementwise the same numbers either way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.profile import CostFactors, JobProfile
from mrtune.costmodel.properties import CODEC_NAMES_BY_CODE

F64 = NDArray[np.float64]
_COSTS = [name for name in CostFactors.model_fields if name != "reduce_side"]
#: Statistics held as one number when every job of a table has the same value: the model
#: reads them only in arithmetic (the optional ones, read through ``None`` / ``nan`` checks,
#: and the per-job dataflow stay arrays).
_SHARED_STATS = (
    "reduce_size_sel",
    "reduce_pairs_sel",
    "reduce_pairs_per_group",
    "combine_pairs_sel",
    "combine_size_sel",
    "combine_profiled_merge_factor",
    "combine_width_growth",
    "combiner_heaps_beta",
    "key_law_scale",
    "key_groups_scale",
    "input_compress_ratio",
    "ifile_record_overhead",
)
#: Cost factors that are flags (a number per job is 0.0 or 1.0; one shared is a bool).
_FLAG_COSTS = {
    n for n, f in CostFactors.model_fields.items() if f.annotation is bool and n in _COSTS
}


def _shared_as_numbers(table: dict[str, object], names: Sequence[str]) -> None:
    """Replace each named column whose jobs all hold the same value by that value (a flag
    by a bool). A row of a stacked call then computes ``x · c`` with the number ``c`` where it
    computed ``x · c_row``: the same numbers, without gathering the column for every call
    (:meth:`ProfileTable.rows`) and with numpy's faster scalar loops; a term that is zero for
    every job is then skipped as it is for one job (:func:`nonzero`)."""
    for name in names:
        v = table[name]
        if not isinstance(v, np.ndarray) or not len(v) or not bool((v == v[0]).all()):
            continue  # (nan is never equal: an optional statistic stays an array)
        flag = v.dtype == np.bool_ or name in _FLAG_COSTS
        table[name] = bool(v[0]) if flag else float(v[0])


def _shared_table(t: F64) -> F64:
    """A (jobs, codes) codec table as one row (codes,) when every job has the same one:
    :meth:`StackedProfiles.codec_arrays` then indexes by code alone."""
    return t[0].copy() if bool((t == t[0]).all()) else t


def _rows(table: dict[str, object], job: NDArray[np.int64]) -> dict[str, object]:
    """The table's columns at ``job`` (a shared number stays one number)."""
    return {k: v[job] if isinstance(v, np.ndarray) else v for k, v in table.items()}


def _at(table: F64, job: NDArray[np.int64], codes: NDArray[np.int64]) -> F64:
    """``table[job, codes]`` of a (jobs, codes) table, or ``table[codes]`` of a shared row."""
    return table.take(codes) if table.ndim == 1 else table[job, codes]


def _codec_tables(profiles: Sequence[JobProfile], *, reduce: bool = False) -> tuple[F64, F64, F64]:
    """Ratio and CPU tables (jobs, codes); ``reduce``: the reduce task's CPU costs."""
    n_codes = max(CODEC_NAMES_BY_CODE) + 1
    ratio = np.ones((len(profiles), n_codes))
    comp = np.zeros((len(profiles), n_codes))
    uncomp = np.zeros((len(profiles), n_codes))
    for j, p in enumerate(profiles):
        for code, name in CODEC_NAMES_BY_CODE.items():
            if code == 0:
                continue
            c = p.codec(name)
            ratio[j, code] = c.ratio
            if reduce:
                comp[j, code], uncomp[j, code] = c.reduce_costs()
            else:
                comp[j, code] = c.compress_ns_per_byte
                uncomp[j, code] = c.uncompress_ns_per_byte
    return ratio, comp, uncomp


def _uncombined_table(profiles: Sequence[JobProfile], ratio: F64) -> F64 | None:
    """The (jobs, codes) table of ratios on emitted map output; ``None`` if no profile has
    one (every row then reads ``ratio``)."""
    if not any(c.ratio_uncombined is not None for p in profiles for c in p.codecs.values()):
        return None
    out = ratio.copy()
    for j, p in enumerate(profiles):
        for code, name in CODEC_NAMES_BY_CODE.items():
            if code == 0:
                continue
            c = p.codec(name)
            if c.ratio_uncombined is not None:
                out[j, code] = c.ratio_uncombined
    return out
