"""A key law whose every sample held every key: the exponent is not identified."""

from __future__ import annotations


def test_a_saturated_key_law_assumes_uniform_keys() -> None:
    # AggregateWordCount: 4,816 keys in every map's 597 k records and in all 2.99 M: the
    # exponent fitted as "measured" 1.16 gave its 85 k-record spills 4,030 keys for 4,816
    from mrtune.costmodel.combiner import zipf_distinct
    from mrtune.profiling.combine_fit import fit_zipf_key_law, saturated

    obs = [([597_000.0], 4_816.0)] * 5 + [([2_990_000.0], 4_816.0)]
    assert saturated(obs, 4_816.0)
    vocab, s, _ = fit_zipf_key_law(obs, 4_816.0)  # type: ignore[misc]
    assert (vocab, s) == (4_816.0, 0.0)
    assert float(zipf_distinct(85_000.0, vocab, s)) > 0.999 * 4_816
    assert not saturated([([1000.0], 600.0), ([2e6], 4_816.0)], 4_816.0)
