"""The keys' Zipf law from a history's per-map counters (issue 20 item 2).

A power law (Heaps) through one spill and the job's groups misses at other spill and split
sizes, because real keys saturate: the YARN round 2 runs had SPILLED_RECORDS +14% at
io.sort.mb 5 and −4.3% at 8 MiB splits. Through the same observations the Zipf law recovers
the keys' vocabulary and exponent, so both are right.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mrtune.costmodel.combiner import zipf_distinct, zipf_distinct_exact
from mrtune.profiling.combine_fit import fit_zipf_key_law, zipf_key_law
from mrtune.profiling.dataflow import Stats

V, S = 100_000.0, 1.1
N_MAP = 485_889.0


def _d(n: float) -> float:
    return float(zipf_distinct_exact(n, V, S)[0])


def _job(maps: list[dict[str, float]]) -> SimpleNamespace:
    return SimpleNamespace(maps=maps, st=Stats())


def test_the_zipf_law_is_recovered_where_heaps_misses() -> None:
    obs = [([N_MAP], _d(N_MAP))] * 4 + [([4 * N_MAP], _d(4 * N_MAP))]
    vocab, s, worst = fit_zipf_key_law(obs, _d(4 * N_MAP))
    assert vocab == pytest.approx(V, rel=0.01) and s == pytest.approx(S, rel=0.01)
    assert worst < 1e-3
    small = N_MAP / 4
    got = float(zipf_distinct_exact(small, vocab, s)[0])
    assert got == pytest.approx(_d(small), rel=0.005)
    # the power law through the same two points is > 20% high a 4× smaller spill down
    beta = np.log(_d(4 * N_MAP) / _d(N_MAP)) / np.log(4.0)
    assert _d(N_MAP) * 0.25**beta > 1.2 * _d(small)


def test_a_law_that_does_not_fit_is_refused() -> None:
    # distinct keys growing faster than the sample: no i.i.d. law gives that
    obs = [([1e5], 5e4), ([4e5], 3.9e5)]
    assert fit_zipf_key_law(obs, 3.9e5) is None


@pytest.mark.parametrize("merged", [False, True])
def test_history_maps_give_the_law_and_exact_knots(merged: bool) -> None:
    maps = []
    for n in (N_MAP, N_MAP + 60, N_MAP - 80, N_MAP + 100):
        d = _d(n)
        if merged:  # four spills combined, then the merge combine (COMBINE_INPUT > raw)
            spill_out = 4 * _d(n / 4)
            maps.append(
                {
                    "MAP_OUTPUT_RECORDS": n,
                    "COMBINE_INPUT_RECORDS": n + spill_out,
                    "COMBINE_OUTPUT_RECORDS": spill_out + d,
                }
            )
        else:
            maps.append(
                {"MAP_OUTPUT_RECORDS": n, "COMBINE_INPUT_RECORDS": n, "COMBINE_OUTPUT_RECORDS": d}
            )
    job = _job(maps)
    total = sum(m["MAP_OUTPUT_RECORDS"] for m in maps)
    groups = _d(total)
    zipf_key_law(job.st, job.maps, not merged, groups, total)
    st = job.st.values
    assert st["key_vocabulary"] == pytest.approx(V, rel=0.01)
    assert st["key_zipf_exponent"] == pytest.approx(S, rel=0.01)
    assert job.st.prov["stats.key_vocabulary"].startswith("measured")
    knots = st["key_law_knots"]
    law = lambda n: zipf_distinct(n, st["key_vocabulary"], st["key_zipf_exponent"])  # noqa: E731
    # the knots make the maps' summed distinct keys and the groups exact
    from mrtune.costmodel.combiner import knot_factor

    maps_sum = sum(_d(m["MAP_OUTPUT_RECORDS"]) for m in maps)
    pred = sum(
        float(law(m["MAP_OUTPUT_RECORDS"]) * knot_factor(m["MAP_OUTPUT_RECORDS"], knots))
        for m in maps
    )
    assert pred == pytest.approx(maps_sum, rel=1e-9)
    assert float(law(total) * knot_factor(total, knots)) == pytest.approx(groups, rel=1e-9)


def test_maps_that_spilled_twice_without_a_merge_tell_nothing() -> None:
    maps = [
        {
            "MAP_OUTPUT_RECORDS": N_MAP,
            "COMBINE_INPUT_RECORDS": N_MAP,
            "COMBINE_OUTPUT_RECORDS": 9e4,
        }
    ]
    job = _job(maps)
    zipf_key_law(job.st, job.maps, False, 8e4, N_MAP)
    assert "key_vocabulary" not in job.st.values
