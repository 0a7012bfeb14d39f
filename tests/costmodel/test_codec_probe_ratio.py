"""The codec's ratio follows the data it compresses: combined or as emitted (issue 20).

A profile whose codec probe measured both stages (``CodecStats.ratio_uncombined``) prices a
configuration without the job's combiner at the emitted data's ratio, and one with it at the
combined data's; a job without a combiner, or a codec without that figure, keeps ``ratio``.
The stacked batch (``costmodel/stacked.py``) gives the same numbers as each profile alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.costmodel import ConfigBatch, JobProfile, predict_job
from mrtune.costmodel.profile import CodecStats
from mrtune.costmodel.stacked import StackedProfiles
from tests.costmodel.test_combiner_physics import CLUSTER, _config, _profile

IFILE_CHECKSUM = 4.0


def _with_lz4(profile: JobProfile, uncombined: float | None) -> JobProfile:
    lz4 = CodecStats(
        ratio=0.5,
        ratio_uncombined=uncombined,
        compress_ns_per_byte=1.0,
        uncompress_ns_per_byte=0.5,
        source="measured by probe: test",
    )
    return profile.model_copy(update={"codecs": {"lz4": lz4}})


def _materialized(profile: JobProfile, comb: bool, codec: str) -> float:
    pred = predict_job(
        profile, ConfigBatch.from_configs([_config(100, 4, comb, codec, 0.7)]), CLUSTER
    )
    return float(pred.counters["MAP_OUTPUT_MATERIALIZED_BYTES"][0])


@pytest.mark.parametrize("comb", [True, False])
def test_the_ratio_of_the_data_the_codec_sees(comb: bool) -> None:
    base = _profile("zipf", 0.0, 2e9)
    probed = _with_lz4(base, 0.05)
    plain = _materialized(probed, comb, "none")
    lz4 = _materialized(probed, comb, "lz4")
    pred = predict_job(
        probed, ConfigBatch.from_configs([_config(100, 4, comb, "none", 0.7)]), CLUSTER
    )
    segments = float(pred.num_maps[0]) * 4
    want = 0.5 if comb else 0.05
    got = (lz4 - IFILE_CHECKSUM * segments) / (plain - IFILE_CHECKSUM * segments)
    assert got == pytest.approx(want, rel=1e-9)
    # without the probe's emitted figure the combined data's ratio stands in
    only = _with_lz4(base, None)
    got0 = (_materialized(only, comb, "lz4") - IFILE_CHECKSUM * segments) / (
        plain - IFILE_CHECKSUM * segments
    )
    assert got0 == pytest.approx(0.5, rel=1e-9)


def test_a_job_without_a_combiner_keeps_the_ratio() -> None:
    base = _profile("zipf", 0.0, 2e9).model_copy(
        update={"has_combiner": False, "combine_class": None}
    )
    probed = _with_lz4(base, 0.05)
    assert _materialized(probed, False, "lz4") == _materialized(
        _with_lz4(base, None), False, "lz4"
    )


def test_stacked_rows_use_each_jobs_emitted_ratio() -> None:
    a = _with_lz4(_profile("zipf", 0.0, 2e9), 0.05)
    b = _with_lz4(_profile("heaps", 4.0, 5e8), None)
    configs = [_config(100, 4, c, "lz4", 0.7) for c in (True, False)]
    alone = [
        predict_job(p, ConfigBatch.from_configs(configs), CLUSTER).counters[
            "MAP_OUTPUT_MATERIALIZED_BYTES"
        ]
        for p in (a, b)
    ]
    batch = ConfigBatch.from_configs(configs + configs)
    stacked = StackedProfiles.of([a, b], np.array([0, 0, 1, 1]))
    got = predict_job(stacked, batch, CLUSTER).counters["MAP_OUTPUT_MATERIALIZED_BYTES"]
    np.testing.assert_allclose(got, np.concatenate(alone), rtol=1e-12)


def test_machine_codec_costs_keep_the_probed_ratios() -> None:
    from mrtune.calibration.machine_costs import MachineCosts

    probed = _with_lz4(_profile("zipf", 0.0, 2e9), 0.05)
    machine = MachineCosts.model_validate(
        {"codecs": {"lz4": {"compress_ns_per_byte": 3.0, "uncompress_ns_per_byte": 1.0}}}
    )
    got = machine.apply_codecs(probed).codecs["lz4"]
    assert (got.ratio, got.ratio_uncombined) == (0.5, 0.05)
    assert got.compress_ns_per_byte == 3.0
